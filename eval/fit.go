package eval

import (
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
)

// setOf names the development set a case belongs to: the base name of the
// eval root it was found under.
func setOf(dir string, roots []string) string {
	best := ""
	for _, r := range roots {
		rel, err := filepath.Rel(r, dir)
		if err == nil && !strings.HasPrefix(rel, "..") && len(r) > len(best) {
			best = r
		}
	}
	return filepath.Base(filepath.Clean(best))
}

// trainingCases collects the default method's candidates of every case.
func trainingCases(rs []caseResult) []causal.TrainingCase {
	var out []causal.TrainingCase
	for _, r := range rs {
		if r.Method != causal.DefaultMethod || r.Error != "" {
			continue
		}
		out = append(out, causal.TrainingCase{Name: r.Case, Set: r.Set, Truth: r.Truth, Scored: r.scored})
	}
	return out
}

// fitTerms are the terms a fit uses: the fitted ones but the ablated.
func fitTerms(ablate []string) []string {
	var out []string
	for _, t := range causal.FittedTerms() {
		skip := false
		for _, a := range ablate {
			skip = skip || a == t
		}
		if !skip {
			out = append(out, t)
		}
	}
	return out
}

// rankMetrics scores cases under weights w.
func rankMetrics(w map[string]float64, cases []causal.TrainingCase) (ac1, ac3, ac5, avg5 float64) {
	for _, c := range cases {
		order := causal.RankServices(w, c.Scored)
		rank := 0
		for i, s := range order {
			if i >= 5 {
				break
			}
			if s == c.Truth {
				rank = i + 1
				break
			}
		}
		if rank == 1 {
			ac1++
		}
		if rank >= 1 && rank <= 3 {
			ac3++
		}
		if rank >= 1 {
			ac5++
			avg5 += float64(6-rank) / 5
		}
	}
	n := float64(max(1, len(cases)))
	return ac1 / n, ac3 / n, ac5 / n, avg5 / n
}

// heldOutRun ranks one set's cases again with the given weights and none
// score, through the whole method (the order rules after the scores
// included), and returns their results.
type heldOutRun func(set string, weights map[string]float64, none float64) []caseResult

// printFit prints the weights fitted on the training cases and, per set,
// the leave-one-set-out result: weights fitted on the other sets'
// training cases, scored on the set's test cases by the score alone and,
// when rerun is set, as the method ranks with them (the order rules —
// ancestors first, no content that explains nothing first — included,
// which the score alone leaves out). train and test are the same cases
// but with eval --split check, where train is the design half and test
// the check half; then, without --leave-one-out, the check half is scored
// with the weights fitted on the whole design half.
func printFit(w io.Writer, train, test []causal.TrainingCase, separate bool, ablate []string, loo bool, rerun heldOutRun) {
	terms := fitTerms(ablate)
	fixed := map[string]float64{causal.TermReach: causal.DefaultParams().ReachWeight}
	all, none := causal.Fit(train, causal.FitOptions{Terms: terms, Fixed: fixed})
	cal := causal.FitCalibration(outOfFold(train, terms))
	fmt.Fprintf(w, "fit on %d cases (terms %s): %s, none %.2f; score-alone calibration slope %.2f intercept %.2f (the card's confidence, after the order rules, is calibrated on its own)\n", len(train),
		strings.Join(terms, ","), fmtWeights(all), none, cal.Slope, cal.Intercept)
	cover := map[string][3]int{}
	for _, c := range test {
		v := cover[c.Set]
		v[0]++
		best, reach := -1.0, false
		for _, s := range c.Scored {
			if s.Service == c.Truth {
				if sc := causal.Score(all, s.Terms); sc > best {
					best, reach = sc, s.Terms[causal.TermReach] > 0
				}
			}
		}
		if best > -1 {
			v[1]++
			if reach {
				v[2]++
			}
		}
		cover[c.Set] = v
	}
	for _, s := range slices.Sorted(maps.Keys(cover)) {
		v := cover[s]
		fmt.Fprintf(w, "  %s: truth among the candidates in %d of %d cases, its best candidate reaches the target in %d\n", s, v[1], v[0], v[2])
	}
	sets := map[string][]causal.TrainingCase{}
	for _, c := range test {
		sets[c.Set] = append(sets[c.Set], c)
	}
	names := slices.Sorted(maps.Keys(sets))
	if !loo {
		if separate {
			// --split check --fit: the check half under the design half's weights.
			printHeldOut(w, "scored with the weights fitted on the design half", names, sets, rerun,
				func(string) (map[string]float64, float64) { return all, none })
		}
		return
	}
	fold := func(s string) (map[string]float64, float64) {
		var tr []causal.TrainingCase
		for _, c := range train {
			if c.Set != s {
				tr = append(tr, c)
			}
		}
		return causal.Fit(tr, causal.FitOptions{Terms: terms, Fixed: fixed})
	}
	ranked := printHeldOut(w, "weights fitted on the other sets", names, sets, rerun, fold)
	if ranked != nil {
		printCardCalibration(w, names, ranked)
		return
	}
	// Without the reruns: calibration of the held-out probabilities of
	// the top service by the score alone.
	var preds []causal.CalPoint
	for _, s := range names {
		var tr []causal.TrainingCase
		for _, c := range train {
			if c.Set != s {
				tr = append(tr, c)
			}
		}
		wt, nn := causal.Fit(tr, causal.FitOptions{Terms: terms, Fixed: fixed})
		// The calibration is fitted on the training sets too, on margins
		// each set got from weights fitted without it (as held-out sets
		// will see them).
		cal := causal.FitCalibration(outOfFold(tr, terms))
		for _, pt := range topPoints(wt, nn, cal, sets[s]) {
			preds = append(preds, causal.CalPoint{P: pt.P, Right: pt.Right})
		}
	}
	printCalibration(w, "leave-one-set-out", preds)
}

