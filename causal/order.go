package causal

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// The rules that order the scored candidates after the scores: within a
// service, an anomalous ancestor first (ancestorsFirst); across services,
// no content signal that explains nothing first (contentNotFirst), and,
// when no candidate explains a share of the target, the service whose
// requests broke first (requestBreakFirst).

// ancestorsFirst puts, within each service, an anomalous ancestor of the
// service's best candidate first when it scores within margin of it: of
// two anomalous signals of one workload where one is upstream of the
// other (a GPU and the pod's errors it causes), the upstream one is the
// component to look at. The promoted node takes the best one's place and
// score; the service ranking is unchanged.
//
// A promotion moves one candidate of a service to just before that
// service's first, so it changes neither which candidate comes first in
// any other service nor the order of the others: each service is decided
// on its own candidates, in their order, and the list is rebuilt once.
// O(C + Σ_s ancestors of s's best) for C candidates.
func ancestorsFirst(g *tcg.Graph, sp *anomalySpace, cands []scored, margin float64) []scored {
	if margin <= 0 {
		return cands
	}
	svcOf := func(c scored) string {
		n := g.Nodes[c.node]
		if n.Entity.Service != "" {
			return n.Entity.Service
		}
		return n.Entity.Name
	}
	bySvc := map[string][]int{} // positions of each service's candidates, in order
	var services []string       // by first position
	for k, c := range cands {
		s := svcOf(c)
		if _, ok := bySvc[s]; !ok {
			services = append(services, s)
		}
		bySvc[s] = append(bySvc[s], k)
	}
	promote := map[int]int{} // a service's first position → the position promoted before it
	moved := map[int]bool{}
	for _, s := range services {
		pos := bySvc[s]
		if len(pos) < 2 {
			continue
		}
		best := cands[pos[0]]
		anc := sp.ancestors(best.node)
		pick := -1
		for _, j := range pos[1:] {
			c := cands[j]
			if !anc[c.node] || c.score < best.score-margin {
				continue
			}
			if pick < 0 || c.score > cands[pick].score {
				pick = j
			}
		}
		if pick >= 0 {
			promote[pos[0]] = pick
			moved[pick] = true
		}
	}
	if len(promote) == 0 {
		return cands
	}
	out := make([]scored, 0, len(cands))
	for k, c := range cands {
		if moved[k] {
			continue
		}
		if pick, ok := promote[k]; ok {
			up := cands[pick]
			up.score = c.score
			out = append(out, up)
		}
		out = append(out, c)
	}
	return out
}

// contentNotFirst keeps a content signal that explains under minShare of
// the target's deviation from ranking first: what a component logs or
// which operations it runs changes with what its callers and callees do,
// so without a share of the target to show for it, it is at least as
// likely an effect as the cause. The first candidate that is not such a
// signal moves to the front, and the content signals it passed score just
// below it (so that the services' probabilities follow the order); the
// rest keep their order and scores. When every candidate is one, the
// order stands.
//
// The rule needs a deviation to explain: when the target's own deviation
// is under the detection threshold (a code fault that changes what
// requests do, not how long they take), every candidate explains "0%" of
// noise, and holding content back would be a prior on the kind of signal
// rather than evidence — the order of the scores stands.
func contentNotFirst(g *tcg.Graph, cands []scored, minShare float64) []scored {
	weak := func(c scored) bool {
		n := g.Nodes[c.node]
		return contentSignal(n.Signal, string(n.Facet)) && c.terms[TermTargetShare] < minShare
	}
	if len(cands) == 0 || !weak(cands[0]) || !targetMoved(g) {
		return cands
	}
	for j := 1; j < len(cands); j++ {
		if !weak(cands[j]) {
			return toFront(cands, j)
		}
	}
	return cands
}

// targetMoved reports whether the target's deviation in the window reaches
// the graph's detection threshold (a graph without a target has none).
func targetMoved(g *tcg.Graph) bool {
	if g.Target < 0 {
		return false
	}
	return g.Nodes[g.Target].Score >= threshold(g)
}

// threshold is the graph's detection threshold (tcg's default for a graph
// built without one).
func threshold(g *tcg.Graph) float64 {
	if g.Threshold > 0 {
		return g.Threshold
	}
	return tcg.DefaultThreshold
}

