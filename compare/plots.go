package compare

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// maxPlotPoints bounds the ECDF points kept per side of a plot.
const maxPlotPoints = 120

// plots are the before/after distributions of the target, the BEFORE
// causes, the regressions and the improvements, in that order, at most
// Options.MaxPlots.
func (r *run) plots(target *itemWork, rep *model.Report, byID map[string]*itemWork) []model.Plot {
	var ids []string
	if target != nil {
		ids = append(ids, target.item.ID)
	}
	for _, list := range [][]model.Finding{rep.Causes, rep.Regressions, rep.Improvements} {
		for _, f := range list {
			ids = append(ids, f.Item)
		}
	}
	seen := map[string]bool{}
	var out []model.Plot
	for _, id := range ids {
		w := byID[id]
		if id == "" || seen[id] || w == nil || len(w.xs) == 0 || len(w.ys) == 0 || len(out) >= r.opt.MaxPlots {
			continue
		}
		it := &w.item
		if it.Kind != model.KindDistribution && it.Kind != model.KindSeries {
			continue
		}
		seen[id] = true
		p := model.Plot{Item: id, Title: labelOf(it), Unit: it.Unit, Before: ecdf(w.xs), After: ecdf(w.ys), Band: [2]float64{nan(), nan()}}
		p.LogX = w.xs[0] > 0 && w.ys[0] > 0 && math.Max(w.xs[len(w.xs)-1], w.ys[len(w.ys)-1])/math.Min(w.xs[0], w.ys[0]) > 20
		if it.Band.Known {
			if it.Kind == model.KindSeries {
				p.Band = it.Band.Level
			} else if qc, ok := shownQuantile(it); ok {
				p.Band, _, _ = bandOf(it, "p"+itoa(int(math.Round(qc.Q*100))))
			}
		}
		out = append(out, p)
	}
	return out
}

// ecdf thins sorted xs to at most maxPlotPoints (value, share ≤ value)
// points, always keeping the first and the last.
func ecdf(xs []float64) [][2]float64 {
	n := len(xs)
	k := min(n, maxPlotPoints)
	out := make([][2]float64, 0, k)
	for i := range k {
		idx := i
		if k > 1 && n > k {
			idx = int(math.Round(float64(i) * float64(n-1) / float64(k-1)))
		}
		// The share at a value counts every tie of it.
		j := idx
		for j+1 < n && xs[j+1] == xs[idx] {
			j++
		}
		out = append(out, [2]float64{xs[idx], float64(j+1) / float64(n)})
	}
	return out
}

// maxHeatRows bounds the services in the heatmap.
const maxHeatRows = 16

// heatmap is the latency change by topology depth × time (see Heatmap).
func (r *run) heatmap() model.Heatmap {
	h := model.Heatmap{Slice: r.opt.Slice, Rows: []model.HeatRow{}, Cells: [][]float64{}}
	var rows []*itemWork
	for _, w := range r.work {
		it := &w.item
		if it.Kind == model.KindDistribution && it.EntityKind == "service" && it.Facet == "" && it.Verdict != model.Insufficient {
			rows = append(rows, w)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].item, rows[j].item
		da, db := a.Depth, b.Depth
		if da < 0 {
			da = math.MaxInt
		}
		if db < 0 {
			db = math.MaxInt
		}
		if da != db {
			return da < db
		}
		return a.ID < b.ID
	})
	if len(rows) > maxHeatRows {
		rows = rows[:maxHeatRows]
	}
	w := min(r.before.End.Sub(r.before.Start), r.after.End.Sub(r.after.Start))
	cols := int((w + r.opt.Slice - 1) / r.opt.Slice)
	if cols <= 0 {
		return h
	}
	for _, w := range rows {
		it := &w.item
		id := it.Entity
		mb := sliceMedians(r.bd.sets[id], r.before.Start, r.opt.Slice, cols)
		ma := sliceMedians(r.ad.sets[id], r.after.Start, r.opt.Slice, cols)
		row := make([]float64, cols)
		for j := range row {
			row[j] = nan()
			if mb[j] > 0 && ma[j] > 0 {
				row[j] = math.Max(-1, math.Min(1, math.Log2(ma[j]/mb[j])/2))
			}
		}
		h.Rows = append(h.Rows, model.HeatRow{Label: it.Entity, Depth: it.Depth, Item: it.ID})
		h.Cells = append(h.Cells, row)
	}
	return h
}

// sliceMedians is the median of a set's values in each of cols slices from
// start; NaN where a slice holds fewer than 3 values.
func sliceMedians(s *spanSet, start ingest.Time, slice time.Duration, cols int) []float64 {
	out := make([]float64, cols)
	buckets := make([][]float64, cols)
	if s != nil {
		for i, t := range s.t {
			j := int(int64(t-start) / int64(slice))
			if j >= 0 && j < cols {
				buckets[j] = append(buckets[j], s.v[i])
			}
		}
	}
	for j, b := range buckets {
		out[j] = nan()
		if len(b) >= 3 {
			slices.Sort(b)
			out[j] = measure.QuantileSorted(b, 0.5)
		}
	}
	return out
}
