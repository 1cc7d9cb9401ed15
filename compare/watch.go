package compare

import (
	"fmt"
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

// watchList is the target's measurements and the causes' items, each once,
// in that order.
func (r *run) watchList(measures []*itemWork, causes []*itemWork, labels []string, rep *model.Report) []model.Watch {
	out := []model.Watch{}
	seen := map[*itemWork]bool{}
	add := func(w *itemWork, label string) {
		if w == nil || seen[w] {
			return
		}
		seen[w] = true
		it := &w.item
		wt := model.Watch{Label: label, Item: it.ID, Verdict: it.Verdict, Text: watchRange(it), Query: it.Query}
		if wt.Query != "" && r.opt.GrafanaURL != "" {
			wt.URL = reportview.GrafanaExplore(r.opt.GrafanaURL, r.opt.GrafanaDatasource, wt.Query,
				watchFrom(rep).Std(), rep.After.End.Std())
		}
		out = append(out, wt)
	}
	// A measurement of the target whose own verdict differs from the
	// target's (its latency unchanged while its errors are fixed) says the
	// target's, so that the list agrees with the verdict above it.
	for _, w := range measures {
		label := labelOf(&w.item)
		if tv := rep.Verdict.Verdict; tv != "" && w.item.Verdict != tv {
			label += " (of the target, which is " + string(tv) + ")"
		}
		add(w, label)
	}
	for i, w := range causes {
		add(w, labels[i])
	}
	return out
}

// watchFrom is where a watch link starts: BEFORE's baseline when it has
// one, else BEFORE's window.
func watchFrom(rep *model.Report) ingest.Time {
	if rep.Before.BaselineStart != 0 {
		return rep.Before.BaselineStart
	}
	return rep.Before.Start
}

// watchRange says the range an item should stay in after the fix: the
// baseline band of its statistic when known, else BEFORE's baseline (or
// BEFORE's own window when there was no baseline) in the bad direction.
func watchRange(it *model.Item) string {
	known := func(a [2]float64) bool { return it.Band.Known && a[0] == a[0] && a[1] == a[1] }
	switch it.Kind {
	case model.KindDistribution:
		if known(it.Band.P99) {
			return fmt.Sprintf("p99 at most %s (the top of the baseline's band %s–%s)", value(it.Band.P99[1], it.Unit),
				value(it.Band.P99[0], it.Unit), value(it.Band.P99[1], it.Unit))
		}
		if v := it.Baseline.P99; v == v && it.Baseline.N > 0 {
			return fmt.Sprintf("p99 near %s (the baseline's)", value(v, it.Unit))
		}
		return fmt.Sprintf("p99 near %s or below (AFTER's now)", value(it.After.P99, it.Unit))
	case model.KindProportion:
		if known(it.Band.Ratio) {
			return fmt.Sprintf("errors per request at most %s (the top of the baseline's band)", pct(it.Band.Ratio[1]))
		}
		if v := it.Baseline.Ratio; v == v && it.Baseline.N > 0 {
			return fmt.Sprintf("errors per request near %s (the baseline's)", pct(v))
		}
		return fmt.Sprintf("errors per request near %s or below (AFTER's now)", pct(it.After.Ratio))
	case model.KindRate:
		if known(it.Band.Ratio) {
			return fmt.Sprintf("rate within %s–%s per second (the baseline's band)", render.Fix3(it.Band.Ratio[0]), render.Fix3(it.Band.Ratio[1]))
		}
		return fmt.Sprintf("rate near %s per second (AFTER's now)", render.Fix3(it.After.Rate))
	case model.KindSeries:
		if known(it.Band.Level) {
			return seriesRange(it, it.Band.Level[0], it.Band.Level[1], "the baseline's 1st–99th percentile")
		}
		if m, s := it.Baseline.Median, it.Baseline.Scale; m == m && s == s && it.Baseline.N > 0 {
			return seriesRange(it, m-3*s, m+3*s, "the baseline's level ± 3σ")
		}
		return fmt.Sprintf("level near %s (AFTER's now)", value(it.After.Median, it.Unit))
	}
	return ""
}

// seriesRange words a series' range in its bad direction.
func seriesRange(it *model.Item, lo, hi float64, why string) string {
	switch {
	case it.Direction > 0:
		return fmt.Sprintf("level at most %s (%s)", value(hi, it.Unit), why)
	case it.Direction < 0:
		return fmt.Sprintf("level at least %s (%s)", value(math.Max(lo, 0), it.Unit), why)
	}
	return fmt.Sprintf("level within %s–%s (%s)", value(lo, it.Unit), value(hi, it.Unit), why)
}
