package profdiff

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// Options are the comparison's parameters (the table in doc.go); a zero
// field takes its default.
type Options struct {
	Alpha       float64 // false-discovery rate (default 0.01, as compare)
	MinRatio    float64 // least material change of a median (default 0.05)
	Level       float64 // interval confidence (default 0.95)
	Bootstrap   int     // replicates per interval (default 2000)
	Seed        uint64  // bootstrap seed (printed in the report)
	MinSamples  int     // fewest instances a side to test (default 2)
	MaxFindings int     // regressions and improvements listed (default 10)
	Limits      ingest.Limits
	TempDir     string   // for a compressed SQLite export's copy ("": the system's)
	Version     string   // the tool's version, for the report
	Args        []string // the command line, for the report
}

// DefaultOptions are doc.go's table.
func DefaultOptions() Options {
	return Options{Alpha: 0.01, MinRatio: 0.05, Level: 0.95, Bootstrap: 2000, Seed: 1, MinSamples: 2, MaxFindings: 10}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = d.Alpha
	}
	if o.MinRatio <= 0 {
		o.MinRatio = d.MinRatio
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = d.Level
	}
	if o.Bootstrap <= 0 {
		o.Bootstrap = d.Bootstrap
	}
	if o.MinSamples < 2 {
		o.MinSamples = d.MinSamples
	}
	if o.MaxFindings <= 0 {
		o.MaxFindings = d.MaxFindings
	}
	o.Limits = o.Limits.WithDefaults()
	return o
}

// rankRows is one side's instances of every row, per rank.
type rankRows struct {
	rank  int
	file  string
	attr  *attributed
	steps int
}

// Compare reads the baseline's and the candidate's captures (each path a
// capture file or a directory of per-rank files) and compares them step,
// layer and kernel. Input errors are *ingest.InputError with the file.
func Compare(base, cand []string, opt Options) (*Report, error) {
	opt = opt.withDefaults()
	var sb, sc *side
	var eb, ec error
	ingest.Both(func() { sb, eb = readSide(base, opt.Limits, opt.TempDir) }, func() { sc, ec = readSide(cand, opt.Limits, opt.TempDir) })
	if eb != nil {
		return nil, fmt.Errorf("BASE: %w", eb)
	}
	if ec != nil {
		return nil, fmt.Errorf("CAND: %w", ec)
	}
	return compareSides(sb, sc, opt), nil
}

// attributeSide attributes every rank's work.
func attributeSide(s *side) []rankRows {
	out := make([]rankRows, len(s.ranks))
	for i, c := range s.ranks {
		a := c.attribute()
		steps := len(a.stepWall)
		out[i] = rankRows{rank: c.rank, file: c.file, attr: a, steps: steps}
	}
	return out
}

// pooled concatenates one row's instances over the ranks (seconds),
// returning also each rank's median.
func pooled(rs []rankRows, get func(a *attributed) []float64) (all []float64, perRank map[int]float64) {
	perRank = map[int]float64{}
	for _, r := range rs {
		xs := get(r.attr)
		if len(xs) == 0 {
			continue
		}
		sec := make([]float64, len(xs))
		for i, x := range xs {
			sec[i] = x / 1e9
		}
		all = append(all, sec...)
		perRank[r.rank] = measure.Quantile(sec, 0.5)
	}
	slices.Sort(all)
	return all, perRank
}

