package profdiff

import "testing"

func TestFailOn(t *testing.T) {
	rep := func(step string, slower int) *Report {
		return &Report{Step: Row{Verdict: step}, Verdict: Summary{Slower: slower}}
	}
	for _, tc := range []struct {
		name string
		r    *Report
		gate string
		want int
	}{
		{"never", rep(Slower, 3), GateNever, 0},
		{"regressed, step slower", rep(Slower, 0), GateRegressed, 3},
		{"regressed, a kernel slower", rep(Faster, 1), GateRegressed, 3},
		{"regressed, all faster", rep(Faster, 0), GateRegressed, 0},
		{"unchanged, step unchanged", rep(Unchanged, 0), GateUnchanged, 3},
		{"unchanged, step undecided", rep(Insufficient, 0), GateUnchanged, 4},
		{"unchanged, step faster", rep(Faster, 0), GateUnchanged, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FailOn(tc.r, tc.gate); got != tc.want {
				t.Errorf("FailOn(%s) = %d, want %d", tc.gate, got, tc.want)
			}
		})
	}
}
