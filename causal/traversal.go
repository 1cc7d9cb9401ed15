package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TraversalThreshold is the BARO-style score (deviation from the baseline
// median in baseline IQRs) above which the "traversal" method treats a
// service as anomalous.
const TraversalThreshold = 3

// serviceScores returns each service's BARO-style anomaly score: the
// largest upward deviation (x − median)/IQR in the window over the
// service's aligned series (metrics and, when withDerived, the
// span-derived ones), and the series that gave it.
func serviceScores(g *tcg.Graph, b *ingest.Bundle, withDerived bool) (map[string]float64, map[string]*ingest.Series) {
	score := map[string]float64{}
	rep := map[string]*ingest.Series{}
	for _, s := range b.Series {
		if !s.Aligned || s.Entity.Kind == ingest.KindUnknown || (!withDerived && s.Source == ingest.DerivedSource) {
			continue
		}
		svc := s.Entity.Service
		if svc == "" {
			svc = s.Entity.Name
		}
		sc, ok := baroScore(s.V, g.B0, g.B1, g.W0, g.W1)
		if !ok {
			continue
		}
		if old, seen := score[svc]; !seen || sc > old || sc == old && s.Key() < rep[svc].Key() {
			score[svc], rep[svc] = sc, s
		}
	}
	return score, rep
}

// baroScore is BARO's score of one series: the largest (x − median)/IQR of
// the window's values against the baseline's median and IQR (a constant
// baseline gets scale 1, as scikit-learn's RobustScaler does).
func baroScore(v []float64, b0, b1, w0, w1 int) (float64, bool) {
	var bs []float64
	for t := b0; t < b1 && t < len(v); t++ {
		if !math.IsNaN(v[t]) {
			bs = append(bs, v[t])
		}
	}
	if len(bs) < 2 {
		return 0, false
	}
	loc := measure.Quantile(bs, 0.5)
	scale := measure.Quantile(bs, 0.75) - measure.Quantile(bs, 0.25)
	if !(scale >= 10*2.220446049250313e-16) {
		scale = 1
	}
	best := math.Inf(-1)
	for t := w0; t < w1 && t < len(v); t++ {
		if x := v[t]; !math.IsNaN(x) {
			best = math.Max(best, (x-loc)/scale)
		}
	}
	return best, !math.IsInf(best, -1)
}

// callGraph returns caller → callees from dependencies, call-edge series
// and spans (a parent span in one service, its child in another), each
// list sorted.
func callGraph(b *ingest.Bundle) map[string][]string {
	set := map[string]map[string]bool{}
	add := func(a, c string) {
		if a == "" || c == "" || a == c {
			return
		}
		if set[a] == nil {
			set[a] = map[string]bool{}
		}
		set[a][c] = true
	}
	for _, d := range b.Deps {
		add(d.Parent, d.Child)
	}
	for _, s := range b.Series {
		if s.Entity.Kind == ingest.KindEdge {
			add(s.Entity.Caller, s.Entity.Callee)
		}
	}
	type pair struct{ a, c ingest.Sym }
	seen := map[pair]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		if len(b.Parent) == len(b.Spans) {
			if p := b.Parent[i]; p >= 0 {
				if ps := b.Spans[p].Service; ps != s.Service && !seen[pair{ps, s.Service}] {
					seen[pair{ps, s.Service}] = true
					add(ps.String(), s.Service.String())
				}
			}
		}
		if !s.Peer.IsEmpty() && (s.Kind == ingest.SpanClient || s.Kind == ingest.SpanProducer) && !seen[pair{s.Service, s.Peer}] {
			seen[pair{s.Service, s.Peer}] = true
			add(s.Service.String(), s.Peer.String())
		}
	}
	out := map[string][]string{}
	for a, cs := range set {
		for c := range cs {
			out[a] = append(out[a], c)
		}
		sort.Strings(out[a])
	}
	return out
}

// analyzeTraversal implements the "traversal" comparison method (threshold
// traversal, PetShop, Hardt et al. 2023): per-service BARO-style scores,
// the call graph from spans, dependencies or service-graph metrics, and a
// depth-first walk from the alerting service into anomalous callees. The
// anomalous services reached whose callees are all normal — the deepest
// anomalous nodes — rank first (by score), then the other anomalous
// services reached, then every other service by score. Without a call
// graph or a target it is BARO by service.
//
// O(series · grid + services + calls).
func analyzeTraversal(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
	res := &Result{Method: "traversal", Unexplained: 1, MinVerdictShare: math.NaN()}
	score, rep := serviceScores(g, b, true)
	calls := callGraph(b)
	start := g.Incident.Target.Service
	anom := func(s string) bool { return score[s] > TraversalThreshold }
	tier := map[string]int{} // 0 deepest anomalous, 1 other anomalous reached, 2 the rest
	visited := map[string]bool{}
	var walk func(s string)
	walk = func(s string) {
		if visited[s] {
			return
		}
		visited[s] = true
		deeper := false
		for _, c := range calls[s] {
			if anom(c) {
				deeper = true
				walk(c)
			}
		}
		if anom(s) {
			tier[s] = 0
			if deeper {
				tier[s] = 1
			}
		}
	}
	if start != "" {
		walk(start)
	}
	names := make([]string, 0, len(score))
	for s := range score {
		names = append(names, s)
		if _, ok := tier[s]; !ok {
			tier[s] = 2
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, c := names[i], names[j]
		if tier[a] != tier[c] {
			return tier[a] < tier[c]
		}
		if score[a] != score[c] {
			return score[a] > score[c]
		}
		return a < c
	})
	res.Total = len(names)
	for _, s := range names {
		if len(res.Candidates) >= maxComparisonCandidates {
			res.Dropped++
			continue
		}
		r := rep[s]
		c := Candidate{Node: -1, NodeID: "traversal/" + s, Service: s, Component: r.Entity.Name, ComponentKind: r.Entity.Kind,
			Signal: r.Signal, Score: score[s], Series: r}
		res.Candidates = append(res.Candidates, c)
	}
	res.Confident = len(res.Candidates) > 0
	return res
}
