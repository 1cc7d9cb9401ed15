package features

import (
	"math"
	"slices"
	"testing"
)

// Tests of the log features (logfeatures.go, logevidence.go).

func TestPoissonTails(t *testing.T) {
	exact := func(x int, mu float64) float64 { // −ln Σ e^−mu mu^k/k!
		s := 0.0
		for k := 0; k <= x; k++ {
			lg, _ := math.Lgamma(float64(k + 1))
			s += math.Exp(-mu + float64(k)*math.Log(mu) - lg)
		}
		return -math.Log(s)
	}
	for _, c := range []struct {
		x  int
		mu float64
	}{{0, 3}, {2, 3}, {0, 50.1}, {10, 50.1}, {30, 50.1}, {49, 50.1}, {100, 400}} {
		if got, want := poissonDeficit(c.x, c.mu), exact(c.x, c.mu); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("poissonDeficit(%d, %v) = %v, want %v", c.x, c.mu, got, want)
		}
	}
	if poissonDeficit(5, 3) != 0 || missingDeficit(3, 3) != 0 {
		t.Error("no deficit at or above the mean")
	}
	if got := poissonExcess(10, 1); math.Abs(got-exactExcess(10, 1)) > 1e-6 {
		t.Errorf("poissonExcess(10, 1) = %v, want %v", got, exactExcess(10, 1))
	}
}

// TestLogNewPerCellCrossValidated checks that a reference cell's template
// counts as new when no reference cell farther than h from it has it, so
// that the baseline of LogNewTemplates is not zero by construction; cells
// outside the reference count templates the whole reference lacks.
func TestLogNewPerCellCrossValidated(t *testing.T) {
	const n = 12
	tpl := map[int32][]int32{
		1: make([]int32, n), // steady in the reference: never new
		2: make([]int32, n), // once in the reference (cell 2): new there only
		3: make([]int32, n), // only after the reference: new
		4: make([]int32, n), // cells 5 and 6, within h of each other: new in both
	}
	for c := range n {
		tpl[1][c] = 1
	}
	tpl[2][2], tpl[2][9] = 1, 1
	tpl[3][10] = 2
	tpl[4][5], tpl[4][6] = 1, 1
	got := logNewPerCell(tpl, []int32{1, 2, 3, 4}, 0, 8, 1, n)
	want := []int32{0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 2, 0}
	if !slices.Equal(got, want) {
		t.Errorf("new per cell = %v, want %v", got, want)
	}
}

func exactExcess(x int, mu float64) float64 {
	s := 0.0
	for k := x; k < x+200; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		s += math.Exp(-mu + float64(k)*math.Log(mu) - lg)
	}
	return -math.Log(s)
}
