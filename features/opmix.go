package features

import (
	"cmp"
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Options.MaxMixOps bounds the operations followed per service; rarer ones are
// pooled (HTTP routes with IDs in them would otherwise be thousands).

// operationMixSeries returns one ingest.TraceOpMix series per service with at
// least two operations: for each grid cell, the chi-square statistic of the
// cell's operation counts against the service's mix over all cells, as a
// standard normal deviate (Wilson–Hilferty), so that it reads alike for
// busy and quiet steps. NaN where a cell has fewer than Options.MinMixSpans spans.
// The reference mix includes the incident, which only dilutes a shift. It
// only reads the spans and the grid, so Derive runs it beside
// deriveTraceSeries. O(spans + services·cells·MaxMixOps).
func operationMixSeries(b *ingest.Bundle, fo Options) (out []*ingest.Series) {
	if len(b.Spans) == 0 || len(b.Grid) == 0 {
		return nil
	}
	n := len(b.Grid)
	g0, step := int64(b.Grid[0]), int64(b.Step)
	// One pass over the spans: per (service, operation), its total and its
	// count per cell.
	type svcOp struct{ svc, op ingest.Sym }
	type opCounts struct {
		total int
		cells []int32
	}
	per := map[svcOp]*opCounts{}
	for i := range b.Spans {
		s := &b.Spans[i]
		k := svcOp{s.Service, s.Operation}
		oc := per[k]
		if oc == nil {
			oc = &opCounts{cells: make([]int32, n)}
			per[k] = oc
		}
		oc.total++
		if c := (int64(s.Start) - g0 + step - 1) / step; c >= 0 && c < int64(n) {
			oc.cells[c]++
		}
	}
	// The followed operations of each service, most frequent first; the
	// rest are pooled in the last column.
	bySvc := map[string][]svcOp{}
	for k := range per {
		bySvc[k.svc.String()] = append(bySvc[k.svc.String()], k)
	}
	type mix struct {
		k      int
		counts []int32 // cell*k + column
	}
	mixes := map[string]*mix{}
	for svc, ops := range bySvc {
		if len(ops) < 2 {
			continue
		}
		slices.SortFunc(ops, func(x, y svcOp) int {
			return cmp.Or(cmp.Compare(per[y].total, per[x].total), cmp.Compare(x.op.String(), y.op.String()))
		})
		m := &mix{k: min(len(ops), fo.MaxMixOps)}
		m.counts = make([]int32, n*m.k)
		for i, o := range ops {
			col := min(i, m.k-1)
			for c, x := range per[o].cells {
				m.counts[c*m.k+col] += x
			}
		}
		mixes[svc] = m
	}
	svcs := make([]string, 0, len(mixes))
	for svc := range mixes {
		svcs = append(svcs, svc)
	}
	slices.Sort(svcs)
	for _, svc := range svcs {
		m := mixes[svc]
		ref := make([]float64, m.k)
		for c := 0; c < n; c++ {
			for j := 0; j < m.k; j++ {
				ref[j] += float64(m.counts[c*m.k+j])
			}
		}
		mixShares(ref)
		v := make([]float64, n)
		scored := false
		for c := 0; c < n; c++ {
			row := m.counts[c*m.k : (c+1)*m.k]
			cellN := 0.0
			for _, x := range row {
				cellN += float64(x)
			}
			if cellN < float64(fo.MinMixSpans) {
				v[c] = math.NaN()
				continue
			}
			v[c] = mixDeviate(row, cellN, ref)
			scored = true
		}
		if !scored {
			continue
		}
		out = append(out, &ingest.Series{Name: ingest.TraceOpMix, Labels: ingest.Labels{{Name: "service", Value: svc}, {Name: "stat", Value: "mix"}},
			Entity: ingest.Entity{Kind: ingest.KindService, Name: svc, Service: svc}, Signal: ingest.SignalTraffic, Stat: "mix", Unit: "z",
			Source: ingest.DerivedSource, T: b.Grid, V: v, Aligned: true})
	}
	return out
}
