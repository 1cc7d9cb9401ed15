package scorecard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// operationShares says which operations of service changed their share of
// the service's spans between the baseline and the incident window: the
// evidence behind an operation-mix shift (what requests stopped or started
// doing). It lists up to max operations, largest change first; ok is false
// when either period has no span of the service.
func operationShares(b *ingest.Bundle, service string, inc tcg.Incident, max int) (Evidence, bool) {
	base, win := map[string]float64{}, map[string]float64{}
	var nb, nw float64
	for i := range b.Spans {
		s := &b.Spans[i]
		if s.Service != service {
			continue
		}
		switch {
		case s.Start >= inc.BaselineStart && s.Start < inc.WindowStart:
			base[s.Operation]++
			nb++
		case s.Start >= inc.WindowStart && s.Start <= inc.WindowEnd:
			win[s.Operation]++
			nw++
		}
	}
	if nb == 0 || nw == 0 {
		return Evidence{}, false
	}
	type change struct {
		op        string
		from, to  float64
		magnitude float64
	}
	var cs []change
	for op := range mergeKeys(base, win) {
		f, t := base[op]/nb, win[op]/nw
		cs = append(cs, change{op, f, t, math.Abs(t - f)})
	}
	slices.SortFunc(cs, func(x, y change) int {
		return cmp.Or(cmp.Compare(y.magnitude, x.magnitude), cmp.Compare(x.op, y.op))
	})
	var parts []string
	for _, c := range cs[:min(max, len(cs))] {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.op, pct(c.from), pct(c.to)))
	}
	return Evidence{Kind: EvidenceSpans, Baseline: math.NaN(), Incident: math.NaN(),
		Text: fmt.Sprintf("share of %s's spans by operation, baseline (%.0f spans) → window (%.0f): %s",
			service, nb, nw, strings.Join(parts, "; "))}, true
}

// mergeKeys is the set of keys of a and b.
func mergeKeys(a, b map[string]float64) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// pct formats a share as a percentage with one decimal below 10%.
func pct(x float64) string {
	if x < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}