// stats summarises sorted instances; steps is the side's step GPU time
// total (for the share), nsteps its number of steps.
func stats(xs []float64, perRank map[int]float64, stepTotal float64) Stats {
	s := Stats{Count: len(xs), P50: math.NaN(), P95: math.NaN(), P99: math.NaN(), Share: math.NaN(), SlowestRank: -1, Spread: math.NaN()}
	for _, x := range xs {
		s.Total += x
	}
	if len(xs) > 0 {
		s.P50, s.P95, s.P99 = measure.QuantileSorted(xs, 0.5), measure.QuantileSorted(xs, 0.95), measure.QuantileSorted(xs, 0.99)
	}
	if stepTotal > 0 {
		s.Share = s.Total / stepTotal
	}
	var meds []float64
	for r, m := range perRank {
		if s.SlowestRank < 0 || m > perRank[s.SlowestRank] || m == perRank[s.SlowestRank] && r < s.SlowestRank {
			s.SlowestRank = r
		}
		meds = append(meds, m)
	}
	if len(meds) > 1 {
		if mm := measure.Quantile(meds, 0.5); mm > 0 {
			s.Spread = perRank[s.SlowestRank] / mm
		}
	}
	return s
}

// rowRand is the bootstrap source of one row: the seed and the row's name.
func rowRand(seed uint64, id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// compareRow fills a row's statistics, interval and p-value (verdicts come
// after the correction).
func compareRow(name, kind, source string, b, c []float64, bRank, cRank map[int]float64, bStep, cStep float64, nb, nc int, opt Options) Row {
	r := Row{Name: name, Kind: kind, Source: source, Base: stats(b, bRank, bStep), Cand: stats(c, cRank, cStep),
		Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN(), DeltaLo: math.NaN(), DeltaHi: math.NaN(),
		P95Ratio: math.NaN(), TotalRatio: math.NaN(), P: math.NaN(), Q: math.NaN()}
	switch {
	case len(b) == 0:
		r.Verdict = New
		return r
	case len(c) == 0:
		r.Verdict = Gone
		return r
	}
	if r.Base.P50 > 0 {
		r.Ratio = r.Cand.P50 / r.Base.P50
	}
	r.Delta = r.Cand.P50 - r.Base.P50
	if r.Base.P95 > 0 {
		r.P95Ratio = r.Cand.P95 / r.Base.P95
	}
	if nb > 0 && nc > 0 && r.Base.Total > 0 {
		r.TotalRatio = (r.Cand.Total / float64(nc)) / (r.Base.Total / float64(nb))
	}
	if len(b) < opt.MinSamples || len(c) < opt.MinSamples {
		r.Verdict = Insufficient
		return r
	}
	rg := rowRand(opt.Seed, kind+"/"+name)
	ratios, deltas := make([]float64, opt.Bootstrap), make([]float64, opt.Bootstrap)
	for i := range ratios {
		x, y := measure.BootQuantile(b, 0.5, rg), measure.BootQuantile(c, 0.5, rg)
		ratios[i], deltas[i] = math.NaN(), y-x
		if x > 0 {
			ratios[i] = y / x
		}
	}
	r.Lo, r.Hi = measure.PercentileInterval(ratios, opt.Level)
	r.DeltaLo, r.DeltaHi = measure.PercentileInterval(deltas, opt.Level)
	r.P = welchLog(b, c)
	return r
}

// decide gives a tested row its verdict.
func decide(r *Row, opt Options) {
	if r.Verdict != "" || math.IsNaN(r.Q) {
		if r.Verdict == "" {
			r.Verdict = Insufficient
		}
		return
	}
	switch {
	case r.Q < opt.Alpha && r.Ratio >= 1+opt.MinRatio && r.Lo > 1:
		r.Verdict = Slower
	case r.Q < opt.Alpha && r.Ratio <= 1/(1+opt.MinRatio) && r.Hi < 1:
		r.Verdict = Faster
	default:
		r.Verdict = Unchanged
	}
}

// compareSides is the comparison of two read sides.
func compareSides(sb, sc *side, opt Options) *Report {
	rb, rc := attributeSide(sb), attributeSide(sc)
	rep := &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: "pipeline-analyze", Version: opt.Version},
		Base: sideInfo("base", sb, rb), Cand: sideInfo("cand", sc, rc), Args: opt.Args,
		Settings: Settings{Alpha: opt.Alpha, MinRatio: opt.MinRatio, Level: opt.Level, Bootstrap: opt.Bootstrap, Seed: opt.Seed,
			MinSamples: opt.MinSamples, MaxFindings: opt.MaxFindings}}
	for _, s := range []*side{sb, sc} {
		for _, c := range s.ranks {
			rep.Warnings = append(rep.Warnings, c.warnings...)
		}
	}
	stepsOf := func(a *attributed) []float64 { return a.steps }
	bSteps, bStepRank := pooled(rb, stepsOf)
	cSteps, cStepRank := pooled(rc, stepsOf)
	bStepTotal, cStepTotal := sum(bSteps), sum(cSteps)
	nb, nc := len(bSteps), len(cSteps)
	annotated := rep.Base.Steps > 0 && rep.Cand.Steps > 0
	// The step: its GPU time per step instance, or — a capture without
	// step annotations, one sample a rank — the totals over the
	// activities.
	if annotated || nb >= opt.MinSamples && nc >= opt.MinSamples {
		rep.Step = compareRow("step", KindStep, "ProfilerStep", bSteps, cSteps, bStepRank, cStepRank, bStepTotal, cStepTotal, nb, nc, opt)
	} else {
		rep.Step = captureRow(rb, rc, bStepTotal, cStepTotal, nb, nc, opt)
	}
	rep.StepWall = emptyRow()
	if annotated {
		wall := func(a *attributed) []float64 { return a.stepWall }
		bw, bwr := pooled(rb, wall)
		cw, cwr := pooled(rc, wall)
		rep.StepWall = compareRow("step (wall)", KindStep, "ProfilerStep", bw, cw, bwr, cwr, 0, 0, nb, nc, opt)
	}
	keys := func(get func(a *attributed) map[string][]float64) []string {
		set := map[string]bool{}
		for _, rs := range [][]rankRows{rb, rc} {
			for _, r := range rs {
				for k := range get(r.attr) {
					set[k] = true
				}
			}
		}
		out := make([]string, 0, len(set))
		for k := range set {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	source := func(k string) string {
		for _, rs := range [][]rankRows{rb, rc} {
			for _, r := range rs {
				if s, ok := r.attr.layerSource[k]; ok {
					return s
				}
			}
		}
		return ""
	}
	for _, k := range keys(func(a *attributed) map[string][]float64 { return a.layers }) {
		get := func(a *attributed) []float64 { return a.layers[k] }
		b, br := pooled(rb, get)
		c, cr := pooled(rc, get)
		rep.Layers = append(rep.Layers, compareRow(k, KindLayer, source(k), b, c, br, cr, bStepTotal, cStepTotal, nb, nc, opt))
	}
	for _, k := range keys(func(a *attributed) map[string][]float64 { return a.kernels }) {
		get := func(a *attributed) []float64 { return a.kernels[k] }
		b, br := pooled(rb, get)
		c, cr := pooled(rc, get)
		rep.Kernels = append(rep.Kernels, compareRow(k, KindKernel, "", b, c, br, cr, bStepTotal, cStepTotal, nb, nc, opt))
	}
	// One Benjamini–Hochberg family: every tested row.
	rows := []*Row{&rep.Step}
	if rep.StepWall.Name != "" {
		rows = append(rows, &rep.StepWall)
	}
	for i := range rep.Layers {
		rows = append(rows, &rep.Layers[i])
	}
	for i := range rep.Kernels {
		rows = append(rows, &rep.Kernels[i])
	}
	ps := make([]float64, len(rows))
	for i, r := range rows {
		ps[i] = r.P
		if !math.IsNaN(r.P) {
			rep.Settings.Tests++
		}
	}
	for i, q := range benjaminiHochberg(ps) {
		rows[i].Q = q
		decide(rows[i], opt)
	}
	byTime := func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.Base.Total, a.Base.Total), cmp.Compare(b.Cand.Total, a.Cand.Total), strings.Compare(a.Name, b.Name))
	}
	slices.SortStableFunc(rep.Layers, byTime)
	slices.SortStableFunc(rep.Kernels, byTime)
	rep.findings(nb, nc)
	rep.ranks(rb, rc, opt)
	rep.summary()
	return rep
}

