package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// decide sets an item's verdict, reason and effect from its statistics
// and q-values (see the package documentation for the rules).
func (r *run) decide(w *itemWork) {
	it := &w.item
	switch {
	case w.short != "":
		it.Verdict, it.Reason = model.Insufficient, w.short
		return
	case w.degenerate != "":
		it.Verdict, it.Reason, it.LogRatio, it.Effect = model.Unchanged, w.degenerate, 0, 0
		return
	}
	defer func() { it.Effect = effectOf(it) }()
	switch it.Kind {
	case model.KindDistribution:
		r.decideDist(w)
		if w.few != "" && it.Verdict != model.Regressed && it.Verdict != model.Improved && it.Verdict != model.Fixed {
			// Few spans (fewSpans): no change found is no evidence of none.
			it.Verdict, it.Reason = model.Insufficient, w.few
		}
	case model.KindProportion:
		r.decideProp(w)
	case model.KindRate:
		if it.Signal == "logs" && it.Facet == "template" {
			r.decideLogRate(w)
		} else {
			r.decideRate(w)
		}
	case model.KindSeries:
		r.decideSeries(w)
		if it.Verdict == model.Regressed {
			if k := r.disjointBaseWindows(); k < r.opt.SeriesWindows {
				if why := r.episodic(w); why != "" {
					it.Verdict = model.Insufficient
					it.Reason = "level beyond the band of " + plural(k, "baseline window") + " as long as the compared ones, but " + why +
						": how often such episodes come needs " + itoa(r.opt.SeriesWindows) + " or more windows of baseline (a quiet window beats " +
						plural(k, "window") + " by chance once in " + itoa(k+1) + ")"
				}
			}
		}
	}
}

// episodic says why a series that went beyond its band is episodic ("" when
// it is not): its baseline, or the same series' baseline on another pod of
// its workload, already holds bursts (points beyond MinShift robust σ of its
// level in the bad direction), or AFTER ends back within the band (a burst
// that ended in the window), or its three or more disjoint baseline
// windows' levels predict AFTER's (levelPrediction). An episodic series
// beyond every one of k
// disjoint baseline windows is no evidence of a change when k is small —
// one more burst, or a longer one, beats k windows by chance once in k+1
// quiet pairs whatever the shift test says — so it is a regression only
// from SeriesWindows windows of baseline on. A series that was steady
// through a short baseline, on every pod and from window to window, and
// stays away from it to the end of AFTER is judged by the shift test
// alone: a clean baseline that breaks is strong evidence.
func (r *run) episodic(w *itemWork) string {
	it := &w.item
	ys := w.afterSeq
	switch {
	case len(ys) == 0 || !it.Band.Known:
		return ""
	case w.bursts:
		return "its baseline already holds bursts beyond " + fix(r.opt.MinShift, 0) + "σ of its level"
	case w.family != "" && r.burstyFamily[w.family]:
		return "the same series on another pod of " + it.Service + " bursts beyond " + fix(r.opt.MinShift, 0) + "σ in its baseline"
	}
	if hi, ok := levelPrediction(w.levels, it.Direction); ok && (it.After.Median-hi)*float64(it.Direction) <= 0 {
		return "its " + plural(len(w.levels), "baseline window") + "' levels (" + fix(slices.Min(w.levels), 3) + "–" + fix(slices.Max(w.levels), 3) +
			") already vary enough to predict " + fix(hi, 3) + " for one more (98% prediction interval)"
	}
	band := it.Band.Level
	for _, v := range ys[len(ys)-max(1, (len(ys)+3)/4):] {
		if v < band[0] || v > band[1] {
			return ""
		}
	}
	return "AFTER ends back within the band (a burst that ended)"
}

