package canary

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/cstats"
	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// criticalSignals fail a workload by themselves: what users see (errors,
// latency), pods that crash, pods that never become ready.
var criticalSignals = []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency, ingest.SignalRestarts}

// availabilityName is the availability metric's name.
const availabilityName = "availability (canary pods reporting / pods asked for)"

// judgeCanary compares one canary group with its baseline groups.
func judgeCanary(b *ingest.Bundle, m *peers.Model, j canaryJob, opt Options) model.CanaryWorkload {
	c := j.canary
	w := model.CanaryWorkload{Workload: c.Name, Service: j.service, Version: c.Version, By: c.By, CanaryPods: slices.Clone(c.Pods),
		Baseline: []string{}, BaselinePods: []string{}, Metrics: []model.Metric{}, Score: math.NaN()}
	if w.CanaryPods == nil {
		w.CanaryPods = []string{}
	}
	for _, g := range j.baseline {
		w.Baseline = append(w.Baseline, g.Label())
		w.BaselinePods = append(w.BaselinePods, g.Pods...)
	}
	slices.Sort(w.BaselinePods)
	cells := canaryCells(b, c, opt, &w)
	if len(w.BaselinePods) == 0 {
		w.Verdict, w.Reason = model.CanaryInsufficient, "no baseline pods: the service has no other group reporting"
		return w
	}
	pods := map[string]bool{}
	for _, p := range append(slices.Clone(c.Pods), w.BaselinePods...) {
		pods[p] = true
	}
	for _, f := range m.Families(b, pods) {
		mem, base := f.Series(c.Pods), f.Series(w.BaselinePods)
		if len(mem) == 0 || len(base) == 0 || ingest.MeasuresNode(mem[0].Name) {
			continue // a node's series copied per pod measures where the pod runs, not what it is
		}
		if mt, ok := judgeMetric(f, mem, base, cells, opt); ok {
			w.Metrics = append(w.Metrics, mt)
		}
	}
	// What the canary does to others: the calls its pods stopped making
	// (the same contrast the ranking's rollout nodes use).
	cr := peers.Rollout{Service: j.service, New: c, Old: j.baseline}
	if ct, stopped := m.CallsContrast(b, cr, cells, opt.Peers.WithDefaults().MinCells); ct.Cells > 0 {
		w.Metrics = append(w.Metrics, judgeCalls(ct, stopped, cells, opt))
	}
	if j.rollout != nil {
		r := *j.rollout
		r.Old = j.baseline
		if av := m.Availability(r); av != nil {
			w.Metrics = append(w.Metrics, judgeAvailability(av, cells, opt))
		}
	}
	for _, mt := range w.Metrics {
		if mt.Result != model.MetricInsufficient {
			w.Cells = max(w.Cells, mt.Cells)
		}
	}
	slices.SortStableFunc(w.Metrics, func(a, b model.Metric) int {
		return cmp.Or(-cmp.Compare(b2i(a.Bad), b2i(b.Bad)), -cmp.Compare(b2i(a.Critical), b2i(b.Critical)),
			-cmp.Compare(math.Abs(nan0(a.Effect)), math.Abs(nan0(b.Effect))), cmp.Compare(a.Name, b.Name))
	})
	w.Verdict, w.Score, w.Reason = scoreCanary(w.Metrics, opt)
	if w.Verdict == model.CanaryInsufficient && c.First >= 0 {
		last := -1
		for _, g := range j.baseline {
			last = max(last, g.Last)
		}
		if last >= 0 && last < cells.W0+opt.MinCells {
			// The old pods went as the new ones came: a rollout, not a
			// canary. Before against after is the question to ask.
			w.Reason = fmt.Sprintf("the baseline's pods stopped reporting at %s, the canary's started at %s: a full rollout, not a canary; "+
				"compare before with after: pipeline-analyze compare --before-at %s --after-at %s DATA",
				b.Grid[last], b.Grid[c.First], b.Grid[c.First].Add(-tcg.DefaultWindow/2-b.Step).Std().Format(time.RFC3339),
				b.End.Add(-tcg.DefaultWindow/2).Std().Format(time.RFC3339))
		}
	}
	return w
}

