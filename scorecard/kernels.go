package scorecard

import (
	"fmt"
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// kernelEvidence summarises profiler timelines (Nsight Systems, Kineto) of
// one GPU as evidence: which kernels got slower and how busy/idle time
// changed between the baseline and the incident window. Profiles keep their
// own sub-second timeline (they are not on the bundle's grid); a profile
// that covers only one of the two windows is summarised as it is. At most
// max items, the largest relative changes first; deterministic.
func kernelEvidence(b *ingest.Bundle, gpu string, inc tcg.Incident, max int) []Evidence {
	type item struct {
		ev    Evidence
		ratio float64
		key   string
	}
	var items []item
	for _, s := range b.Series {
		if s.Aligned || s.Entity.Kind != ingest.KindGPU || (s.Entity.Name != gpu && s.Entity.GPU != gpu) {
			continue
		}
		var base, win []float64
		for i, t := range s.T {
			v := s.V[i]
			if math.IsNaN(v) {
				continue
			}
			switch {
			case t >= inc.BaselineStart && t < inc.WindowStart:
				base = append(base, v)
			case t >= inc.WindowStart && t <= inc.WindowEnd:
				win = append(win, v)
			}
		}
		what := s.Name
		if k := s.Labels.Get("kernel"); k != "" {
			what = "kernel " + k
		}
		switch {
		case len(base) > 0 && len(win) > 0:
			mb, mw := mean(base), mean(win)
			r := math.Inf(1)
			if mb != 0 {
				r = mw / mb
			}
			items = append(items, item{Evidence{Kind: EvidenceKernel, Series: shortKey(s), Baseline: mb, Incident: mw, Unit: s.Unit,
				Text: fmt.Sprintf("%s: %s → %s (×%.2f) between baseline and incident", what, formatValue(mb, s.Unit), formatValue(mw, s.Unit), r)},
				math.Abs(math.Log(math.Max(r, 1e-9))), s.Key()})
		case len(win) > 0:
			mw := mean(win)
			items = append(items, item{Evidence{Kind: EvidenceKernel, Series: shortKey(s), Baseline: math.NaN(), Incident: mw, Unit: s.Unit,
				Text: fmt.Sprintf("%s: %s during the incident (the profile has no baseline)", what, formatValue(mw, s.Unit))}, 0, s.Key()})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].ratio != items[j].ratio {
			return items[i].ratio > items[j].ratio
		}
		return items[i].key < items[j].key
	})
	var out []Evidence
	for i := 0; i < len(items) && i < max; i++ {
		out = append(out, items[i].ev)
	}
	return out
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}