// levelPrediction is the bad-direction end of the 98% Student-t prediction
// interval of one more window's level from k disjoint baseline windows'
// levels, mean ± t(0.99, k−1)·s·√(1+1/k): how far a quiet window may go
// when the baseline holds only a few windows, allowing for their mean and
// spread being estimated from k of them. ok is false with fewer than
// three levels (two degrees of freedom for their spread: from two,
// t(0.99, 1) = 31.8 would predict almost any level, and the band's own
// rules decide) or no bad direction.
func levelPrediction(levels []float64, dir int) (bound float64, ok bool) {
	k := float64(len(levels))
	if k < 3 || dir == 0 {
		return nan(), false
	}
	mean, sd := stat.MeanStdDev(levels, nil)
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: k - 1}.Quantile(0.99) * sd * math.Sqrt(1+1/k)
	return mean + float64(dir)*half, true
}

// disjointBaseWindows is how many disjoint windows as long as the compared
// ones BEFORE's baseline holds (see episodic).
func (r *run) disjointBaseWindows() int {
	if r.baseStart == 0 || r.window <= 0 {
		return 0
	}
	return int(r.before.Start.Sub(r.baseStart) / r.window)
}

// move is one statistic that moved significantly and by at least the
// minimum effect.
type move struct {
	stat   string  // "location", "p50", "p90", "p99", "ratio", "level"
	worse  bool    // in the bad direction
	size   float64 // effect size 0..1
	inBand bool    // AFTER's value of the statistic lies within the baseline band
}

// bandOf returns the band and AFTER/BEFORE values of a distribution
// statistic ("location" is the median).
func bandOf(it *model.Item, stat string) (band [2]float64, before, after float64) {
	switch stat {
	case "p90":
		return it.Band.P90, it.Before.P90, it.After.P90
	case "p99":
		return it.Band.P99, it.Before.P99, it.After.P99
	}
	return it.Band.P50, it.Before.P50, it.After.P50
}

// relChange is a quantile's relative change: the ratio minus one for
// positive data, else the difference over the larger of |BEFORE| and
// BEFORE's interquartile range (edge gaps can be negative).
func relChange(it *model.Item, qc model.QuantileChange) float64 {
	if qc.Ratio == qc.Ratio {
		return qc.Ratio - 1
	}
	scale := math.Max(math.Abs(qc.Before), it.Before.P90-it.Before.P50)
	if scale <= 0 {
		return nan()
	}
	return qc.Diff / scale
}

func (r *run) decideDist(w *itemWork) {
	it, t, o := &w.item, &w.item.Test, r.opt
	var moves []move
	down := o.MinRatio / (1 + o.MinRatio) // the decrease matching a 1+MinRatio increase
	// Few spans (fewSpans): the median must also move by a material change.
	material := w.few == "" || it.Before.P50 > 0 && (it.After.P50/it.Before.P50-1 >= o.MinRatio || 1-it.After.P50/it.Before.P50 >= down)
	if t.Q < o.Alpha && math.Abs(t.CliffDelta) >= o.MinDelta && material {
		moves = append(moves, move{stat: "location", worse: t.CliffDelta > 0, size: logRatio(it.After.P50, it.Before.P50)})
	}
	for _, qc := range t.Quantiles {
		if !qc.Usable || !(t.KSQ < o.Alpha) {
			continue
		}
		rel := relChange(it, qc)
		stat := "p" + strconv.Itoa(int(math.Round(qc.Q*100)))
		size := math.Min(maxEffect, math.Abs(math.Log2(1+math.Abs(rel))))
		switch {
		case rel >= o.MinRatio && qc.DiffCI[0] > 0:
			moves = append(moves, move{stat: stat, worse: true, size: size})
		case rel <= -down && qc.DiffCI[1] < 0:
			moves = append(moves, move{stat: stat, worse: false, size: size})
		}
	}
	for i := range moves {
		band, _, after := bandOf(it, moves[i].stat)
		moves[i].inBand = it.Band.Known && band[1] == band[1] && after <= band[1]
	}
	r.settle(w, moves, func() (broken, back bool) {
		if !it.Band.Known {
			return false, false
		}
		back = true
		for _, s := range []string{"p50", "p90", "p99"} {
			band, before, after := bandOf(it, s)
			if band[1] != band[1] || (s != "p50" && !usable(it, s)) {
				continue
			}
			broken = broken || before > band[1]
			back = back && after <= band[1]
		}
		return broken, back
	})
}