// canaryCells places the window on the grid: [B0, B1) is the reference
// before it (for the baseline pods' spread), [W0, W1) the window.
func canaryCells(b *ingest.Bundle, c *peers.Group, opt Options, w *model.CanaryWorkload) peers.Cells {
	start, end := opt.Start, opt.End
	w.ChosenBy = "--start/--end"
	if end == 0 {
		end = b.End.Add(time.Nanosecond)
	}
	if start == 0 {
		w.ChosenBy = "from the canary's first sample"
		if c.First >= 0 {
			start = b.Grid[c.First]
			if opt.Warmup > 0 {
				start = start.Add(opt.Warmup)
				w.ChosenBy = "from " + render.Duration(opt.Warmup) + " after the canary's first sample"
			}
		} else {
			start = b.Start
			w.ChosenBy = "the whole data (the canary never reported)"
		}
		if opt.End != 0 {
			w.ChosenBy += " to --end"
		} else {
			w.ChosenBy += " to the end of the data"
		}
	}
	w.Start, w.End = start, end
	w0, _ := slices.BinarySearch(b.Grid, start)
	w1, _ := slices.BinarySearch(b.Grid, end)
	return peers.Cells{B0: 0, B1: w0, W0: w0, W1: w1}
}

// judgeMetric compares one family's canary series with its baseline
// series; false for a family with no bad direction (traffic: a share
// moving between versions is not a fault).
func judgeMetric(f peers.Family, mem, base []*ingest.Series, c peers.Cells, opt Options) (model.Metric, bool) {
	dir := ingest.BadDirection(mem[0])
	if dir == 0 {
		return model.Metric{}, false
	}
	mt := model.Metric{Name: familyName(f.Key), Signal: f.Signal.String(), Direction: dir, Unit: mem[0].Unit,
		Critical: slices.Contains(criticalSignals, f.Signal)}
	shortfall := dir < 0 && bounded01(mem, base)
	if shortfall {
		// A ratio that should stay near 1 (success, availability): its
		// shortfall from 1 is what grows, and what a relative change is
		// measured on (0.99 → 0.90 is ten times the failures).
		mem, base, dir = complement(mem), complement(base), 1
	}
	ct := peers.Between(mem, base, c)
	decideMetric(&mt, ct, dir, c, opt)
	if shortfall {
		mt.Canary, mt.Baseline = 1-mt.Canary, 1-mt.Baseline
		switch mt.Result {
		case model.MetricHigh:
			mt.Result = model.MetricLow
		case model.MetricLow:
			mt.Result = model.MetricHigh
		}
		mt.Effect = -mt.Effect
	}
	return mt, true
}

// judgeAvailability compares the share of the canary's asked-for pods that
// report with the baseline's (1 by construction), on the scale of a ratio
// that normally stays at 1. Like every metric it needs MinCells cells, with
// one exception: a release none of whose asked-for pods reports in any
// cell past ReadyGrace is judged from the version model's cells
// (peers.Params.MinCells). That is no noisy measurement but a release that
// never came up, and one asked for at the start of a 5-minute window (a
// rollout item of before/after mode) leaves only two cells past the grace
// in it: with three needed it could never be judged there. A release
// whose pods report in some of few cells stays undecided (a scrape gap at
// the edge of the data is no outage).
func judgeAvailability(av []float64, c peers.Cells, opt Options) model.Metric {
	mt := model.Metric{Name: availabilityName, Signal: "availability", Critical: true, Direction: -1, Unit: "ratio"}
	ct := peers.AvailabilityContrast(av, c)
	ao := opt
	if n := opt.Peers.WithDefaults().MinCells; ct.Cells < opt.MinCells && ct.Cells >= n && neverUp(av, c) {
		ao.MinCells = n
	}
	decideMetric(&mt, ct, -1, c, ao)
	return mt
}

// callsName is the calls metric's name.
const callsName = "calls (share of the baseline's callees the canary's pods call)"

// judgeCalls judges the calls a canary's pods make against its baseline's
// (peers.Model.CallsContrast): critical — a release that stopped calling
// a dependency fails its callers however healthy its own metrics look.
func judgeCalls(ct peers.Contrast, stopped []string, c peers.Cells, opt Options) model.Metric {
	mt := model.Metric{Name: callsName, Signal: "calls", Critical: true, Direction: -1, Unit: "ratio"}
	decideMetric(&mt, ct, -1, c, opt)
	if len(stopped) > 0 && mt.Bad {
		mt.Reason = "stopped calling " + strings.Join(stopped, ", ") + "; " + mt.Reason
	}
	return mt
}

// neverUp reports whether no asked-for pod reports in any judged cell of
// the window (availability 0 wherever it is known).
func neverUp(av []float64, c peers.Cells) bool {
	for t := c.W0; t < c.W1 && t < len(av); t++ {
		if !math.IsNaN(av[t]) && av[t] > 0 {
			return false
		}
	}
	return true
}

