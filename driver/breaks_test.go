package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestBreakWhenTargetBarelyMoved runs the binary on a TrainTicket
// development case whose alerted latency barely moved while a service's
// requests broke (a code fault): the verdict abstains and says so, the
// first cause is the first service whose requests broke, and no cause
// claims a share of the (absent) deviation — not even "0%".
func TestRequestBreakWhenTargetBarelyMoved(t *testing.T) {
	if testing.Short() {
		t.Skip("development data test skipped in -short mode")
	}
	dir := filepath.Join("..", "..", "shared", "data", "nezha-tt-dev", "tt-20230129-101248")
	if _, err := os.Stat(filepath.Join(dir, "label.json")); err != nil {
		t.Skip("development case not present")
	}
	card := runBreakCase(t, dir)
	if card.Verdict.Confident || !strings.Contains(card.Verdict.Text, "barely moved") {
		t.Errorf("verdict %q (confident %v): want an abstention saying the target barely moved", card.Verdict.Text, card.Verdict.Confident)
	}
	if len(card.RequestBreaks) == 0 || len(card.Causes) == 0 {
		t.Fatalf("no request break or no cause: %+v", card)
	}
	if b := card.RequestBreaks[0]; b.CauseRank != 1 || card.Causes[0].Service != b.Service {
		t.Errorf("first break %s (cause #%d), first cause %s: want the break first", b.Service, b.CauseRank, card.Causes[0].Service)
	}
	if !strings.Contains(card.Verdict.Text, card.RequestBreaks[0].Service) {
		t.Errorf("verdict %q does not name the service whose requests broke", card.Verdict.Text)
	}
	for i, c := range card.Causes {
		if c.Intervention.ExplainedShare != nil {
			t.Errorf("cause #%d claims %v of a deviation within noise", i+1, *c.Intervention.ExplainedShare)
		}
	}
	if card.Unexplained != nil {
		t.Errorf("unexplained %v of a deviation within noise", *card.Unexplained)
	}
}

// TestRequestBreakWhenNothingExplainsTarget runs the binary on a
// TrainTicket code fault whose alerted latency moved (6 σ) but whose best
// scored cause explains none of it: nothing ties a candidate to the
// target, so the service whose requests broke (the labelled one) is the
// first cause, the verdict abstains, and the shares are reported (the
// target moved: "0%" is a share of a real deviation here).
func TestRequestBreakWhenNothingExplainsTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("development data test skipped in -short mode")
	}
	dir := filepath.Join("..", "..", "shared", "data", "nezha-tt-dev", "tt-20230129-085206")
	truth := labelledService(t, dir)
	card := runBreakCase(t, dir)
	if len(card.RequestBreaks) == 0 || len(card.Causes) < 2 {
		t.Fatalf("no request break or too few causes: %+v", card)
	}
	if b := card.RequestBreaks[0]; b.Service != truth || b.CauseRank != 1 || card.Causes[0].Service != b.Service {
		t.Errorf("first break %s (cause #%d), first cause %s: want the labelled %s's break first",
			b.Service, b.CauseRank, card.Causes[0].Service, truth)
	}
	if card.Verdict.Confident {
		t.Errorf("verdict %q is confident: nothing explains the target", card.Verdict.Text)
	}
	for i, c := range card.Causes[:2] {
		if sh := c.Intervention.ExplainedShare; sh == nil || *sh >= 0.05 {
			t.Errorf("cause #%d explained share %v: want a reported share under 5%%", i+1, sh)
		}
	}
}

// labelledService is the root-cause service of a development case's
// label.json; the test is skipped when the case is not present.
func labelledService(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "label.json"))
	if err != nil {
		t.Skip("development case not present")
	}
	var label struct {
		RootCause struct{ Service string } `json:"root_cause"`
	}
	if err := json.Unmarshal(raw, &label); err != nil {
		t.Fatal(err)
	}
	return label.RootCause.Service
}

// breakCard is what the request-break tests read of a JSON scorecard.
type breakCard struct {
	Verdict struct {
		Confident bool   `json:"confident"`
		Text      string `json:"text"`
	} `json:"verdict"`
	Causes []struct {
		Service      string `json:"service"`
		Intervention struct {
			ExplainedShare *float64 `json:"explained_share"`
		} `json:"intervention"`
	} `json:"causes"`
	Unexplained   *float64 `json:"unexplained"`
	RequestBreaks []struct {
		Service   string `json:"service"`
		CauseRank int    `json:"cause_rank"`
	} `json:"request_breaks"`
}

// runBreakCase runs the binary on a case directory and decodes its JSON
// scorecard.
func runBreakCase(t *testing.T, dir string) breakCard {
	t.Helper()
	r := runCmd(nil, "-q", "-o", "json", dir)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	var card breakCard
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
		t.Fatal(err)
	}
	return card
}