// usable reports whether a quantile of a distribution item was usable.
func usable(it *model.Item, stat string) bool {
	for _, qc := range it.Test.Quantiles {
		if "p"+strconv.Itoa(int(math.Round(qc.Q*100))) == stat {
			return qc.Usable
		}
	}
	return false
}

func (r *run) decideProp(w *itemWork) {
	it, t, o := &w.item, &w.item.Test, r.opt
	var moves []move
	if t.Q < o.Alpha && math.Abs(t.CohenH) >= o.MinH {
		band := it.Band.Ratio
		moves = append(moves, move{stat: "ratio", worse: t.CohenH > 0, size: logRatio(it.After.Ratio, it.Before.Ratio),
			inBand: it.Band.Known && band[1] == band[1] && it.After.Ratio <= band[1]})
	}
	r.settle(w, moves, func() (bool, bool) {
		band := it.Band.Ratio
		if !it.Band.Known || band[1] != band[1] {
			return false, false
		}
		return it.Before.Ratio > band[1], it.After.Ratio <= band[1]
	})
}

func (r *run) decideRate(w *itemWork) {
	it, t, o := &w.item, &w.item.Test, r.opt
	rr := t.RateRatio
	it.LogRatio = logRatio(rr, 1)
	band := it.Band.Ratio
	inBand := it.Band.Known && band[0] == band[0] && it.After.Rate >= band[0] && it.After.Rate <= band[1]
	switch {
	case !(t.Q < o.Alpha):
		it.Verdict, it.Reason = model.Unchanged, "no significant change ("+qText(t.Q)+")"
	case rr < 1+o.MinRatio && rr > 1/(1+o.MinRatio):
		it.Verdict, it.Reason = model.Unchanged, fmt.Sprintf("significant but small: ×%s (at least ×%s or ×%s needed)", fix(rr, 2), fix(1+o.MinRatio, 2), fix(1/(1+o.MinRatio), 2))
	case inBand:
		it.Verdict, it.Reason = model.Unchanged, "changed ×"+fix(rr, 2)+" but within the baseline band"
	default:
		it.Verdict, it.Reason = model.Changed, "traffic ×"+fix(rr, 2)+" ("+qText(t.Q)+")"
	}
}

