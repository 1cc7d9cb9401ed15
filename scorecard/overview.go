package scorecard

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// overview builds the overview heatmap: one row per service of the graph,
// each slice the largest deviation of any of the service's signals (its
// own, its pods', its call edges', its devices') on the HeatScaleZ scale,
// rows ordered by call depth from the entry services (those no traced
// service calls), then by name. When there are more than maxRows services,
// the rows that deviate most are kept. O(N·S) for N nodes and S slices.
func overview(entities []ingest.Entity, g *tcg.Graph, slice time.Duration, maxRows int) Heatmap {
	frame, n, ok := heatFrame(g, slice)
	if !ok {
		return Heatmap{}
	}
	rows := map[string][]float64{}
	for _, nd := range g.Nodes {
		svc := nd.Entity.Service
		if nd.Entity.Kind == ingest.KindService {
			svc = nd.Entity.Name
		}
		if svc == "" {
			continue
		}
		row := nodeHeatRow(g, nd, frame.Start, slice, n)
		acc, seen := rows[svc]
		if !seen {
			rows[svc] = row
			continue
		}
		for j, z := range row {
			if !math.IsNaN(z) && (math.IsNaN(acc[j]) || z > acc[j]) {
				acc[j] = z
			}
		}
	}
	if len(rows) == 0 {
		return Heatmap{}
	}
	depth := callDepths(entities, rows)
	names := make([]string, 0, len(rows))
	for s := range rows {
		names = append(names, s)
	}
	total := len(names)
	if len(names) > maxRows {
		peak := func(s string) float64 {
			m := 0.0
			for _, z := range rows[s] {
				if !math.IsNaN(z) {
					m = math.Max(m, z)
				}
			}
			return m
		}
		target := g.Incident.Target.Service
		sort.Slice(names, func(i, j int) bool {
			a, b := names[i], names[j]
			if (a == target) != (b == target) {
				return a == target // the target's row is always kept
			}
			if pa, pb := peak(a), peak(b); pa != pb {
				return pa > pb
			}
			return a < b
		})
		names = names[:maxRows]
	}
	sort.Slice(names, func(i, j int) bool {
		if depth[names[i]] != depth[names[j]] {
			return depth[names[i]] < depth[names[j]]
		}
		return names[i] < names[j]
	})
	h := frame
	h.Title = fmt.Sprintf("every service by call depth (%d services), each row its most deviating signal", total)
	if len(names) < total {
		h.Title = fmt.Sprintf("the %d most deviating of %d services by call depth, each row its most deviating signal", len(names), total)
	}
	for _, s := range names {
		h.Rows = append(h.Rows, HeatRow{Label: s, Depth: depth[s], Target: s == g.Incident.Target.Service})
		h.Cells = append(h.Cells, scaleHeat(rows[s]))
	}
	return h
}

// callDepths is each service's call depth: 0 for the entry services (that
// no service calls), one more per call edge; services the calls never
// reach come after the deepest. Call edges are the bundle's edge entities
// (from spans or the Jaeger dependencies).
func callDepths(entities []ingest.Entity, services map[string][]float64) map[string]int {
	callees := map[string][]string{}
	called := map[string]bool{}
	callers := map[string]bool{}
	for _, e := range entities {
		if e.Kind == ingest.KindEdge && e.Caller != "" && e.Callee != "" && e.Caller != e.Callee {
			callees[e.Caller] = append(callees[e.Caller], e.Callee)
			called[e.Callee] = true
			callers[e.Caller] = true
		}
	}
	depth := map[string]int{}
	var queue []string
	roots := make([]string, 0, len(callers))
	for s := range callers {
		if !called[s] {
			roots = append(roots, s)
		}
	}
	sort.Strings(roots)
	for _, s := range roots {
		depth[s] = 0
		queue = append(queue, s)
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		next := append([]string(nil), callees[cur]...)
		sort.Strings(next)
		for _, c := range next {
			if _, ok := depth[c]; !ok {
				depth[c] = depth[cur] + 1
				queue = append(queue, c)
			}
		}
	}
	deepest := -1
	for _, d := range depth {
		deepest = max(deepest, d)
	}
	for s := range services {
		if _, ok := depth[s]; !ok {
			depth[s] = deepest + 1
		}
	}
	return depth
}
