package mcp

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// TestMCPAnalyzeRequestBreaks: the MCP analyze summary carries the card's
// request breaks, one line each, the most significant first.
func TestMCPAnalyzeRequestBreaks(t *testing.T) {
	c := &scorecard.Card{RequestBreaks: []scorecard.RequestBreak{
		{Service: "ts-travel-service", CauseRank: 1, Evidence: scorecard.Evidence{Text: "after log A came log B in 60 of 62 in the baseline and in 0 of 39 in the window"}},
		{Service: "ts-seat-service", Evidence: scorecard.Evidence{Text: "after a call to X came the request's end in 5 of 50 …"}},
	}}
	out, err := AnalyzeResult(c, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.RequestBreaks) != 2 || !strings.HasPrefix(out.RequestBreaks[0], "ts-travel-service: after log A") ||
		!strings.HasPrefix(out.RequestBreaks[1], "ts-seat-service: ") {
		t.Errorf("request breaks %q", out.RequestBreaks)
	}
	if out, _ := AnalyzeResult(&scorecard.Card{}, false); out.RequestBreaks != nil {
		t.Errorf("a card without breaks: %q", out.RequestBreaks)
	}
}
