package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// nullSeriesBundle is a quiet system at a 60 s step: per pod a CPU,
// memory and latency series (AR(1), ρ 0.5, as scraped metrics are) and a
// success ratio that stays near 1 with rare small failures (and, with
// burst > 0, occasional bursts), over baseline+10 minutes; nothing changes
// anywhere.
func nullSeriesBundle(tb testing.TB, seed uint64, pods int, minutes int, burst float64) *ingest.Bundle {
	return seriesBundle(tb, seed, pods, minutes, -1, burst)
}

// seriesBundle is nullSeriesBundle with, from minute faultAt (≥ 0), the
// first pod's CPU doubled and its success ratio at 0.9; burst is the
// chance per minute of a burst of failures (up to 20% of a pod's
// requests), as a healthy service has now and then.
func seriesBundle(tb testing.TB, seed uint64, pods int, minutes, faultAt int, burst float64) *ingest.Bundle {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	b := &ingest.Bundle{}
	end := t0.Add(time.Duration(minutes) * time.Minute)
	ar := func(level, sd float64) func() float64 {
		x := r.NormFloat64()
		return func() float64 {
			x = 0.5*x + math.Sqrt(0.75)*r.NormFloat64()
			return level + sd*x
		}
	}
	for p := range pods {
		pod := fmt.Sprintf("svc%02d-5d8f7c9b4-x%03d", p%10, p)
		ls := ingest.Labels{{Name: "container", Value: fmt.Sprintf("svc%02d", p%10)}, {Name: "pod", Value: pod}}
		mk := func(name, unit string) *ingest.Series {
			return &ingest.Series{Name: name, Labels: ls, Unit: unit, Source: "metrics.json"}
		}
		cpu, mem, lat, ok := mk("container_cpu_usage_seconds_rate", "cores"), mk("container_memory_working_set_bytes", "bytes"),
			mk("request_duration_seconds_p99", "s"), mk("request_success_ratio", "ratio")
		fc, fm, fl := ar(0.3+0.1*r.Float64(), 0.02), ar(2e9, 1e7), ar(0.2, 0.02)
		for ts := t0; ts < end; ts = ts.Add(time.Minute) {
			s := 1.0
			if r.Float64() < 0.1 {
				s = 1 - 0.01*r.ExpFloat64()
			}
			if r.Float64() < burst {
				s = 1 - 0.2*r.Float64()
			}
			c := fc()
			if p == 0 && faultAt >= 0 && ts >= t0.Add(time.Duration(faultAt)*time.Minute) {
				c, s = 2*c, 0.9
			}
			cpu.T, cpu.V = append(cpu.T, ts), append(cpu.V, c)
			mem.T, mem.V = append(mem.T, ts), append(mem.V, fm())
			lat.T, lat.V = append(lat.T, ts), append(lat.V, math.Exp(fl()))
			ok.T, ok.V = append(ok.T, ts), append(ok.V, s)
		}
		for _, se := range []*ingest.Series{cpu, mem, lat, ok} {
			ingest.ClassifySeries(se)
			b.Series = append(b.Series, se)
		}
	}
	b.Inputs = []ingest.Input{{Path: "null/metrics.json", Format: ingest.FormatPromQueryRange}}
	ingest.Finalize(b, ingest.Options{Step: time.Minute})
	return b
}

// TestShortBaselineNull compares two quiet 5-minute windows of quiet data
// whose baseline is short (6–11 points at a 60 s step) or long, with and
// without occasional failure bursts, over many seeds: a report that says
// anything regressed, improved, fixed or changed is a false alarm, and the
// issue allows at most 1 in 20.
func TestShortBaselineNull(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs in the full test")
	}
	for _, tc := range []struct {
		base  int
		burst float64
	}{{6, 0}, {8, 0}, {11, 0}, {20, 0}, {6, 0.02}, {11, 0.02}, {20, 0.02}} {
		base := tc.base
		t.Run(fmt.Sprintf("baseline %dm, bursts %.0f%%", base, 100*tc.burst), func(t *testing.T) {
			const runs = 60
			alarms, decided, items := 0, 0, 0
			for seed := range uint64(runs) {
				b := nullSeriesBundle(t, seed+1, 40, base+10, tc.burst)
				mid := t0.Add(time.Duration(base+5) * time.Minute)
				rep, err := Run(Side{Bundle: b, Start: mid.Add(-5 * time.Minute), End: mid}, Side{Bundle: b, Start: mid, End: mid.Add(5 * time.Minute)}, DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				alarm := false
				for _, it := range rep.Items {
					items++
					if it.Verdict != model.Insufficient {
						decided++
					}
					if it.Verdict != model.Unchanged && it.Verdict != model.Insufficient {
						alarm = true
						t.Logf("seed %d: %s %s: %s (%s)", seed+1, it.Verdict, it.ID, changeText(&it), it.Reason)
					}
				}
				if alarm {
					alarms++
				}
			}
			t.Logf("baseline %d min: %d of %d quiet pairs with a false change; %d of %d items decided", base, alarms, runs, decided, items)
			if alarms*20 > runs {
				t.Errorf("%d of %d quiet pairs reported a change; at most 1 in 20 allowed", alarms, runs)
			}
		})
	}
}

