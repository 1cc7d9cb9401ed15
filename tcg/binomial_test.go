package tcg

import (
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// flatRatioBundle: a service whose success ratio sat at exactly 1.000 for
// the whole baseline, with reqs requests per step, falls to drop (a share
// of its requests failing) from cell onset on; n cells of step.
func flatRatioBundle(t *testing.T, step time.Duration, n, onset int, reqs, drop float64) *ingest.Bundle {
	t.Helper()
	ent := svc("payments")
	ratio := &ingest.Series{Name: "availability_ratio", Labels: ingest.Labels{{Name: "stat", Value: "Average"}}, Entity: ent,
		Signal: ingest.SignalErrors, Stat: "success_ratio", Unit: "ratio", Source: "test"}
	count := &ingest.Series{Name: "requests", Labels: ingest.Labels{{Name: "stat", Value: "Sum"}}, Entity: ent,
		Signal: ingest.SignalTraffic, Source: "test"}
	for i := 0; i < n; i++ {
		tm := t0.Add(time.Duration(i) * step)
		r := 1.0
		if i >= onset {
			r = 1 - drop
		}
		ratio.T, ratio.V = append(ratio.T, tm), append(ratio.V, r)
		count.T, count.V = append(count.T, tm), append(count.V, reqs+float64(i%3))
	}
	b := &ingest.Bundle{Series: []*ingest.Series{ratio, count}}
	features.Finalize(b, ingest.Options{Step: step}, features.Options{})
	return b
}

// TestFlatBaselineBreak: a success ratio at exactly 1.000 that falls to
// 0.98 on hundreds of requests a step is a large, certain change — at a
// 15-second step and at a 5-minute step, where the break is two samples —
// while the same fall on a handful of requests (a failure or two) is not.
func TestFlatBaselineBreak(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      time.Duration
		n, onset  int
		reqs      float64
		drop      float64
		counts    bool
		anomalous bool
		minScore  float64
	}{
		{"15s, 300 requests a step", 15 * time.Second, 120, 110, 300, 0.02, true, true, 8},
		{"5m, 180 requests a step, two samples", 5 * time.Minute, 30, 28, 180, 0.02, true, true, 5},
		{"5m, 10 requests a step: one failure", 5 * time.Minute, 30, 28, 10, 0.1, true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := flatRatioBundle(t, tc.step, tc.n, tc.onset, tc.reqs, tc.drop)
			at := t0.Add(time.Duration(tc.onset) * tc.step)
			inc := Incident{Target: Target{Service: "payments", Signal: ingest.SignalErrors}, At: at,
				WindowStart: at - ingest.Time(2*tc.step), WindowEnd: b.End, BaselineStart: b.Start}
			g, err := Build(b, inc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			i := g.NodeByID("service/payments:errors")
			if i < 0 {
				t.Fatal("no errors node")
			}
			n := g.Nodes[i]
			if n.Anomalous != tc.anomalous || tc.anomalous && n.Score < tc.minScore {
				t.Fatalf("anomalous %v score %.1f (baseline %.4f → %.4f), want anomalous %v with score ≥ %v",
					n.Anomalous, n.Score, n.Baseline, n.Incident, tc.anomalous, tc.minScore)
			}
			if tc.anomalous && (n.Incident > 1-tc.drop+1e-9 || n.Incident < 1-tc.drop-1e-3 || n.Baseline < 0.999) {
				t.Errorf("baseline %.4f → incident %.4f, want 1.000 → %.3f in the ratio's units", n.Baseline, n.Incident, 1-tc.drop)
			}
		})
	}
}

// TestPoissonDeviate pins the deviate's sign, its zero and its size
// against a known tail: 10 events where 1 was expected is a deviate near
// 3.9 (the exact Poisson tail is 1.1e-7, z 5.2; the deviance root is the
// usual conservative approximation), and it stays finite far in the tail.
func TestPoissonDeviate(t *testing.T) {
	if z := poissonDeviate(1, 1); z != 0 {
		t.Errorf("deviate at the mean %v, want 0", z)
	}
	if z := poissonDeviate(0, 5); z >= 0 {
		t.Errorf("deviate under the mean %v, want negative", z)
	}
	if z := poissonDeviate(10, 1); z < 3.5 || z > 5.5 {
		t.Errorf("deviate of 10 against 1: %v", z)
	}
	if z := poissonDeviate(5000, 1e-3); z != z || z > 1e6 || z < 100 {
		t.Errorf("far tail deviate %v, want large and finite", z)
	}
}

// TestWindowHoldsSamplesAfterAt: on 5-minute data a 5-minute window
// centred on the alert would hold one sample of what followed it; the
// window reaches MinStepsAfter samples after --at (never past the data),
// and at a 15-second step the centred window already does.
func TestWindowHoldsSamplesAfterAt(t *testing.T) {
	tgt := Target{Service: "payments", Signal: ingest.SignalErrors}
	for _, tc := range []struct {
		step    time.Duration
		wantEnd time.Duration // after --at
	}{
		{5 * time.Minute, MinStepsAfter * 5 * time.Minute},
		{15 * time.Second, 150 * time.Second},
	} {
		b := flatRatioBundle(t, tc.step, 40, 100, 100, 0)
		at := t0.Add(20 * tc.step)
		inc, err := ResolveIncident(b, IncidentSpec{At: at, Window: 5 * time.Minute, Target: tgt})
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Duration(inc.WindowEnd - at); got != tc.wantEnd {
			t.Errorf("step %v: window ends %v after --at, want %v", tc.step, got, tc.wantEnd)
		}
		late := t0.Add(38 * tc.step) // two steps before the data ends
		if inc, err = ResolveIncident(b, IncidentSpec{At: late, Window: 5 * time.Minute, Target: tgt}); err != nil || inc.WindowEnd > b.End {
			t.Errorf("step %v: window end %v past the data's end %v (err %v)", tc.step, inc.WindowEnd, b.End, err)
		}
	}
}