func (r *run) decideSeries(w *itemWork) {
	it, t, o := &w.item, &w.item.Test, r.opt
	var moves []move
	// The level must also move by a material share: at least MinRatio up
	// or the matching share down (|Δ| ≥ MinRatio/(1+MinRatio) of the
	// larger level), as a canary judge allows a stated percent change.
	// For a ratio that should stay near 1 (a success ratio,
	// availability: bad direction down, every point in [0, 1]) the share
	// is of its shortfall from 1, as canary mode measures it: 1.00 → 0.81
	// is a fifth of the requests failing, not a 19% change.
	mB, mA := it.Before.Median, it.After.Median
	of := "the level"
	if w.nearOne {
		mB, mA, of = 1-mB, 1-mA, "the shortfall from 1"
	}
	rel := math.Abs(mA-mB) / math.Max(math.Abs(mA), math.Abs(mB))
	material := rel >= o.MinRatio/(1+o.MinRatio)
	if t.Q < o.Alpha && math.Abs(t.Shift) >= o.MinShift && !material {
		it.LogRatio = logRatio(math.Abs(mA), math.Abs(mB))
		it.Verdict, it.Reason = model.Unchanged, "significant ("+qText(t.Q)+", "+shiftText(t.Shift)+") but small: "+fix(100*rel, 0)+"% of "+of+" (at least "+fix(100*o.MinRatio/(1+o.MinRatio), 0)+"% needed)"
		return
	}
	if t.Q < o.Alpha && math.Abs(t.Shift) >= o.MinShift {
		band, full := it.Band.Level, w.fullLevel
		up := t.Shift > 0
		mv := move{stat: "level", size: logRatio(math.Abs(it.After.Median), math.Abs(it.Before.Median))}
		switch it.Direction {
		case 0:
			in := it.Band.Known && full[0] == full[0] && it.After.Median >= full[0] && it.After.Median <= full[1]
			it.LogRatio = mv.size
			if in {
				it.Verdict, it.Reason = model.Unchanged, "level moved "+shiftText(t.Shift)+" but within the baseline band"
			} else {
				it.Verdict, it.Reason = model.Changed, "level "+shiftText(t.Shift)+" ("+qText(t.Q)+")"
			}
			return
		case 1:
			mv.worse = up
			mv.inBand = it.Band.Known && band[1] == band[1] && it.After.Median <= band[1]
		default:
			mv.worse = !up
			mv.inBand = it.Band.Known && band[0] == band[0] && it.After.Median >= band[0]
		}
		moves = append(moves, mv)
	}
	if it.Direction == 0 && len(moves) == 0 {
		it.LogRatio = logRatio(math.Abs(mA), math.Abs(mB))
		it.Verdict, it.Reason = model.Unchanged, r.noChange(t.Q, "|shift| "+fix(math.Abs(t.Shift), 1)+"σ", fix(o.MinShift, 1)+"σ")
		return
	}
	r.settle(w, moves, func() (bool, bool) {
		band := w.fullLevel
		if !it.Band.Known || band[0] != band[0] {
			return false, false
		}
		if it.Direction > 0 {
			return it.Before.Median > band[1], it.After.Median <= band[1]
		}
		return it.Before.Median < band[0], it.After.Median >= band[0]
	})
}

// settle turns the significant moves into the verdict: a worse move beyond
// the baseline band (or with no band) is a regression; otherwise a better
// move is an improvement, a fix when BEFORE was outside the band and AFTER
// is back within it (bandCheck); otherwise unchanged.
func (r *run) settle(w *itemWork, moves []move, bandCheck func() (broken, back bool)) {
	it, t := &w.item, &w.item.Test
	var worse, better, worseInBand []move
	for _, m := range moves {
		switch {
		case m.worse && (!it.Band.Known || !m.inBand):
			worse = append(worse, m)
		case m.worse:
			worseInBand = append(worseInBand, m)
		default:
			better = append(better, m)
		}
	}
	size := func(ms []move) float64 {
		s := 0.0
		for _, m := range ms {
			s = math.Max(s, m.size)
		}
		return s
	}
	stats := func(ms []move) string {
		var ss []string
		for _, m := range ms {
			ss = append(ss, m.stat)
		}
		return strings.Join(ss, ", ")
	}
	switch {
	case len(worse) > 0:
		it.Verdict, it.LogRatio = model.Regressed, size(worse)
		it.Reason = "worse: " + stats(worse) + " (" + qText(t.Q) + ")"
		if !it.Band.Known {
			it.Reason += "; no baseline band"
		} else {
			it.Reason += "; beyond the baseline band"
		}
		if len(better) > 0 {
			it.Reason += "; better: " + stats(better)
		}
	case len(better) > 0:
		it.LogRatio = size(better)
		broken, back := bandCheck()
		switch {
		case !it.Band.Known:
			it.Verdict, it.Reason = model.Improved, "better: "+stats(better)+"; no baseline band to say fixed"
		case broken && back:
			it.Verdict, it.Reason = model.Fixed, "better: "+stats(better)+"; back within the baseline band"
		case broken:
			it.Verdict, it.Reason = model.Improved, "better: "+stats(better)+"; still outside the baseline band"
		default:
			it.Verdict, it.Reason = model.Unchanged, "better than BEFORE ("+stats(better)+") but both within the baseline band"
		}
	case len(worseInBand) > 0:
		it.Verdict, it.LogRatio = model.Unchanged, size(worseInBand)
		it.Reason = "worse than BEFORE (" + stats(worseInBand) + ") but within the baseline band"
	default:
		it.Verdict = model.Unchanged
		it.LogRatio = logRatio(it.After.P50, it.Before.P50)
		if it.Kind == model.KindProportion {
			it.LogRatio = logRatio(it.After.Ratio, it.Before.Ratio)
			it.Reason = r.noChange(t.Q, "|h| "+fix(math.Abs(t.CohenH), 2), fix(r.opt.MinH, 2))
		} else if it.Kind == model.KindSeries {
			it.LogRatio = logRatio(math.Abs(it.After.Median), math.Abs(it.Before.Median))
			it.Reason = r.noChange(t.Q, "|shift| "+fix(math.Abs(t.Shift), 1)+"σ", fix(r.opt.MinShift, 1)+"σ")
		} else {
			it.Reason = r.noChange(math.Min(nz(t.Q), nz(t.KSQ)), "|δ| "+fix(math.Abs(t.CliffDelta), 2), fix(r.opt.MinDelta, 2))
		}
	}
	if it.LogRatio != it.LogRatio {
		it.LogRatio = 0
	}
}