// printHeldOut prints, per set, the test cases scored with the weights
// weights(set) gives: by the score alone, then, when rerun is set, as the
// method ranks with them (the order rules included), and returns those
// results by set (nil without rerun).
func printHeldOut(w io.Writer, how string, names []string, sets map[string][]causal.TrainingCase, rerun heldOutRun,
	weights func(string) (map[string]float64, float64)) map[string][]caseResult {
	fmt.Fprintf(w, "%-16s %4s  %4s %4s %4s %5s  %s\n", "held-out set", "n", "AC@1", "AC@3", "AC@5", "Avg@5", how)
	mean := 0.0
	foldW := map[string]map[string]float64{}
	foldNone := map[string]float64{}
	for _, s := range names {
		wt, nn := weights(s)
		foldW[s], foldNone[s] = wt, nn
		a1, a3, a5, av := rankMetrics(wt, sets[s])
		mean += a1
		fmt.Fprintf(w, "%-16s %4d  %4.2f %4.2f %4.2f %5.2f  %s, none %.2f\n", s, len(sets[s]), a1, a3, a5, av, fmtWeights(wt), nn)
	}
	fmt.Fprintf(w, "mean AC@1 over %d sets, by the score alone: %.3f\n", len(names), mean/float64(max(1, len(names))))
	if rerun == nil {
		return nil
	}
	ranked := map[string][]caseResult{}
	fmt.Fprintf(w, "held out, as the method ranks (the order rules included):\n")
	fmt.Fprintf(w, "%-16s %4s  %4s %4s %4s %5s %5s %5s\n", "held-out set", "n", "AC@1", "AC@3", "AC@5", "Avg@5", "C@1", "C@3")
	mean = 0
	meanC := 0.0
	for _, s := range names {
		ranked[s] = rerun(s, foldW[s], foldNone[s])
		m := heldOutMetrics(ranked[s])
		mean += m.AC1
		meanC += m.Comp1
		fmt.Fprintf(w, "%-16s %4d  %4.2f %4.2f %4.2f %5.2f %5.2f %5.2f\n", s, m.N, m.AC1, m.AC3, m.AC5, m.Avg5, m.Comp1, m.Comp3)
	}
	n := float64(max(1, len(names)))
	fmt.Fprintf(w, "mean over %d sets, as the method ranks: AC@1 %.3f, C@1 %.3f\n", len(names), mean/n, meanC/n)
	return ranked
}

// printCardCalibration prints the calibration of the confidence the card
// shows: the first cause's service probability after the order rules
// (which move a candidate first and score the ones it passed just below
// it, so that a request break or a content rule leaves a near tie the
// scores alone never show), each set's from weights fitted without it
// (ranked). Each held-out set's probabilities are calibrated by a Platt
// scaling fitted on the other sets' — what a system never seen gets —
// and the scaling fitted on every set's is the one to ship
// (causal.DefaultParams' Calibration).
func printCardCalibration(w io.Writer, names []string, ranked map[string][]caseResult) {
	points := map[string][]causal.CalPoint{}
	var all []causal.CalPoint
	for _, s := range names {
		for _, r := range ranked[s] {
			if r.Method != causal.DefaultMethod {
				continue
			}
			pt := causal.CalPoint{P: r.topP, Right: r.Rank == 1}
			points[s] = append(points[s], pt)
			all = append(all, pt)
		}
	}
	var preds []causal.CalPoint
	for _, s := range names {
		var tr []causal.CalPoint
		for _, o := range names {
			if o != s {
				tr = append(tr, points[o]...)
			}
		}
		cal := causal.FitCalibration(tr)
		for _, pt := range points[s] {
			preds = append(preds, causal.CalPoint{P: cal.Apply(pt.P), Right: pt.Right})
		}
	}
	cal := causal.FitCalibration(all)
	fmt.Fprintf(w, "calibration of the card's confidence (fitted on every set's held-out probabilities as the method ranks): slope %.2f intercept %.2f\n",
		cal.Slope, cal.Intercept)
	printCalibration(w, "leave-one-set-out, the confidence the card shows", preds)
	shipped := causal.DefaultParams().Calibration
	var as []causal.CalPoint
	for _, pt := range all {
		as = append(as, causal.CalPoint{P: shipped.Apply(pt.P), Right: pt.Right})
	}
	printCalibration(w, fmt.Sprintf("held out, with the shipped calibration: slope %.2f intercept %.2f", shipped.Slope, shipped.Intercept), as)
}

