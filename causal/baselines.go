package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// baselineScale is how a per-series comparison method measures the
// baseline: its location and scale.
type baselineScale uint8

const (
	robustScale baselineScale = iota // median and IQR (baro)
	sigmaScale                       // mean and standard deviation (nsigma)
)

// rankBaseline is the ranking of the per-series comparison method that
// measures the baseline by scale (analyzeBaseline).
func rankBaseline(scale baselineScale) RankFunc {
	return func(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result { return analyzeBaseline(g, b, opt, scale) }
}

// analyzeBaseline implements the two comparison methods over every aligned
// series (no graph, no counterfactual):
//   - nsigma (sigmaScale): baseline mean and standard deviation; score =
//     the largest upward z in the window;
//   - baro (BARO, FSE 2024; robustScale): baseline median and IQR; score =
//     the largest upward deviation (x − median)/IQR in the window.
//
// Both rank series by score; a service appears at its best series' rank.
func analyzeBaseline(g *tcg.Graph, b *ingest.Bundle, opt Options, how baselineScale) *Result {
	res := &Result{Method: opt.Method, MinScore: 0, MinVerdictShare: math.NaN()}
	type scored struct {
		s     *ingest.Series
		score float64
	}
	var all []scored
	for _, s := range b.Series {
		// Metrics only, as the published baselines use them: the span-derived
		// series are this tool's own construction.
		if !s.Aligned || s.Entity.Kind == ingest.KindUnknown || s.Source == ingest.DerivedSource {
			continue
		}
		var bs []float64
		for t := g.B0; t < g.B1; t++ {
			if !math.IsNaN(s.V[t]) {
				bs = append(bs, s.V[t])
			}
		}
		if len(bs) < 2 {
			continue
		}
		var loc, scale float64
		if how == sigmaScale {
			var sum, sq float64
			for _, x := range bs {
				sum += x
			}
			loc = sum / float64(len(bs))
			for _, x := range bs {
				sq += (x - loc) * (x - loc)
			}
			scale = math.Sqrt(sq / float64(len(bs)-1))
		} else {
			loc = measure.Quantile(bs, 0.5)
			scale = measure.Quantile(bs, 0.75) - measure.Quantile(bs, 0.25)
		}
		// A (numerically) constant baseline gets scale 1, as scikit-learn's
		// RobustScaler and StandardScaler do (_handle_zeros_in_scale: below
		// 10 machine epsilons).
		if !(scale >= 10*2.220446049250313e-16) {
			scale = 1
		}
		best := math.Inf(-1)
		for t := g.W0; t < g.W1; t++ {
			if x := s.V[t]; !math.IsNaN(x) {
				best = math.Max(best, (x-loc)/scale)
			}
		}
		if math.IsInf(best, -1) {
			continue
		}
		all = append(all, scored{s, best})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].s.Key() < all[j].s.Key()
	})
	res.Total = len(all)
	max := maxComparisonCandidates
	for i, a := range all {
		if i >= max {
			res.Dropped = len(all) - max
			break
		}
		e := a.s.Entity
		svc := e.Service
		if svc == "" {
			svc = e.Name
		}
		res.Candidates = append(res.Candidates, Candidate{Node: -1, NodeID: e.ID() + ":" + a.s.Signal.String(), Service: svc,
			Component: e.Name, ComponentKind: e.Kind, Signal: a.s.Signal, Score: a.score, Series: a.s})
	}
	res.Confident = len(res.Candidates) > 0
	res.Unexplained = 1 // no counterfactual: nothing is explained
	return res
}