// TestShortBaselineDetects is the other side of TestShortBaselineNull: with
// an 11-minute baseline (three windows as long as the compared ones, the
// fewest that tell the drift between windows from a change; with fewer the
// baseline is insufficient: TestShortBaselineQuietPairs), a pod whose CPU
// doubles and whose success ratio falls to 0.9 in AFTER regresses in both.
func TestShortBaselineDetects(t *testing.T) {
	b := seriesBundle(t, 1, 40, 21, 16, 0)
	mid := t0.Add(16 * time.Minute)
	rep, err := Run(Side{Bundle: b, Start: mid.Add(-5 * time.Minute), End: mid}, Side{Bundle: b, Start: mid, End: mid.Add(5 * time.Minute)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range rep.Items {
		if it.Verdict != model.Unchanged {
			got = append(got, string(it.Verdict)+" "+it.ID)
		}
	}
	want := []string{
		`regressed series/pod/svc00-5d8f7c9b4-x000:cpu container_cpu_usage_seconds_rate{container="svc00",pod="svc00-5d8f7c9b4-x000"}`,
		`regressed series/pod/svc00-5d8f7c9b4-x000:errors request_success_ratio{container="svc00",pod="svc00-5d8f7c9b4-x000"}`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// cpuBundle is a quiet system at a 60 s step, as nullSeriesBundle (pods'
// CPU, AR(1) with ρ 0.5), over minutes minutes, whose first pod's CPU is
// multiplied by mul(minute).
func cpuBundle(tb testing.TB, seed uint64, pods, minutes int, mul func(m int) float64) *ingest.Bundle {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 13))
	b := &ingest.Bundle{}
	for p := range pods {
		pod := fmt.Sprintf("svc%02d-5d8f7c9b4-x%03d", p%10, p)
		s := &ingest.Series{Name: "container_cpu_usage_seconds_rate", Unit: "cores", Source: "metrics.json",
			Labels: ingest.Labels{{Name: "container", Value: fmt.Sprintf("svc%02d", p%10)}, {Name: "pod", Value: pod}}}
		level, x := 0.3+0.1*r.Float64(), r.NormFloat64()
		for m := range minutes {
			x = 0.5*x + math.Sqrt(0.75)*r.NormFloat64()
			v := level + 0.02*x
			if p == 0 {
				v *= mul(m)
			}
			s.T, s.V = append(s.T, t0.Add(time.Duration(m)*time.Minute)), append(s.V, v)
		}
		ingest.ClassifySeries(s)
		b.Series = append(b.Series, s)
	}
	b.Inputs = []ingest.Input{{Path: "cpu/metrics.json", Format: ingest.FormatPromQueryRange}}
	ingest.Finalize(b, ingest.Options{Step: time.Minute})
	return b
}

// TestDisturbedBaseline: a baseline that holds an earlier incident of its
// own (the first pod's CPU doubled for 7 of its 60 minutes) would put the
// band's 99th percentile at the incident's level and hide the same
// regression in AFTER; its disturbed windows are left out of the band for
// regressions (quietBaseline), and the report says so. A series that
// alternates between two levels throughout its baseline loses nothing (its
// high level in AFTER is no regression), nor does one that visited a level
// twice; two earlier episodes at different levels are both left out; and
// quiet data with a long
// baseline stays quiet (at most 1 pair in 20 with any change).
func TestDisturbedBaseline(t *testing.T) {
	run := func(b *ingest.Bundle, at int) *model.Report {
		t.Helper()
		mid := t0.Add(time.Duration(at) * time.Minute)
		rep, err := Run(Side{Bundle: b, Start: mid.Add(-5 * time.Minute), End: mid}, Side{Bundle: b, Start: mid, End: mid.Add(5 * time.Minute)}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	const id = `series/pod/svc00-5d8f7c9b4-x000:cpu container_cpu_usage_seconds_rate{container="svc00",pod="svc00-5d8f7c9b4-x000"}`
	verdict := func(rep *model.Report) (model.Verdict, model.Item) {
		for _, it := range rep.Items {
			if it.ID == id {
				return it.Verdict, it
			}
		}
		t.Fatalf("no item %s", id)
		return "", model.Item{}
	}
	episode := func(m int) float64 {
		if m >= 20 && m < 27 || m >= 65 {
			return 2
		}
		return 1
	}
	rep := run(cpuBundle(t, 1, 10, 70, episode), 65)
	v, it := verdict(rep)
	warned := false
	for _, f := range rep.Warnings {
		warned = warned || f.Kind == "disturbed_baseline"
	}
	if v != model.Regressed || !warned {
		t.Errorf("CPU doubled again after an earlier episode: %s (%s, band %v), disturbed_baseline warned %v; want regressed, warned", v, it.Reason, it.Band.Level, warned)
	}

	modes := func(m int) float64 { // 5 minutes high in every 15, AFTER high
		if m%15 >= 10 || m >= 65 {
			return 2
		}
		return 1
	}
	if v, it := verdict(run(cpuBundle(t, 1, 10, 70, modes), 65)); v == model.Regressed {
		t.Errorf("a series alternating between two levels throughout its baseline, AFTER at the high one: %s (%s, band %v); want no regression", v, it.Reason, it.Band.Level)
	}

	// Two earlier incidents at different levels (×3 and ×1.7) are no mode:
	// both are left out, and ×2.2 in AFTER regresses (nezha-ob's
	// ob-20220822-065256: three earlier injections at 0.17, 5.9 and 0.37 s
	// in its baseline). Twice the same level (×2) is a mode the band keeps.
	twoIncidents := func(m int) float64 {
		switch {
		case m >= 15 && m < 21:
			return 3
		case m >= 35 && m < 41:
			return 1.7
		case m >= 65:
			return 2.2
		}
		return 1
	}
	if v, it := verdict(run(cpuBundle(t, 1, 10, 70, twoIncidents), 65)); v != model.Regressed {
		t.Errorf("two earlier episodes at different levels, AFTER at a third: %s (%s, band %v); want regressed", v, it.Reason, it.Band.Level)
	}
	twice := func(m int) float64 {
		if m >= 15 && m < 21 || m >= 35 && m < 41 || m >= 65 {
			return 2
		}
		return 1
	}
	if v, it := verdict(run(cpuBundle(t, 1, 10, 70, twice), 65)); v == model.Regressed {
		t.Errorf("a level the baseline visited twice, AFTER at it: %s (%s, band %v); want no regression", v, it.Reason, it.Band.Level)
	}

	if testing.Short() {
		return
	}
	const runs = 60
	alarms := 0
	for seed := range uint64(runs) {
		rep := run(nullSeriesBundle(t, seed+100, 40, 70, 0.02), 65)
		for _, it := range rep.Items {
			if it.Verdict != model.Unchanged && it.Verdict != model.Insufficient {
				alarms++
				t.Logf("seed %d: %s %s: %s (%s)", seed+100, it.Verdict, it.ID, changeText(&it), it.Reason)
				break
			}
		}
	}
	t.Logf("60-minute baselines: %d of %d quiet pairs with a change", alarms, runs)
	if alarms*20 > runs {
		t.Errorf("%d of %d quiet pairs with a 60-minute baseline reported a change; at most 1 in 20 allowed", alarms, runs)
	}
}

// TestShortBaselineLevelsVary: with three disjoint baseline windows (15
// minutes before 5-minute windows) a pod whose CPU doubles in AFTER after a
// steady baseline regresses, while one whose baseline windows' levels
// already moved (×1, ×1, ×1.12, with ±8% from minute to minute) and whose
// AFTER goes from ×1 to ×1.4 — beyond every baseline point, but within
// what three windows' levels predict for one more (×1.6) — is insufficient
// data and says why (levelPrediction).
func TestShortBaselineLevelsVary(t *testing.T) {
	const id = `series/pod/svc00-5d8f7c9b4-x000:cpu container_cpu_usage_seconds_rate{container="svc00",pod="svc00-5d8f7c9b4-x000"}`
	for _, tc := range []struct {
		name string
		mul  func(m int) float64
		want model.Verdict
	}{
		{"steady, then doubled", func(m int) float64 { return 1 + float64(m/20) }, model.Regressed},
		{"levels that move", func(m int) float64 {
			return []float64{1, 1, 1.12, 1, 1.4}[min(m/5, 4)] * (1 + 0.08*float64(1-2*(m%2))) // ±8% a minute: no bursts
		}, model.Insufficient},
	} {
		b := cpuBundle(t, 3, 20, 25, tc.mul)
		mid := t0.Add(20 * time.Minute)
		rep, err := Run(Side{Bundle: b, Start: mid.Add(-5 * time.Minute), End: mid}, Side{Bundle: b, Start: mid, End: mid.Add(5 * time.Minute)}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rep.Items, func(it model.Item) bool { return it.ID == id })
		if i < 0 {
			t.Fatalf("%s: no item %s", tc.name, id)
		}
		it := rep.Items[i]
		if it.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, it.Verdict, it.Reason, tc.want)
		}
		if tc.want == model.Insufficient && !strings.Contains(it.Reason, "3 baseline windows' levels") {
			t.Errorf("%s: reason %q does not name the windows' levels", tc.name, it.Reason)
		}
	}
	if got, ok := levelPrediction([]float64{1, 1.25, 1.5}, +1); !ok || math.Abs(got-(1.25+6.9646*0.25*math.Sqrt(4.0/3))) > 1e-3 {
		t.Errorf("levelPrediction = %v, %v", got, ok)
	}
	if _, ok := levelPrediction([]float64{1, 2}, +1); ok {
		t.Error("levelPrediction from two levels")
	}
}
