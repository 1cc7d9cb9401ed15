package scorecard

// Gates of --fail-on: which card should make a CI job fail (the command
// exits 3 when GateTripped).
const (
	GateNever    = "never"    // never trips
	GateWarning  = "warning"  // a warning or critical cause
	GateCritical = "critical" // a critical cause
	GateAbstain  = "abstain"  // a critical cause, or no confident cause (the card abstains)
)

// GateTripped reports whether the card trips the gate: a cause reaches its
// severity, or (GateAbstain) the card abstains, so that an incident with
// no confident cause still pages. An unknown gate never trips.
func GateTripped(c *Card, gate string) bool {
	if gate == GateNever {
		return false
	}
	if gate == GateAbstain && !c.Verdict.Confident {
		return true // an incident whose card abstains still pages
	}
	for _, cause := range c.Causes {
		switch {
		case cause.Severity == SeverityCritical:
			return true
		case gate == GateWarning && cause.Severity == SeverityWarning:
			return true
		}
	}
	return false
}
