package causal

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// SelfTimeParams are the constants of the "selftime" comparison method.
type SelfTimeParams struct {
	// MinBaseline and MinWindow are the fewest spans a key needs in the
	// baseline and in the window to be scored.
	MinBaseline, MinWindow int
	// FloorSeconds and FloorShare floor the baseline scale (1.4826·MAD):
	// at least FloorSeconds and FloorShare of the baseline median, so that a
	// key with near-constant exclusive time does not turn a microsecond into
	// a large score.
	FloorSeconds, FloorShare float64
}

// DefaultSelfTimeParams are the published-style defaults (not tuned).
func DefaultSelfTimeParams() SelfTimeParams {
	return SelfTimeParams{MinBaseline: 5, MinWindow: 3, FloorSeconds: 1e-3, FloorShare: 0.05}
}

// exclusiveTime returns span i's duration minus the union of its
// children's intervals clipped to the span (never negative). kids holds
// the indices of i's children.
func exclusiveTime(spans []ingest.Span, i int, kids []int32, buf [][2]ingest.Time) (float64, [][2]ingest.Time) {
	s := &spans[i]
	lo, hi := s.Start, s.End()
	buf = buf[:0]
	for _, k := range kids {
		c := &spans[k]
		a, b := max(c.Start, lo), min(c.End(), hi)
		if b > a {
			buf = append(buf, [2]ingest.Time{a, b})
		}
	}
	slices.SortFunc(buf, func(x, y [2]ingest.Time) int { return cmp.Compare(x[0], y[0]) })
	covered := ingest.Time(0)
	var curA, curB ingest.Time
	for j, iv := range buf {
		if j == 0 || iv[0] > curB {
			covered += curB - curA
			curA, curB = iv[0], iv[1]
		} else if iv[1] > curB {
			curB = iv[1]
		}
	}
	if len(buf) > 0 {
		covered += curB - curA
	}
	ex := float64(hi-lo-covered) / 1e9
	return math.Max(0, ex), buf
}

// selfTimeKey is what a span's exclusive time is attributed to.
type selfTimeKey struct {
	service string // the service the time is attributed to
	pod     string // its pod, when the spans name one
	what    string // the operation, or "caller → callee" for call time
}

// selfTimeSymKey is selfTimeKey as the span pass groups it, by the spans'
// Syms: op is the operation, or the caller for call time (call).
type selfTimeSymKey struct {
	service, pod, op ingest.Sym
	call             bool
}

// key spells k out.
func (k selfTimeSymKey) key() selfTimeKey {
	what := k.op.String()
	if k.call {
		what = what + " → " + k.service.String()
	}
	return selfTimeKey{service: k.service.String(), pod: k.pod.String(), what: what}
}

