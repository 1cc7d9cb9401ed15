package scorecard

import (
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/evidence"
)

func TestSharesEvidence(t *testing.T) {
	ev := sharesEvidence(evidence.Shares{Service: "ad", BaselineSpans: 100, WindowSpans: 100,
		Changes: []evidence.ShareChange{{Operation: "get", From: 0.6, To: 0.99}, {Operation: "random", From: 0.4, To: 0.01}}})
	want := "share of ad's spans by operation, baseline (100 spans) → window (100): get 60% → 99%; random 40% → 1.0%"
	if ev.Text != want || ev.Kind != EvidenceSpans {
		t.Errorf("evidence = %q (%s), want %q", ev.Text, ev.Kind, want)
	}
}
