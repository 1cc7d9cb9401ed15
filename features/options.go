package features

// Options configure the features stage. The zero value is the default: a
// zero field takes the value of the parameter table in doc.go, where each
// value has its reason. A negative or NaN field is taken as zero.
type Options struct {
	// MaxMixOps is how many operations per service the operation mix
	// follows; rarer ones are pooled (routes with IDs in them). 0: 20.
	MaxMixOps int
	// MinMixSpans is the fewest spans (log records, for the template mix)
	// a step needs for its mix to be scored. 0: 5.
	MinMixSpans int
	// MaxMixTemplates is how many templates per entity the log template mix
	// follows; rarer ones are pooled. 0: 20.
	MaxMixTemplates int
	// ReferenceShare is the share of the grid that the log series Derive
	// derives take as their reference period, before the incident is known
	// (DeriveLogSeries takes the incident's baseline). 0: 0.6.
	ReferenceShare float64
	// SteadyShare is the least share of reference steps a template must
	// appear in to be steady, so that its absence counts
	// (log_missing_templates). 0: 0.5.
	SteadyShare float64
	// MinSteadySteps is the fewest reference steps for steadiness to be
	// judged. 0: 3.
	MinSteadySteps int
	// MinPatternBaseline is the fewest baseline transitions from an
	// (operation, event) pair for its pattern to be tested. 0: 5.
	MinPatternBaseline int
	// MinPatternWindow is the fewest window transitions from a pair for it
	// to be tested. 0: 3.
	MinPatternWindow int
}

// The defaults of Options (the table in doc.go).
const (
	defaultMaxMixOps          = 20
	defaultMinMixSpans        = 5
	defaultMaxMixTemplates    = 20
	defaultReferenceShare     = 0.6
	defaultSteadyShare        = 0.5
	defaultMinSteadySteps     = 3
	defaultMinPatternBaseline = 5
	defaultMinPatternWindow   = 3
)

// DefaultOptions returns the stage's defaults with every field set: what
// the zero Options means.
func DefaultOptions() Options { return Options{}.withDefaults() }

// withDefaults returns o with every zero (or negative, or NaN) field set
// to its default.
func (o Options) withDefaults() Options {
	or := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	orf := func(v *float64, d float64) {
		if !(*v > 0) {
			*v = d
		}
	}
	or(&o.MaxMixOps, defaultMaxMixOps)
	or(&o.MinMixSpans, defaultMinMixSpans)
	or(&o.MaxMixTemplates, defaultMaxMixTemplates)
	orf(&o.ReferenceShare, defaultReferenceShare)
	orf(&o.SteadyShare, defaultSteadyShare)
	or(&o.MinSteadySteps, defaultMinSteadySteps)
	or(&o.MinPatternBaseline, defaultMinPatternBaseline)
	or(&o.MinPatternWindow, defaultMinPatternWindow)
	return o
}