// decideMetric sets a metric's numbers and result from its contrast.
func decideMetric(mt *model.Metric, ct peers.Contrast, dir int, c peers.Cells, opt Options) {
	mt.Scale, mt.ScaleFrom, mt.Cells = ct.Scale, ct.ScaleFrom, ct.Cells
	var d, cv, bv []float64
	for t := c.W0; t < c.W1 && t < len(ct.Diff); t++ {
		if x := ct.Diff[t]; !math.IsNaN(x) {
			d, cv, bv = append(d, x), append(cv, ct.Member[t]), append(bv, ct.Peers[t])
		}
	}
	mt.Canary, mt.Baseline, mt.Effect, mt.Ratio, mt.Held = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if len(d) < opt.MinCells {
		mt.Result = model.MetricInsufficient
		mt.Reason = fmt.Sprintf("both groups report in %d cells, %d needed", len(d), opt.MinCells)
		return
	}
	med := measure.Quantile(d, 0.5)
	mt.Canary, mt.Baseline = measure.Quantile(cv, 0.5), measure.Quantile(bv, 0.5)
	mt.Effect = med / ct.Scale
	if mt.Baseline != 0 {
		mt.Ratio = mt.Canary / mt.Baseline
	}
	side := 1.0
	if med < 0 {
		side = -1
	}
	held := 0
	for _, x := range d {
		if side*x >= 0.5*opt.Threshold*ct.Scale {
			held++
		}
	}
	mt.Held = float64(held) / float64(len(d))
	material := math.Abs(mt.Canary-mt.Baseline) >= opt.MinRatio/(1+opt.MinRatio)*math.Max(math.Abs(mt.Canary), math.Abs(mt.Baseline))
	switch {
	case math.Abs(mt.Effect) < opt.Threshold:
		mt.Result = model.MetricPass
		mt.Reason = fmt.Sprintf("%.1f scales from the baseline (%.0f needed)", math.Abs(mt.Effect), opt.Threshold)
	case mt.Held < opt.Hold:
		mt.Result = model.MetricPass
		mt.Reason = fmt.Sprintf("apart in %.0f%% of the cells only (%.0f%% needed)", 100*mt.Held, 100*opt.Hold)
	case !material:
		mt.Result = model.MetricPass
		mt.Reason = fmt.Sprintf("less than a %.0f%% change", 100*opt.MinRatio/(1+opt.MinRatio))
	default:
		mt.Result = model.MetricHigh
		if side < 0 {
			mt.Result = model.MetricLow
		}
		mt.Bad = int(side) == dir
		mt.Reason = fmt.Sprintf("held in %.0f%% of %d cells", 100*mt.Held, len(d))
	}
}

// scoreCanary turns a workload's metric results into its score and
// verdict: the score is 100 × the mean, over the signals, of the share of
// a signal's decided metrics that are not bad (each signal weighs the
// same however many series it has); a bad critical metric fails the
// workload whatever the score.
func scoreCanary(ms []model.Metric, opt Options) (string, float64, string) {
	type tally struct{ n, ok int }
	by := map[string]*tally{}
	var critical []string
	for _, mt := range ms {
		if mt.Result == model.MetricInsufficient {
			continue
		}
		t := by[mt.Signal]
		if t == nil {
			t = &tally{}
			by[mt.Signal] = t
		}
		t.n++
		if !mt.Bad {
			t.ok++
		}
		if mt.Bad && mt.Critical {
			critical = append(critical, metricBrief(mt))
		}
	}
	if len(by) == 0 {
		return model.CanaryInsufficient, math.NaN(), "no metric of both groups in enough cells"
	}
	// Summed in signal order: a map's order would change the score's
	// last digits from run to run.
	sum := 0.0
	for _, sig := range slices.Sorted(maps.Keys(by)) {
		sum += float64(by[sig].ok) / float64(by[sig].n)
	}
	score := 100 * sum / float64(len(by))
	switch {
	case len(critical) > 0:
		more := ""
		if len(critical) > 2 {
			more = fmt.Sprintf(" and %d more", len(critical)-2)
			critical = critical[:2]
		}
		return model.CanaryFail, score, "critical: " + strings.Join(critical, "; ") + more
	case score < opt.Marginal:
		return model.CanaryFail, score, fmt.Sprintf("score %.0f below %.0f: %s", score, opt.Marginal, badList(ms))
	case score < opt.Pass:
		return model.CanaryMarginal, score, fmt.Sprintf("score %.0f below %.0f: %s", score, opt.Pass, badList(ms))
	}
	if b := badList(ms); b != "" {
		return model.CanaryPass, score, fmt.Sprintf("score %.0f; not critical: %s", score, b)
	}
	return model.CanaryPass, score, fmt.Sprintf("score %.0f: no metric worse than the baseline's", score)
}

