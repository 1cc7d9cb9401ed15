package scorecard

import (
	"fmt"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
)

// ChangeRow is one change of the look-back on the card ("what changed"):
// a rollout, a configuration update, a change record, with its relation to
// the symptom's onset and the analysis' verdict on it.
type ChangeRow struct {
	Service string `json:"service"`
	At      string `json:"at"` // RFC3339
	What    string `json:"what"`
	Rollout string `json:"rollout,omitempty"`
	// Relation is the change's time against the symptom's onset: "4m12s
	// before the onset", "1m after the onset".
	Relation string `json:"relation"`
	// LeadSeconds is the onset minus the change's time, in seconds
	// (positive: the change came first).
	LeadSeconds float64 `json:"lead_seconds"`
	Verdict     string  `json:"verdict"` // blamed, exonerated or not judged
	Why         string  `json:"why"`
}

// maxChangeRows bounds the changes the card lists: the latest before the
// window's end (older ones are counted in a last row).
const maxChangeRows = 6

// changeRows turns the analysis' change verdicts into the card's rows:
// the latest maxChangeRows, oldest first, and how many older ones were
// left out.
func changeRows(cs []causal.ChangeVerdict) ([]ChangeRow, int) {
	skip := max(0, len(cs)-maxChangeRows)
	out := make([]ChangeRow, 0, len(cs)-skip)
	for _, c := range cs[skip:] {
		rel := "after the onset"
		lead := c.Lead
		if lead >= 0 {
			rel = fmtLead(lead) + " before the onset"
		} else {
			rel = fmtLead(-lead) + " after the onset"
		}
		out = append(out, ChangeRow{Service: c.Service, At: c.At.Std().UTC().Format(time.RFC3339), What: c.What, Rollout: c.Rollout,
			Relation: rel, LeadSeconds: lead.Seconds(), Verdict: c.Verdict, Why: c.Why})
	}
	return out, skip
}

// fmtLead writes a duration to the second, without a fraction ("4m12s").
func fmtLead(d time.Duration) string {
	return d.Round(time.Second).String()
}

// changeLine is a change as one line of text: "cart 03:04:12 (4m12s
// before the onset): rollout to cart-v2 — blamed: the first cause".
func changeLine(c ChangeRow) string {
	at := c.At
	if t, err := time.Parse(time.RFC3339, c.At); err == nil {
		at = t.Format("15:04:05")
	}
	return fmt.Sprintf("%s %s (%s): %s — %s: %s", c.Service, at, c.Relation, c.What, c.Verdict, c.Why)
}
