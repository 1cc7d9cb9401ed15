package profdiff

// Gates of compare --profile's --fail-on (compare's own names).
const (
	GateRegressed = "regressed" // the step, a layer or a kernel slower
	GateUnchanged = "unchanged" // also: the step not faster
	GateNever     = "never"
)

// FailOn is the exit status of a gate on the report: 3 when it trips, 4
// when GateUnchanged cannot decide the step (insufficient data), else 0.
func FailOn(r *Report, gate string) int {
	slower := r.Step.Verdict == Slower || r.Verdict.Slower > 0
	switch gate {
	case GateRegressed:
		if slower {
			return 3
		}
	case GateUnchanged:
		if slower || r.Step.Verdict != Faster {
			if r.Step.Verdict == Insufficient {
				return 4
			}
			return 3
		}
	}
	return 0
}