// analyzeSelfTime implements the "selftime" comparison method (CRISP, Uber
// ATC 2022; MicroRank and TraceRCA for the family): per (service,
// operation) the exclusive time of each span (duration minus the union of
// its children's intervals); the exclusive time of a client span — the
// network and queueing gap around the callee's server span, or the whole
// call when the callee is not traced (peer.service) — is attributed to the
// callee. Each key scores the robust shift of its window median against its
// baseline (median, 1.4826·MAD with floors); services rank by their largest
// key. It has nothing to say without spans, nor about faults that do not
// change where time is spent (errors, early returns).
//
// O(spans · log spans).
// Its length is one pass of the method as the paragraph above states it
// (attribute, score, rank), kept together to read against it.
func analyzeSelfTime(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
	res := &Result{Method: "selftime", Unexplained: 1, MinVerdictShare: math.NaN()}
	p := DefaultSelfTimeParams()
	if len(b.Spans) == 0 || len(b.Parent) != len(b.Spans) {
		res.Warnings = append(res.Warnings, "selftime needs spans: none were read")
		return res
	}
	bs, ws, we := g.Incident.BaselineStart, g.Incident.WindowStart, g.Incident.WindowEnd
	n := len(b.Spans)
	// Children lists in one flat array.
	off := make([]int32, n+1)
	for i := range b.Spans {
		if p := b.Parent[i]; p >= 0 {
			off[p+1]++
		}
	}
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	kids := make([]int32, off[n])
	fill := make([]int32, n)
	for i := range b.Spans {
		if p := b.Parent[i]; p >= 0 {
			kids[off[p]+fill[p]] = int32(i)
			fill[p]++
		}
	}
	type sample struct {
		base, win []float64
	}
	perSym := map[selfTimeSymKey]*sample{}
	var buf [][2]ingest.Time
	for i := range b.Spans {
		s := &b.Spans[i]
		inBase := s.Start >= bs && s.Start < ws
		inWin := s.Start >= ws && s.Start <= we
		if !inBase && !inWin {
			continue
		}
		ch := kids[off[i]:off[i+1]]
		var ex float64
		ex, buf = exclusiveTime(b.Spans, i, ch, buf)
		pod := s.Pod
		// A call span: a client (or producer) span, or an unlabelled span
		// whose children are all in other services (as ingest derives call
		// edges), or a leaf naming an untraced peer.
		var callee ingest.Sym
		cross := 0
		for _, c := range ch {
			if cs := &b.Spans[c]; cs.Service != s.Service {
				if cross == 0 {
					callee, pod = cs.Service, cs.Pod
				}
				cross++
			}
		}
		client := s.Kind == ingest.SpanClient || s.Kind == ingest.SpanProducer
		if !client && !(s.Kind == ingest.SpanUnspecified && cross > 0 && cross == len(ch)) {
			callee = ingest.Sym{}
		}
		if callee.IsEmpty() && len(ch) == 0 && !s.Peer.IsEmpty() && s.Peer != s.Service && (client || s.Kind == ingest.SpanUnspecified) {
			callee, pod = s.Peer, ingest.Sym{}
		}
		k := selfTimeSymKey{service: s.Service, pod: pod, op: s.Operation}
		if !callee.IsEmpty() {
			k = selfTimeSymKey{service: callee, pod: pod, op: s.Service, call: true}
		}
		sm := perSym[k]
		if sm == nil {
			sm = &sample{}
			perSym[k] = sm
		}
		if inBase {
			sm.base = append(sm.base, ex)
		} else {
			sm.win = append(sm.win, ex)
		}
	}
	// Spelled out, two keys may meet (an operation named like a call):
	// their samples are pooled, as they were grouped by name.
	per := make(map[selfTimeKey]*sample, len(perSym))
	for sk, sm := range perSym {
		k := sk.key()
		if o := per[k]; o != nil {
			o.base, o.win = append(o.base, sm.base...), append(o.win, sm.win...)
			continue
		}
		per[k] = sm
	}
	type scored struct {
		k     selfTimeKey
		score float64
		base  float64
		win   float64
	}
	var all []scored
	for k, sm := range per {
		if len(sm.base) < p.MinBaseline || len(sm.win) < p.MinWindow {
			continue
		}
		med, mad := medianMAD(sm.base)
		scale := math.Max(measure.MADToSigma*mad, math.Max(p.FloorSeconds, p.FloorShare*math.Abs(med)))
		wmed := measure.Quantile(sm.win, 0.5)
		all = append(all, scored{k: k, score: (wmed - med) / scale, base: med, win: wmed})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].k.service != all[j].k.service {
			return all[i].k.service < all[j].k.service
		}
		if all[i].k.pod != all[j].k.pod {
			return all[i].k.pod < all[j].k.pod
		}
		return all[i].k.what < all[j].k.what
	})
	res.Total = len(all)
	for _, a := range all {
		if len(res.Candidates) >= maxComparisonCandidates {
			res.Dropped++
			continue
		}
		c := Candidate{Node: -1, NodeID: "selftime/" + a.k.service + "/" + a.k.pod + ":" + a.k.what, Service: a.k.service,
			Component: a.k.service, ComponentKind: ingest.KindService, Signal: ingest.SignalLatency, Facet: "self", Score: a.score}
		if a.k.pod != "" {
			c.Component, c.ComponentKind = a.k.pod, ingest.KindPod
		}
		res.Candidates = append(res.Candidates, c)
	}
	res.Confident = len(res.Candidates) > 0
	return res
}

// medianMAD is measure.MedianMAD with scratch of its own.
func medianMAD(xs []float64) (med, mad float64) { return measure.MedianMAD(xs, nil) }