// RequestBreaks returns the services whose requests broke: each one's own
// most significant per-request pattern (not one after a call) whose
// p-value, adjusted over every service tested (Bonferroni), is under
// level and whose share of requests taking the expected step moved by at
// least share — or by at least invariant when every baseline request took
// it (a step that never failed to follow: a clean baseline that breaks).
// The most significant first (ties: the larger move, then
// the service), except that a break that begins at the answer of a call
// to a service whose requests broke too comes after every break that
// does not: the caller's changed step is explained by its callee's break
// (the callee is the first service along the trace whose pattern broke).
// Deterministic.
func RequestBreaks(ps []ingest.PatternShift, level, share, invariant float64) []ingest.PatternShift {
	k := 0
	for _, p := range ps {
		if p.Callee == "" {
			k++
		}
	}
	var out []ingest.PatternShift
	for _, p := range ps {
		floor := share
		if p.BaselineN > 0 && p.BaselineHits == p.BaselineN {
			floor = invariant
		}
		if p.Callee == "" && p.P*float64(k) < level && p.ShareChange() >= floor {
			out = append(out, p)
		}
	}
	broke := map[string]bool{}
	for _, p := range out {
		broke[p.Service] = true
	}
	explained := func(p ingest.PatternShift) bool {
		return p.AfterCall != "" && p.AfterCall != p.Service && broke[p.AfterCall]
	}
	slices.SortStableFunc(out, func(a, b ingest.PatternShift) int {
		if ea, eb := explained(a), explained(b); ea != eb {
			if eb {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.P, b.P), cmp.Compare(b.ShareChange(), a.ShareChange()), strings.Compare(a.Service, b.Service))
	})
	return out
}

// requestBreakFirst puts first, when no candidate explains a share of the
// target, svc: where the request breaks point (BreakOriginOf: the service
// whose requests broke, or the callee whose answer its broken callers
// react to). A code fault changes what requests do — a statement that
// stops following its predecessor, a call no longer made — in the
// requests that reach it, whether or not they got slower, and a test on
// those requests is the strongest evidence such an incident leaves. No candidate explains a
// share when the target barely moved (under the detection threshold: no
// share of noise, and the scores compare deviations of unlike series), or
// when even the first candidate's intervention removes under minShare of
// its deviation: then the scores rank anomalies that no mechanism ties to
// the target, and the content rule (contentNotFirst) has no cause that
// explains the target to protect. The service's pattern candidate (else its
// best candidate) moves to the front, the candidates it passed score just
// below it. When the first candidate explains a share of a target that
// moved, the order stands: the mechanisms decide.
func requestBreakFirst(g *tcg.Graph, cands []scored, svc string, minShare float64) []scored {
	if len(cands) == 0 || svc == "" || targetMoved(g) && !(cands[0].terms[TermTargetShare] < minShare) {
		return cands
	}
	pick := -1
	for j, c := range cands {
		n := g.Nodes[c.node]
		if n.Entity.Kind == ingest.KindService && n.Entity.Name == svc && n.Facet == tcg.FacetPattern {
			pick = j
			break
		}
		if pick < 0 && n.Entity.Service == svc {
			pick = j
		}
	}
	if pick <= 0 {
		return cands
	}
	cands[pick].score = math.Max(cands[pick].score, cands[0].score)
	return toFront(cands, pick)
}

// toFront moves cands[j] to the front, in place; the candidates it passed
// keep their order and score just below it (so that the services'
// probabilities follow the order).
func toFront(cands []scored, j int) []scored {
	c := cands[j]
	copy(cands[1:j+1], cands[:j])
	cands[0] = c
	for k := 1; k <= j; k++ {
		cands[k].score = math.Min(cands[k].score, math.Nextafter(c.score, math.Inf(-1)))
	}
	return cands
}

// BreakOriginOf is where request breaks point (most significant first):
// the first break's service, unless its step begins at the answer of a
// call to a service X at which another broken service's step begins too.
// Then X is the origin and those services (the first break's first, then
// in order) its callers: two callers that changed, from the same minutes,
// what they do once X has answered — stopping right after it, going on
// to something else — react to a changed answer of X's (an error, a wrong
// value), which X's own requests need not show (a service that logs
// nothing and calls nothing has no pattern of its own). One caller alone
// may as well have changed its own handling of the answer: its break
// stays its own. ("", nil) without breaks.
func BreakOriginOf(breaks []ingest.PatternShift) (string, []string) {
	if len(breaks) == 0 {
		return "", nil
	}
	first := breaks[0]
	x := first.AfterCall
	if x == "" || x == first.Service {
		return first.Service, nil
	}
	callers := []string{first.Service}
	for _, p := range breaks[1:] {
		if p.AfterCall == x && p.Service != x && !slices.Contains(callers, p.Service) {
			callers = append(callers, p.Service)
		}
	}
	if len(callers) < 2 {
		return first.Service, nil
	}
	return x, callers
}