// effectOf is how far apart an item's sides are, 0..1: |Cliff's δ| (for
// errors the difference of the error ratios, δ of 0/1 outcomes); for
// traffic |r−1|/(r+1) of the rate ratio r.
func effectOf(it *model.Item) float64 {
	if it.Kind == model.KindRate {
		rr := it.Test.RateRatio
		if rr != rr || math.IsInf(rr, 0) {
			return 0
		}
		return math.Abs(rr-1) / (rr + 1)
	}
	if d := it.Test.CliffDelta; d == d {
		return math.Abs(d)
	}
	return 0
}

// maxEffect caps an item's log ratio (a change from or to zero).
const maxEffect = 10

// logRatio is |log2(a/b)| for positive a and b, maxEffect when exactly one
// is zero, 0 when both are, capped at maxEffect; NaN inputs give 0.
func logRatio(a, b float64) float64 {
	switch {
	case a != a || b != b:
		return 0
	case a == 0 && b == 0:
		return 0
	case a <= 0 || b <= 0:
		return maxEffect
	}
	return math.Min(maxEffect, math.Abs(math.Log2(a/b)))
}

func nz(q float64) float64 {
	if q != q {
		return 1
	}
	return q
}

// noChange explains an unchanged item: not significant, or too small.
func (r *run) noChange(q float64, effect, min string) string {
	if !(q < r.opt.Alpha) {
		return "no significant change (" + qText(q) + ")"
	}
	return "significant (" + qText(q) + ") but small: " + effect + " < " + min
}

// qText renders "q 0.003" / "q < 1e-12".
func qText(q float64) string {
	switch {
	case q != q:
		return "q ~"
	case q < 1e-12:
		return "q < 1e-12"
	case q < 0.001:
		return "q " + strconv.FormatFloat(q, 'e', 1, 64)
	}
	return "q " + fix(q, 3)
}

func shiftText(s float64) string {
	if s >= 0 {
		return "+" + fix(s, 1) + "σ"
	}
	return fix(s, 1) + "σ"
}

// fix renders v at the given decimals, "~" for NaN or ±Inf, never "-0"
// (the scorecard's convention).
var fix = reportfmt.FormatFixed

func itoa(n int) string { return strconv.Itoa(n) }

// plural is "1 span", "3 spans".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + strings.TrimSuffix(what, "s")
	}
	if strings.HasSuffix(what, "s") {
		return itoa(n) + " " + what
	}
	return itoa(n) + " " + what + "s"
}
