package canary

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/canarytest"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

func runCanaryOn(t *testing.T, dir string, opt Options) *model.Report {
	t.Helper()
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// verdicts maps each workload's service to its verdict.
func verdicts(r *model.Report) map[string]string {
	out := map[string]string{}
	for _, w := range r.Canary.Workloads {
		out[w.Service] = w.Verdict
	}
	return out
}

func TestCanaryDefectiveVersionFails(t *testing.T) {
	cs := canarytest.Healthy()
	cs.Success = func(svc string, v2 bool, _ int) float64 {
		if svc == "cart" && v2 {
			return 0.80 // one request in five fails on the new version
		}
		return 0.995
	}
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2"})
	got := verdicts(rep)
	if got["cart"] != model.CanaryFail || got["pay"] != model.CanaryPass {
		t.Fatalf("verdicts %v, want cart fail and pay pass\n%s", got, rep.Verdict.Text)
	}
	if rep.Canary.Verdict != model.CanaryFail || rep.Verdict.Verdict != model.Regressed {
		t.Errorf("overall %q / %q, want fail / regressed", rep.Canary.Verdict, rep.Verdict.Verdict)
	}
	cart := rep.Canary.Workloads[0]
	if cart.Service != "cart" || !cart.Metrics[0].Bad || cart.Metrics[0].Result != model.MetricLow || cart.Metrics[0].Signal != "errors" {
		t.Errorf("cart's first metric %+v, want the success ratio low and bad", cart.Metrics[0])
	}
	if !strings.Contains(cart.Reason, "critical: errors low") {
		t.Errorf("reason %q, want it to name the critical errors", cart.Reason)
	}
	if len(cart.CanaryPods) != 1 || len(cart.BaselinePods) != 3 || cart.Cells < 15 {
		t.Errorf("canary %v, baseline %v, %d cells: want 1 pod against 3 in the 20 minutes both report", cart.CanaryPods, cart.BaselinePods, cart.Cells)
	}
	if FailOn(rep, GateFail) != model.ExitGate || FailOn(rep, "never") != 0 {
		t.Errorf("gates: fail %d, never %d", FailOn(rep, GateFail), FailOn(rep, "never"))
	}
}

func TestCanaryHealthyVersionPasses(t *testing.T) {
	cs := canarytest.Healthy()
	// A new pod starts with less memory and answers a little faster: both
	// good directions, so neither is a failure.
	cs.Memory = func(_ string, v2 bool, _ int) float64 {
		if v2 {
			return 150e6
		}
		return 300e6
	}
	cs.Latency = func(_ string, v2 bool, _ int) float64 {
		if v2 {
			return 0.100
		}
		return 0.120
	}
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2"})
	for _, w := range rep.Canary.Workloads {
		if w.Verdict != model.CanaryPass || w.Score != 100 {
			t.Errorf("%s: %s score %.0f (%s), want pass 100", w.Service, w.Verdict, w.Score, w.Reason)
		}
		for _, m := range w.Metrics {
			if m.Signal == "memory" && m.Result != model.MetricLow {
				t.Errorf("%s memory: %s, want low", w.Service, m.Result)
			}
		}
	}
	if FailOn(rep, GateMarginal) != 0 {
		t.Errorf("gate marginal tripped on passing canaries")
	}
}

func TestCanaryResourceOnlyIsMarginal(t *testing.T) {
	cs := canarytest.Healthy()
	cs.Memory = func(svc string, v2 bool, m int) float64 {
		if svc == "pay" && v2 {
			return 300e6 * (1 + 0.1*float64(m-10)) // leaks
		}
		return 300e6
	}
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2"})
	got := verdicts(rep)
	// Errors, latency and memory are the signals: memory alone worse is a
	// score of 67, below pass (75), above marginal (50).
	if got["pay"] != model.CanaryMarginal || got["cart"] != model.CanaryPass {
		t.Fatalf("verdicts %v, want pay marginal, cart pass", got)
	}
	if FailOn(rep, GateFail) != 0 || FailOn(rep, GateMarginal) != model.ExitGate {
		t.Errorf("gates: fail %d (want 0), marginal %d (want 3)", FailOn(rep, GateFail), FailOn(rep, GateMarginal))
	}
}

func TestCanarySelectors(t *testing.T) {
	dir := canarytest.Healthy().Write(t)
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sel, base string
		want      []string // services judged
		err       bool
	}{
		{sel: "auto", want: []string{"cart", "pay"}}, // new pods in the data
		{sel: "version=v2", want: []string{"cart", "pay"}},
		{sel: "pod-template-hash=7c9b45d8f", want: []string{"cart", "pay"}},
		{sel: "cart-7c9b45d8f", want: []string{"cart"}},
		{sel: "version=v2", base: "version=v1", want: []string{"cart", "pay"}},
		{sel: "version=v9", err: true},
		{sel: "version=", err: true},
	} {
		rep, err := Run(b, Options{Canary: tc.sel, Baseline: tc.base})
		if tc.err {
			if err == nil {
				t.Errorf("%q: no error", tc.sel)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.sel, err)
			continue
		}
		var got []string
		for _, w := range rep.Canary.Workloads {
			got = append(got, w.Service)
			if len(w.BaselinePods) != 3 || len(w.CanaryPods) != 1 {
				t.Errorf("%q %s: canary %v baseline %v", tc.sel, w.Service, w.CanaryPods, w.BaselinePods)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: judged %v, want %v", tc.sel, got, tc.want)
		}
	}
	if _, err := Run(b, Options{Canary: "version=v9"}); !errors.Is(err, ErrNoCanary) {
		t.Errorf("unmatched selector: %v, want ErrNoCanary", err)
	}
}

func TestCanaryFullRolloutIsInsufficient(t *testing.T) {
	cs := canarytest.Healthy()
	cs.OldUntil = 11 // the old pods go a minute after the new one comes
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2"})
	for _, w := range rep.Canary.Workloads {
		if w.Verdict != model.CanaryInsufficient || !strings.Contains(w.Reason, "a full rollout") || !strings.Contains(w.Reason, "--before-at") {
			t.Errorf("%s: %s (%s), want insufficient data pointing at before/after", w.Service, w.Verdict, w.Reason)
		}
	}
	if FailOn(rep, GateFail) != model.ExitUndetermined {
		t.Errorf("gate on undecided canaries: %d, want %d", FailOn(rep, GateFail), model.ExitUndetermined)
	}
}

func TestCanaryRenderers(t *testing.T) {
	cs := canarytest.Healthy()
	cs.Latency = func(svc string, v2 bool, _ int) float64 {
		if svc == "pay" && v2 {
			return 0.6
		}
		return 0.12
	}
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2"})
	for _, f := range formats {
		out := renderFormat(t, rep, f)
		for _, want := range []string{"pay-7c9b45d8f", "fail"} {
			if !strings.Contains(strings.ToLower(out), want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
		if f == "json" {
			var v struct {
				Mode   string `json:"mode"`
				Canary struct {
					Workloads []struct {
						Workload, Verdict string
						Score             float64
					} `json:"workloads"`
				} `json:"canary"`
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			if v.Mode != model.ModeCanary || len(v.Canary.Workloads) != 2 || v.Canary.Workloads[1].Verdict != model.CanaryFail ||
				v.Canary.Workloads[0].Score != 100 {
				t.Errorf("json: %+v", v)
			}
		}
	}
}

// canaryGoldenReport is the golden canary report: pay's new version is five
// times slower, cart's passes. The inputs (temporary paths) are dropped.
func canaryGoldenReport(tb testing.TB) *model.Report {
	t := tb.(*testing.T)
	cs := canarytest.Healthy()
	cs.Latency = func(svc string, v2 bool, _ int) float64 {
		if svc == "pay" && v2 {
			return 0.6
		}
		return 0.12
	}
	rep := runCanaryOn(t, cs.Write(t), Options{Canary: "version=v2", Version: "test", Args: []string{"--canary", "version=v2", "DATA"}})
	rep.Inputs, rep.Manifest.Inputs, rep.Before.Paths, rep.After.Paths = nil, nil, nil, nil
	return rep
}

// TestAvailabilityNeverUp: a release none of whose asked-for pods reports
// in the two cells past the grace that a 5-minute window leaves is judged
// (low, bad) from the version model's two cells; with a pod reporting in
// one of them, or in both, two cells stay too few (a scrape gap at the
// edge of the data is no outage), and three or more cells are judged as
// any metric is.
func TestAvailabilityNeverUp(t *testing.T) {
	opt := DefaultOptions().withDefaults()
	n := math.NaN()
	c := peers.Cells{B0: 0, B1: 10, W0: 10, W1: 15}
	win := func(w ...float64) []float64 { return append([]float64{n, n, n, n, n, n, n, n, n, n}, w...) }
	for _, tc := range []struct {
		name string
		av   []float64
		want string
		bad  bool
	}{
		{"never up, two cells", win(n, n, n, 0, 0), model.MetricLow, true},
		{"up in one of two cells", win(n, n, n, 1, 0), model.MetricInsufficient, false},
		{"up in both of two cells", win(n, n, n, 1, 1), model.MetricInsufficient, false},
		{"never up, one cell", win(n, n, n, n, 0), model.MetricInsufficient, false},
		{"up, three cells", win(n, n, 1, 1, 1), model.MetricPass, false},
	} {
		mt := judgeAvailability(tc.av, c, opt)
		if mt.Result != tc.want || mt.Bad != tc.bad {
			t.Errorf("%s: %s (bad %v, %s), want %s (bad %v)", tc.name, mt.Result, mt.Bad, mt.Reason, tc.want, tc.bad)
		}
	}
}

// TestSelectGroupsUnreportedRelease: --canary version=v2 selects a
// release none of whose pods reported (no version label on any series)
// by its Deployment-per-version workload name, so that it is judged (its
// availability) rather than left out; a group whose known version differs
// is not selected, nor is a workload whose name only contains the value
// inside a word.
func TestSelectGroupsUnreportedRelease(t *testing.T) {
	gs := []*peers.Group{
		{Name: "cart-v1-685f9dd56f", Workload: "cart-v1", Version: "v1"},
		{Name: "cart-v2-54455997f4", Workload: "cart-v2"},
		{Name: "cartv2x-5b485cdcf", Workload: "cartv2x"},
	}
	got, err := selectGroups(gs, "version=v2")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "cart-v2-54455997f4" {
		t.Fatalf("selected %v, want the unreported release cart-v2", got)
	}
}
