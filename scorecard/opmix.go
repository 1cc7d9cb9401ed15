package scorecard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
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
	// Finalize sorts spans by start: scan from the baseline to the window's end.
	lo := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= inc.BaselineStart })
	for i := lo; i < len(b.Spans) && b.Spans[i].Start <= inc.WindowEnd; i++ {
		s := &b.Spans[i]
		if s.Service != service {
			continue
		}
		if s.Start < inc.WindowStart {
			base[s.Operation]++
			nb++
		} else {
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
	for op, x := range base {
		cs = append(cs, change{op, x / nb, win[op] / nw, math.Abs(win[op]/nw - x/nb)})
	}
	for op, x := range win {
		if base[op] == 0 {
			cs = append(cs, change{op, 0, x / nw, x / nw})
		}
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

// pct formats a share as a percentage with one decimal below 10%.
func pct(x float64) string {
	if x < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}