// topPoints are the cases' top-service probabilities (calibrated by cal)
// and whether the top service is the truth.
func topPoints(w map[string]float64, none float64, cal causal.Calibration, cases []causal.TrainingCase) []causal.CalPoint {
	var out []causal.CalPoint
	for _, c := range cases {
		order := causal.RankServices(w, c.Scored)
		if len(order) == 0 {
			out = append(out, causal.CalPoint{P: 0, Right: false}) // no candidate
			continue
		}
		p, _ := causal.ServiceProbabilities(w, none, c.Scored)
		out = append(out, causal.CalPoint{P: cal.Apply(p[order[0]]), Right: order[0] == c.Truth})
	}
	return out
}

// printCalibration prints a reliability table (probability bins → share
// right), the expected calibration error and the accuracy above 0.8.
func printCalibration(w io.Writer, label string, pts []causal.CalPoint) {
	bins := []float64{0, 0.2, 0.4, 0.6, 0.8, 1.0001}
	fmt.Fprintf(w, "calibration (%s, %d cases): confidence bin → cases, mean confidence, share right\n", label, len(pts))
	ece := 0.0
	for k := 0; k+1 < len(bins); k++ {
		n, right, sum := 0, 0, 0.0
		for _, pt := range pts {
			if pt.P >= bins[k] && pt.P < bins[k+1] {
				n++
				sum += pt.P
				if pt.Right {
					right++
				}
			}
		}
		if n == 0 {
			fmt.Fprintf(w, "  [%.1f, %.1f)  %3d\n", bins[k], math.Min(1, bins[k+1]), n)
			continue
		}
		mc, acc := sum/float64(n), float64(right)/float64(n)
		ece += float64(n) / float64(len(pts)) * math.Abs(mc-acc)
		fmt.Fprintf(w, "  [%.1f, %.1f)  %3d  %.2f  %.2f\n", bins[k], math.Min(1, bins[k+1]), n, mc, acc)
	}
	n8, r8 := 0, 0
	for _, pt := range pts {
		if pt.P >= 0.8 {
			n8++
			if pt.Right {
				r8++
			}
		}
	}
	share := math.NaN()
	if n8 > 0 {
		share = float64(r8) / float64(n8)
	}
	fmt.Fprintf(w, "  expected calibration error %.3f; confidence ≥ 0.8: %d cases, %.2f right\n", ece, n8, share)
}

func fmtWeights(w map[string]float64) string {
	var parts []string
	for _, t := range causal.Terms() {
		if v, ok := w[t]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2f", t, v))
		}
	}
	return strings.Join(parts, ", ")
}

// outOfFold are the cases' top-service probabilities, each set's from
// weights fitted on the other sets: what a set never seen gets. A single
// set gets its own (in-sample) probabilities.
func outOfFold(cases []causal.TrainingCase, terms []string) []causal.CalPoint {
	sets := map[string][]causal.TrainingCase{}
	for _, c := range cases {
		sets[c.Set] = append(sets[c.Set], c)
	}
	fixed := map[string]float64{causal.TermReach: causal.DefaultParams().ReachWeight}
	if len(sets) < 2 {
		w, nn := causal.Fit(cases, causal.FitOptions{Terms: terms, Fixed: fixed})
		return topPoints(w, nn, causal.Calibration{}, cases)
	}
	var out []causal.CalPoint
	for _, s := range slices.Sorted(maps.Keys(sets)) {
		var train []causal.TrainingCase
		for _, c := range cases {
			if c.Set != s {
				train = append(train, c)
			}
		}
		w, nn := causal.Fit(train, causal.FitOptions{Terms: terms, Fixed: fixed})
		out = append(out, topPoints(w, nn, causal.Calibration{}, sets[s])...)
	}
	return out
}

// heldOutMetrics aggregates re-ranked results (the default method's only).
func heldOutMetrics(rs []caseResult) evalSummary {
	var m evalSummary
	for _, r := range rs {
		if r.Method != causal.DefaultMethod {
			continue
		}
		m.N++
		if r.Rank == 1 {
			m.AC1++
		}
		if r.Rank >= 1 && r.Rank <= 3 {
			m.AC3++
		}
		if r.Rank >= 1 {
			m.AC5++
			m.Avg5 += float64(6-r.Rank) / 5
		}
		if r.CompHit {
			m.Comp1++
		}
		if r.CompHit3 {
			m.Comp3++
		}
	}
	n := float64(max(1, m.N))
	m.AC1, m.AC3, m.AC5, m.Avg5, m.Comp1, m.Comp3 = m.AC1/n, m.AC3/n, m.AC5/n, m.Avg5/n, m.Comp1/n, m.Comp3/n
	return m
}