// metricBrief is a metric in a few words: "errors low
// (istio_requests_total, canary 0.28 vs 0.99)".
func metricBrief(mt model.Metric) string {
	name, _, _ := strings.Cut(mt.Name, "{")
	if strings.HasPrefix(name, mt.Signal) {
		return fmt.Sprintf("%s %s (canary %s vs %s)", mt.Signal, mt.Result, render.Value(mt.Canary, mt.Unit), render.Value(mt.Baseline, mt.Unit))
	}
	return fmt.Sprintf("%s %s (%s, canary %s vs %s)", mt.Signal, mt.Result, name, render.Value(mt.Canary, mt.Unit), render.Value(mt.Baseline, mt.Unit))
}

// badList names the bad metrics briefly ("" when none), at most three.
func badList(ms []model.Metric) string {
	var out []string
	n := 0
	for _, mt := range ms {
		if !mt.Bad {
			continue
		}
		if n++; n <= 3 {
			out = append(out, metricBrief(mt))
		}
	}
	if n > 3 {
		out = append(out, fmt.Sprintf("and %d more", n-3))
	}
	return strings.Join(out, "; ")
}

// canarySummary is the overall verdict (the worst workload's) and its line.
func canarySummary(ws []model.CanaryWorkload) (string, string) {
	rank := map[string]int{model.CanaryPass: 0, model.CanaryInsufficient: 1, model.CanaryMarginal: 2, model.CanaryFail: 3}
	worst := model.CanaryPass
	n := map[string]int{}
	for _, w := range ws {
		n[w.Verdict]++
		if rank[w.Verdict] > rank[worst] {
			worst = w.Verdict
		}
	}
	// The headline names the workloads that failed or are marginal (at
	// most three each): "6 canaries: FAIL (1 fail: adservice-v2; 5 pass)".
	var parts []string
	for _, v := range []string{model.CanaryFail, model.CanaryMarginal, model.CanaryInsufficient, model.CanaryPass} {
		if n[v] == 0 {
			continue
		}
		part := fmt.Sprintf("%d %s", n[v], v)
		if v == model.CanaryFail || v == model.CanaryMarginal {
			var names []string
			for _, w := range ws {
				if w.Verdict == v {
					names = append(names, w.Workload)
				}
			}
			if len(names) > 3 {
				names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
			}
			part += ": " + strings.Join(names, ", ")
		}
		parts = append(parts, part)
	}
	what := "canary"
	if len(ws) != 1 {
		what = fmt.Sprintf("%d canaries", len(ws))
	}
	if len(ws) == 1 {
		return worst, fmt.Sprintf("canary %s: %s (%s)", ws[0].Workload, strings.ToUpper(worst), ws[0].Reason)
	}
	return worst, fmt.Sprintf("%s: %s (%s)", what, strings.ToUpper(worst), strings.Join(parts, "; "))
}

// familyName renders a family key ("name|signal|k=v|...") as name{k="v",...}.
func familyName(key string) string {
	parts := strings.Split(key, "|")
	if len(parts) <= 2 {
		return parts[0]
	}
	var ls []string
	for _, p := range parts[2:] {
		k, v, _ := strings.Cut(p, "=")
		ls = append(ls, fmt.Sprintf("%s=%q", k, v))
	}
	return parts[0] + "{" + strings.Join(ls, ",") + "}"
}

// bounded01 reports whether every value of the series lies in [0, 1] and
// some value is above 0.5: a ratio that should stay near 1.
func bounded01(sets ...[]*ingest.Series) bool {
	return cstats.NearOneValues(func(yield func(float64) bool) {
		for _, ss := range sets {
			for _, s := range ss {
				for _, v := range s.V {
					if !yield(v) {
						return
					}
				}
			}
		}
	})
}

// complement returns copies of the series with 1 − v.
func complement(ss []*ingest.Series) []*ingest.Series {
	out := make([]*ingest.Series, len(ss))
	for i, s := range ss {
		c := *s
		c.V = make([]float64, len(s.V))
		for t, v := range s.V {
			c.V[t] = 1 - v
		}
		out[i] = &c
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nan0(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
