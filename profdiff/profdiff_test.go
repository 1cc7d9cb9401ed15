package profdiff

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rowOf finds a row by kind and name.
func rowOf(r *Report, kind, name string) (Row, bool) {
	rows := r.Layers
	if kind == KindKernel {
		rows = r.Kernels
	}
	for _, rw := range rows {
		if rw.Name == name {
			return rw, true
		}
	}
	return Row{}, false
}

// change is a chosen change: a row, the factor it was scaled by.
type change struct {
	kind, name string
	factor     float64
}

// checkFound: every chosen change is found with the right direction and a
// median ratio within 10% of its factor.
func checkFound(t *testing.T, r *Report, changes []change) {
	t.Helper()
	for _, c := range changes {
		rw, ok := rowOf(r, c.kind, c.name)
		if !ok {
			t.Errorf("%s %q: no row", c.kind, c.name)
			continue
		}
		want := Slower
		if c.factor < 1 {
			want = Faster
		}
		t.Logf("%s %q scaled ×%g: %s %s %s", c.kind, c.name, c.factor, rw.Verdict, fmtRatio(rw.Ratio), fmtInterval(rw.Lo, rw.Hi))
		if rw.Verdict != want || math.Abs(rw.Ratio/c.factor-1) > 0.10 {
			t.Errorf("%s %q scaled ×%g: %s %s %s (q %s)", c.kind, c.name, c.factor, rw.Verdict, fmtRatio(rw.Ratio), fmtInterval(rw.Lo, rw.Hi), fmtQ(rw.Q))
		}
	}
}

// checkQuiet: no row changed (a copy of the capture against itself with
// every kernel jittered by ±5%).
func checkQuiet(t *testing.T, r *Report) {
	t.Helper()
	for _, rows := range [][]Row{{r.Step, r.StepWall}, r.Layers, r.Kernels} {
		for _, rw := range rows {
			if rw.Verdict == Slower || rw.Verdict == Faster {
				t.Errorf("false %s: %s %q %s %s (q %s)", rw.Verdict, rw.Kind, rw.Name, fmtRatio(rw.Ratio), fmtInterval(rw.Lo, rw.Hi), fmtQ(rw.Q))
			}
		}
	}
}

func compareFiles(t *testing.T, base, cand string) *Report {
	t.Helper()
	r, err := Compare([]string{base}, []string{cand}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestKinetoChanges: the HTA samples (real PyTorch profiler traces)
// against copies with two kernels and two annotated ranges (a
// record_function and the optimizer step) scaled by known factors: each
// found with its direction and factor within 10%.
func TestKinetoChanges(t *testing.T) {
	dir := t.TempDir()
	src := sample(t, "hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
	base := filepath.Join(dir, "base.json.gz")
	loadKineto(t, src).write(t, base) // the same encoding on both sides
	d := loadKineto(t, src)
	kernels := map[string]float64{"volta_sgemm_64x64_nt": 0.7, "cudnn::detail::dgrad_engine": 1.5}
	n := d.scale(func(m map[string]any) bool { _, ok := kernels[kernelName(m["name"].(string))]; return ok },
		func(m map[string]any) float64 { return kernels[kernelName(m["name"].(string))] })
	fwd := d.kernelsIn("## forward ##")
	opt := d.kernelsIn("Optimizer.step#SGD.step")
	n += d.scale(func(m map[string]any) bool { return fwd[argInt(m, "correlation")] }, func(map[string]any) float64 { return 1.3 })
	n += d.scale(func(m map[string]any) bool { return opt[argInt(m, "correlation")] }, func(map[string]any) float64 { return 0.6 })
	if n < 100 || len(fwd) == 0 || len(opt) == 0 {
		t.Fatalf("scaled %d kernels (%d forward, %d optimizer)", n, len(fwd), len(opt))
	}
	cand := filepath.Join(dir, "cand.json.gz")
	d.write(t, cand)
	r := compareFiles(t, base, cand)
	checkFound(t, r, []change{
		{KindKernel, "volta_sgemm_64x64_nt", 0.7}, {KindKernel, "cudnn::detail::dgrad_engine", 1.5},
		{KindLayer, "## forward ##", 1.3}, {KindLayer, "Optimizer.step#SGD.step", 0.6},
	})
	if r.Step.Verdict != Slower {
		t.Errorf("step %s %s: the forward pass, a third of the step, slowed ×1.3", r.Step.Verdict, fmtRatio(r.Step.Ratio))
	}
}

// TestNsightChanges: the Nsight sample (a real nsys export) against copies
// with the saxpy kernel (inside its NVTX range "saxpy") ×1.5 and the
// host-to-device copies ×0.6.
func TestNsightChanges(t *testing.T) {
	src := sample(t, "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
	cand := filepath.Join(t.TempDir(), "cand.sqlite")
	copyNsight(t, src, cand, nsightScaleKernels("saxpy", 1.5), nsightScaleMemcpy(1, 0.6))
	r := compareFiles(t, src, cand)
	checkFound(t, r, []change{{KindKernel, "saxpy", 1.5}, {KindLayer, "saxpy", 1.5}, {KindKernel, "memcpy HtoD", 0.6}})
	if rw, _ := rowOf(r, KindLayer, "saxpy"); rw.Source != "annotation" {
		t.Errorf("the saxpy layer comes from %q, want its NVTX range (annotation)", rw.Source)
	}
}

// TestJitterQuiet: each sample against a copy of itself with every kernel
// jittered by ±5% (five seeds each): no layer, kernel or step changes.
func TestJitterQuiet(t *testing.T) {
	for _, name := range []string{"hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "hta/benchmark_result_493459_1694039959_trace.json.gz", "hta/triton_example.json.gz"} {
		for seed := uint64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", filepath.Base(name), seed), func(t *testing.T) {
				dir := t.TempDir()
				base, cand := filepath.Join(dir, "base.json.gz"), filepath.Join(dir, "cand.json.gz")
				loadKineto(t, sample(t, name)).write(t, base)
				d := loadKineto(t, sample(t, name))
				d.jitter(seed)
				d.write(t, cand)
				checkQuiet(t, compareFiles(t, base, cand))
			})
		}
	}
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprintf("nsight/seed%d", seed), func(t *testing.T) {
			src := sample(t, "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
			cand := filepath.Join(t.TempDir(), "cand.sqlite")
			copyNsight(t, src, cand)
			nsightJitter(t, cand, seed)
			checkQuiet(t, compareFiles(t, src, cand))
		})
	}
}