// emptyRow is the row of what is not there (StepWall without step
// annotations): no name, unknown numbers.
func emptyRow() Row {
	n := math.NaN()
	st := Stats{P50: n, P95: n, P99: n, Share: n, SlowestRank: -1, Spread: n}
	return Row{Base: st, Cand: st, Ratio: n, Lo: n, Hi: n, Delta: n, DeltaLo: n, DeltaHi: n, P95Ratio: n, TotalRatio: n, P: n, Q: n}
}

// captureRow compares the GPU time of captures without step annotations:
// one sample a rank, so the totals over their activities.
func captureRow(rb, rc []rankRows, bTotal, cTotal float64, nb, nc int, opt Options) Row {
	all := func(rs []rankRows) []float64 {
		var out []float64
		for _, r := range rs {
			for _, xs := range r.attr.kernels {
				for _, x := range xs {
					out = append(out, x/1e9)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	b, c := all(rb), all(rc)
	r := Row{Name: "step", Kind: KindStep, Source: "capture", Base: stats(nil, nil, 0), Cand: stats(nil, nil, 0),
		Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN(), DeltaLo: math.NaN(), DeltaHi: math.NaN(), P95Ratio: math.NaN(), TotalRatio: math.NaN(), P: math.NaN(), Q: math.NaN()}
	r.Base.Count, r.Cand.Count = nb, nc
	r.Base.Total, r.Cand.Total = bTotal, cTotal
	r.Base.P50, r.Cand.P50 = bTotal/float64(max(nb, 1)), cTotal/float64(max(nc, 1))
	r.Base.Share, r.Cand.Share = 1, 1
	if len(b) == 0 || len(c) == 0 {
		r.Verdict = Insufficient
		return r
	}
	// Totals per rank: scale the activity totals to one rank each.
	r.Ratio, r.Lo, r.Hi, r.P = totalsTest(b, c, opt.Level)
	r.Ratio *= float64(nb) / float64(max(nc, 1))
	r.Lo *= float64(nb) / float64(max(nc, 1))
	r.Hi *= float64(nb) / float64(max(nc, 1))
	r.TotalRatio = r.Ratio
	r.Delta = r.Cand.P50 - r.Base.P50
	return r
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// sideInfo describes a side.
func sideInfo(name string, s *side, rs []rankRows) SideInfo {
	info := SideInfo{Name: name, Paths: s.paths, Ranks: len(s.ranks)}
	formats := map[string]bool{}
	for i, c := range s.ranks {
		formats[c.format] = true
		info.Kernels += len(c.kernels)
		info.Steps += rs[i].steps
		info.GPUSeconds += float64(rs[i].attr.gpuTotal) / 1e9
	}
	var fs []string
	for f := range formats {
		fs = append(fs, f)
	}
	slices.Sort(fs)
	info.Format = strings.Join(fs, "+")
	return info
}

// findings lists the rows that slowed and sped, the most GPU time per step
// added or saved first.
func (rep *Report) findings(nb, nc int) {
	perStep := func(r *Row) float64 {
		return r.Cand.Total/float64(max(nc, 1)) - r.Base.Total/float64(max(nb, 1))
	}
	var regs, imps []Ref
	for _, rows := range [][]Row{rep.Layers, rep.Kernels} {
		for i := range rows {
			r := &rows[i]
			ref := Ref{Kind: r.Kind, Name: r.Name, Ratio: r.Ratio, PerStep: perStep(r)}
			switch r.Verdict {
			case Slower:
				regs = append(regs, ref)
			case Faster:
				imps = append(imps, ref)
			}
		}
	}
	order := func(sign float64) func(a, b Ref) int {
		return func(a, b Ref) int {
			return cmp.Or(cmp.Compare(sign*b.PerStep, sign*a.PerStep), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
		}
	}
	slices.SortStableFunc(regs, order(1))
	slices.SortStableFunc(imps, order(-1))
	rep.Regressions = append([]Ref{}, regs[:min(len(regs), rep.Settings.MaxFindings)]...)
	rep.Improvements = append([]Ref{}, imps[:min(len(imps), rep.Settings.MaxFindings)]...)
}

// ranks fills each rank's step time and the stragglers: ranks whose median
// step takes at least 1+MinRatio times the median rank's, with the layers
// they are the slowest rank of.
func (rep *Report) ranks(rb, rc []rankRows, opt Options) {
	one := func(name string, rs []rankRows, layers []Row, cand bool) []RankStat {
		var out []RankStat
		var meds []float64
		for _, r := range rs {
			st := RankStat{Rank: r.rank, File: r.file, Steps: r.steps, StepP50: math.NaN(), VsMedian: math.NaN()}
			if len(r.attr.steps) > 0 {
				st.StepP50 = measure.Quantile(r.attr.steps, 0.5) / 1e9
				meds = append(meds, st.StepP50)
			}
			out = append(out, st)
		}
		if len(meds) < 2 {
			return out
		}
		mm := measure.Quantile(meds, 0.5)
		for i := range out {
			if mm > 0 {
				out[i].VsMedian = out[i].StepP50 / mm
			}
			if out[i].VsMedian >= 1+opt.MinRatio {
				s := Straggler{Side: name, Rank: out[i].Rank, VsMedian: out[i].VsMedian, Layers: []string{}}
				type lr struct {
					name   string
					spread float64
				}
				var ls []lr
				for _, l := range layers {
					st := l.Base
					if cand {
						st = l.Cand
					}
					if st.SlowestRank == out[i].Rank && st.Spread >= 1+opt.MinRatio {
						ls = append(ls, lr{l.Name, st.Spread})
					}
				}
				slices.SortStableFunc(ls, func(a, b lr) int { return cmp.Or(cmp.Compare(b.spread, a.spread), strings.Compare(a.name, b.name)) })
				for _, l := range ls[:min(len(ls), 5)] {
					s.Layers = append(s.Layers, l.name)
				}
				rep.Stragglers = append(rep.Stragglers, s)
			}
		}
		return out
	}
	rep.BaseRanks = one("base", rb, rep.Layers, false)
	rep.CandRanks = one("cand", rc, rep.Layers, true)
}

// summary is the one-line answer.
func (rep *Report) summary() {
	v := &rep.Verdict
	v.Step = rep.Step.Verdict
	for _, rows := range [][]Row{rep.Layers, rep.Kernels} {
		for _, r := range rows {
			switch r.Verdict {
			case Slower:
				v.Slower++
			case Faster:
				v.Faster++
			case Unchanged:
				v.Unchanged++
			case Insufficient:
				v.Insufficient++
			}
		}
	}
	s := rep.Step
	v.Text = fmt.Sprintf("step %s: %s → %s (%s %s); %d layers and kernels slower, %d faster, %d unchanged",
		s.Verdict, fmtSec(s.Base.P50), fmtSec(s.Cand.P50), fmtRatio(s.Ratio), fmtInterval(s.Lo, s.Hi), v.Slower, v.Faster, v.Unchanged)
	if v.Insufficient > 0 {
		v.Text += fmt.Sprintf(", %d with too few instances", v.Insufficient)
	}
	for _, st := range rep.Stragglers {
		if st.Side == "cand" {
			v.Text += fmt.Sprintf("; straggler: rank %d at %s the median rank", st.Rank, fmtRatio(st.VsMedian))
			break
		}
	}
}
