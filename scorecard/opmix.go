package scorecard

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/evidence"
)

// sharesEvidence renders an operation-mix shift (evidence.OperationShares):
// which operations of the service changed their share of its spans between
// the baseline and the incident window.
func sharesEvidence(sh evidence.Shares) Evidence {
	var parts []string
	for _, c := range sh.Changes {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Operation, pct(c.From), pct(c.To)))
	}
	return Evidence{Kind: EvidenceSpans, Baseline: math.NaN(), Incident: math.NaN(),
		Text: fmt.Sprintf("share of %s's spans by operation, baseline (%.0f spans) → window (%.0f): %s",
			sh.Service, sh.BaselineSpans, sh.WindowSpans, strings.Join(parts, "; "))}
}

// pct formats a share as a percentage with one decimal below 10%.
func pct(x float64) string {
	if x < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}