// TestMultiRankStraggler: four ranks a side (the HTA trace as ranks 0–3);
// in the candidate rank 2's kernels all take ×1.3: it is the straggler,
// and the slowest rank of its layers; the baseline has none.
func TestMultiRankStraggler(t *testing.T) {
	dir := t.TempDir()
	src := sample(t, "hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
	for _, side := range []string{"base", "cand"} {
		if err := os.MkdirAll(filepath.Join(dir, side), 0o755); err != nil {
			t.Fatal(err)
		}
		for rank := range 4 {
			d := loadKineto(t, src)
			d.setRank(rank)
			if side == "cand" && rank == 2 {
				d.scale(func(map[string]any) bool { return true }, func(map[string]any) float64 { return 1.3 })
			}
			d.write(t, filepath.Join(dir, side, fmt.Sprintf("trace-%d.json.gz", rank)))
		}
	}
	r, err := Compare([]string{filepath.Join(dir, "base")}, []string{filepath.Join(dir, "cand")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Base.Ranks != 4 || r.Cand.Ranks != 4 {
		t.Fatalf("ranks %d and %d", r.Base.Ranks, r.Cand.Ranks)
	}
	var got []Straggler
	for _, s := range r.Stragglers {
		got = append(got, s)
	}
	if len(got) != 1 || got[0].Side != "cand" || got[0].Rank != 2 || math.Abs(got[0].VsMedian/1.3-1) > 0.1 || len(got[0].Layers) == 0 {
		t.Fatalf("stragglers %+v, want cand rank 2 at about ×1.3 with its layers", got)
	}
	t.Logf("stragglers %+v", got)
	fwd, _ := rowOf(r, KindLayer, "## forward ##")
	if fwd.Cand.SlowestRank != 2 || math.Abs(fwd.Cand.Spread/1.3-1) > 0.1 || !math.IsNaN(fwd.Base.Spread) && fwd.Base.Spread > 1.01 {
		t.Errorf("forward: slowest rank %d spread %v (base spread %v)", fwd.Cand.SlowestRank, fwd.Cand.Spread, fwd.Base.Spread)
	}
	var text strings.Builder
	if err := Render(&text, r, "text", RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "straggler (cand): rank 2") {
		t.Errorf("the text lacks the straggler:\n%s", text.String())
	}
}
