package eval

import "testing"

func TestHeldOutMetrics(t *testing.T) {
	rs := []caseResult{
		{Method: "tcg", Rank: 1, CompHit: true},
		{Method: "tcg", Rank: 3},
		{Method: "tcg", Rank: 0},
		{Method: "baro", Rank: 1}, // another method's row is not counted
	}
	m := heldOutMetrics(rs)
	if m.N != 3 || m.AC1 != 1.0/3 || m.AC3 != 2.0/3 || m.AC5 != 2.0/3 || m.Comp1 != 1.0/3 {
		t.Errorf("metrics %+v", m)
	}
	if want := (1.0 + 0.6) / 3; m.Avg5 < want-1e-12 || m.Avg5 > want+1e-12 {
		t.Errorf("Avg@5 %v, want %v", m.Avg5, want)
	}
}
