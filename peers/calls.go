package peers

import (
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// What a new version does to others: the calls its pods make. A release
// that stops calling a dependency (a missed call, a configuration that
// short-circuits a path, parameters in the wrong order that fail before
// the call) looks like its old version in its own CPU, latency and errors
// — it is often faster — but its pods' calls to that dependency are gone:
// no series, or a call duration of exactly 0 (no call measured), where
// its old version's pods, serving in the same minutes, call it all along.

// CallsContrast is the share of a rollout's callees (the dependencies its
// old version's pods call in the window) that its new version's pods call,
// cell by cell, minus the old version's (1 by construction): 0 while the
// new pods call every dependency the old ones do, −k/n when they stopped
// calling k of n. Stopped names the callees whose calls the new pods never
// made in the window. The scale is RelativeFloor of the share, as for an
// availability. O(families · cells · pods).
func (m *Model) CallsContrast(b *ingest.Bundle, r Rollout, c Cells, minCells int) (Contrast, []string) {
	old := r.OldPods()
	if r.New == nil || len(r.New.Pods) == 0 || len(old) == 0 {
		return Contrast{}, nil
	}
	pods := map[string]bool{}
	for _, p := range append(slices.Clone(r.New.Pods), old...) {
		pods[p] = true
	}
	n := len(b.Grid)
	// Per callee: the cells where any old pod measured a call, and where
	// any new pod did.
	type calls struct{ old, new []bool }
	byCallee := map[string]*calls{}
	var callees []string
	// served marks the cells where the new pods answered calls (their
	// callers' calls to them measured on them): a pod that serves no
	// request yet makes no call either, and is not judged for it. Without
	// any such series, a cell where the pods report at all.
	served := make([]bool, n)
	hasInbound := false
	fams := m.Families(b, pods)
	for _, f := range fams {
		mem := f.Series(r.New.Pods)
		for _, s := range mem {
			if s.Entity.Kind != ingest.KindEdge || s.Entity.Callee != r.Service {
				continue
			}
			hasInbound = true
			for t := c.W0; t < c.W1 && t < len(s.V) && t < n; t++ {
				if measuredCall(s, s.V[t]) {
					served[t] = true
				}
			}
		}
	}
	if !hasInbound {
		for t := c.W0; t < c.W1 && t < n; t++ {
			served[t] = m.reports(r.New.Pods, t)
		}
	}
	for _, f := range fams {
		mem, prs := f.Series(r.New.Pods), f.Series(old)
		if len(prs) == 0 {
			continue
		}
		e := prs[0].Entity
		if e.Kind != ingest.KindEdge || e.Caller != r.Service || e.Callee == "" || e.Callee == r.Service {
			continue
		}
		cl := byCallee[e.Callee]
		if cl == nil {
			cl = &calls{old: make([]bool, n), new: make([]bool, n)}
			byCallee[e.Callee] = cl
			callees = append(callees, e.Callee)
		}
		mark := func(ss []*ingest.Series, into []bool) {
			for _, s := range ss {
				for t := c.W0; t < c.W1 && t < len(s.V) && t < n; t++ {
					if measuredCall(s, s.V[t]) {
						into[t] = true
					}
				}
			}
		}
		mark(prs, cl.old)
		mark(mem, cl.new)
	}
	slices.Sort(callees)
	ct := Contrast{Diff: make([]float64, n), Member: make([]float64, n), Peers: make([]float64, n), Scale: RelativeFloor, ScaleFrom: "floor"}
	for t := range ct.Diff {
		ct.Diff[t], ct.Member[t], ct.Peers[t] = math.NaN(), math.NaN(), math.NaN()
	}
	var stopped []string
	var called []string
	for _, callee := range callees {
		cl := byCallee[callee]
		oldCells, newCells := 0, 0
		for t := c.W0; t < c.W1 && t < n; t++ {
			if cl.old[t] {
				oldCells++
			}
			if cl.new[t] && served[t] {
				newCells++
			}
		}
		if oldCells < minCells {
			continue // the old version barely calls it: nothing to miss
		}
		called = append(called, callee)
		if newCells == 0 {
			stopped = append(stopped, callee)
		}
	}
	if len(called) == 0 {
		return Contrast{}, nil
	}
	for t := c.W0; t < c.W1 && t < n; t++ {
		if !served[t] {
			continue // the new pods serve nothing yet: nothing to judge
		}
		want, k := 0, 0
		for _, callee := range called {
			if cl := byCallee[callee]; cl.old[t] {
				want++
				if cl.new[t] {
					k++
				}
			}
		}
		if want == 0 {
			continue // the old pods called nothing then: nothing to miss
		}
		share := float64(k) / float64(want)
		ct.Diff[t], ct.Member[t], ct.Peers[t] = share-1, share, 1
		ct.Cells++
	}
	return ct, stopped
}

// measuredCall reports whether a call series' sample measures calls: a
// defined value, and for a duration or a rate one above 0 (a mean call
// duration or a call rate of exactly 0 is no call at all).
func measuredCall(s *ingest.Series, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch s.Signal {
	case ingest.SignalLatency, ingest.SignalTraffic:
		return v > 0
	}
	return true
}

// reports says whether any of the pods has a sample in cell t.
func (m *Model) reports(pods []string, t int) bool {
	for _, p := range pods {
		if pr := m.present[p]; t < len(pr) && pr[t] {
			return true
		}
	}
	return false
}
