package scorecard

import "testing"

func TestGateTripped(t *testing.T) {
	warn := &Card{Verdict: Verdict{Confident: true}, Causes: []Cause{{Severity: SeverityWarning}}}
	crit := &Card{Verdict: Verdict{Confident: true}, Causes: []Cause{{Severity: SeverityCritical}}}
	abstains := &Card{Causes: []Cause{{Severity: SeverityWarning}}}
	for _, tc := range []struct {
		name string
		card *Card
		gate string
		want bool
	}{
		{"never", crit, GateNever, false},
		{"critical on a warning", warn, GateCritical, false},
		{"critical on a critical", crit, GateCritical, true},
		{"warning on a warning", warn, GateWarning, true},
		{"abstain on an abstaining card", abstains, GateAbstain, true},
		{"abstain on a confident warning", warn, GateAbstain, false},
		{"critical on an abstaining card", abstains, GateCritical, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GateTripped(tc.card, tc.gate); got != tc.want {
				t.Errorf("GateTripped(%s) = %v, want %v", tc.gate, got, tc.want)
			}
		})
	}
}
