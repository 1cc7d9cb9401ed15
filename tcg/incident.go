package tcg

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// Target is what the incident is about: a service and a signal.
type Target struct {
	Service string
	Signal  ingest.SignalKind
	Stat    string // e.g. "p99", "" when unknown
}

// String renders "service:signal[:stat]".
func (t Target) String() string {
	s := t.Service + ":" + t.Signal.String()
	if t.Stat != "" {
		s += ":" + t.Stat
	}
	return s
}

// Incident is the resolved incident: target, time and windows, and how
// each was chosen (for the report).
type Incident struct {
	Target         Target
	At             ingest.Time
	WindowStart    ingest.Time
	WindowEnd      ingest.Time
	BaselineStart  ingest.Time
	TargetChosenBy string
	AtChosenBy     string
	// WindowChosenBy says why the window is not centred on At ("" when it
	// is): it reaches back to the target's onset (ExtendToOnset).
	WindowChosenBy string
	Alert          *ingest.Alert
}

// Options configure the graph. Zero fields take defaults.
type Options struct {
	Threshold     float64       // robust z for "anomalous" (default DefaultThreshold)
	LagWindow     time.Duration // how far propagation may lag (default DefaultLagSteps steps, at least DefaultMinLagWindow)
	MinConfidence float64       // edge confidence for state transitions (default DefaultMinConfidence)
	Alpha         float64       // DKW significance (default DefaultAlpha)
	MaxLagged     int           // most anomalous nodes considered for lagged-dependence edges (default DefaultMaxLagged)
	// ChangeHold is how long a deployment or configuration change counts
	// as recent on its service's change node (default DefaultChangeHold).
	ChangeHold time.Duration
	// RecurrenceShare is the share of an episode's deviation a baseline
	// sample must reach to count as the episode recurring: a series whose
	// baseline already spiked that far is scored by how often it does so in
	// the window against its baseline's rate (recurrenceCap). Default
	// DefaultRecurrenceShare; negative turns the cap off. Chosen
	// leave-one-set-out over the development sets (docs/accuracy.md).
	RecurrenceShare float64
	// Peers are the version model's constants (rollout contrasts).
	Peers peers.Params
	// OnsetLookback is the farthest the incident window's start moves back
	// to the target's onset (ExtendToOnset); default DefaultOnsetLookback,
	// negative: the window stays centred on the incident time.
	OnsetLookback time.Duration
	// MinOnsetReach is the least time before the window's start the
	// target's deviation must reach for ExtendToOnset to move the window;
	// default DefaultMinOnsetReach, negative: a sample is enough.
	MinOnsetReach time.Duration
}

// Defaults that the command line shows.
const (
	DefaultThreshold     = 3               // Options.Threshold
	DefaultMinConfidence = 0.75            // Options.MinConfidence
	DefaultWindow        = 5 * time.Minute // IncidentSpec.Window
	// DefaultRecurrenceShare is Options.RecurrenceShare's default.
	DefaultRecurrenceShare = 0.5
	// DefaultLagSteps and DefaultMinLagWindow make Options.LagWindow's
	// default: this many grid steps, and at least this long.
	DefaultLagSteps     = 3
	DefaultMinLagWindow = 2 * time.Minute
	DefaultAlpha        = 0.05             // Options.Alpha
	DefaultMaxLagged    = 60               // Options.MaxLagged
	DefaultChangeHold   = 10 * time.Minute // Options.ChangeHold
)

// The calls-per-request series' constants (callsSeries): the least calls
// to a dependency over the baseline for its rate per request to be known,
// and the least share of the baseline's cells in which both counts are.
const (
	callsMinBaseline  = 20
	callsMinCellShare = 0.5
)

func (o Options) withDefaults(step time.Duration) Options {
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.LagWindow <= 0 {
		o.LagWindow = max(DefaultLagSteps*step, DefaultMinLagWindow)
	}
	if o.MinConfidence <= 0 {
		o.MinConfidence = DefaultMinConfidence
	}
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.RecurrenceShare == 0 {
		o.RecurrenceShare = DefaultRecurrenceShare
	}
	if o.MaxLagged <= 0 {
		o.MaxLagged = DefaultMaxLagged
	}
	if o.ChangeHold <= 0 {
		o.ChangeHold = DefaultChangeHold
	}
	o.Peers = o.Peers.WithDefaults()
	if o.OnsetLookback == 0 {
		o.OnsetLookback = DefaultOnsetLookback
	}
	if o.MinOnsetReach == 0 {
		o.MinOnsetReach = DefaultMinOnsetReach
	}
	return o
}

// MinWindowSteps is the fewest grid steps an incident window spans; a
// shorter --window is widened to it.
const MinWindowSteps = 4

// MinStepsAfter is the fewest samples the incident window holds from the
// incident time on: an alert says the target is bad from then, and on
// coarse data (5-minute periods) a window centred on it holds one or two
// samples of what followed — a fault that shows a sample later would fall
// outside. The window's end reaches MinStepsAfter steps after --at when
// half the window is shorter (never past the data).
const MinStepsAfter = 3

// IncidentSpec is what the user asked for; zero fields are resolved from
// the data (alert, largest anomaly, entry service).
type IncidentSpec struct {
	At       ingest.Time
	AtSource string // how At was given, e.g. "--at flag"
	Window   time.Duration
	Baseline time.Duration // 0 = all data before the window
	Target   Target        // Service "" = from the alert or the entry service
}

// ResolveIncident fills the incident's target and times: flags first, then
// the firing alert, then the data (the busiest entry service's latency and
// the time of its largest deviation).
func ResolveIncident(b *ingest.Bundle, spec IncidentSpec) (Incident, error) {
	inc := Incident{Target: spec.Target}
	if spec.Window <= 0 {
		spec.Window = DefaultWindow
	}
	var alert *ingest.Alert
	firing := 0
	for i := range b.Alerts {
		a := &b.Alerts[i]
		if a.Status != "" && a.Status != "firing" {
			continue
		}
		firing++
		if alert == nil || a.StartsAt < alert.StartsAt {
			alert = a
		}
	}
	inc.Alert = alert
	which := "" // says which alert of several was followed, never silently
	if firing > 1 {
		which = fmt.Sprintf("; the earliest of %d firing alerts", firing)
	}
	if inc.Target.Service == "" {
		switch {
		case alert != nil && alert.Service != "":
			inc.Target.Service = alert.Service
			if inc.Target.Signal == ingest.SignalOther {
				inc.Target.Signal = alert.Signal
				inc.Target.Stat = alert.Stat
			}
			inc.TargetChosenBy = fmt.Sprintf("alert %s (%s%s)", alert.Name, alert.Source, which)
		default:
			inc.Target.Service = entryService(b)
			inc.TargetChosenBy = "entry service with the most traced requests"
			if inc.Target.Service == "" {
				return inc, fmt.Errorf("no target: give --target SERVICE[:SIGNAL], or an alert or traces to infer it from")
			}
		}
	} else {
		inc.TargetChosenBy = "--target flag"
	}
	if inc.Target.Signal == ingest.SignalOther {
		inc.Target.Signal = ingest.SignalLatency
	}
	switch {
	case spec.At != 0:
		inc.At = spec.At
		inc.AtChosenBy = spec.AtSource
		if inc.AtChosenBy == "" {
			inc.AtChosenBy = "--at flag"
		}
	case alert != nil && alert.StartsAt != 0:
		inc.At = alert.StartsAt
		inc.AtChosenBy = fmt.Sprintf("startsAt of alert %s (%s%s)", alert.Name, alert.Source, which)
	default:
		inc.At = largestDeviation(b, inc.Target, spec.Window)
		inc.AtChosenBy = "largest deviation of the target in the data"
	}
	if inc.At == 0 {
		return inc, fmt.Errorf("no incident time: give --at TIME")
	}
	// A window of fewer than MinWindowSteps grid steps cannot show an
	// onset and a sustained deviation: coarse data (5-minute CloudWatch
	// periods) widens it.
	if b.Step > 0 && spec.Window < MinWindowSteps*b.Step {
		spec.Window = MinWindowSteps * b.Step
	}
	half := ingest.Time(spec.Window / 2)
	inc.WindowStart, inc.WindowEnd = inc.At-half, inc.At+half
	if after := ingest.Time(MinStepsAfter * b.Step); b.Step > 0 && half < after {
		inc.WindowEnd = inc.At + after
	}
	// A window wholly outside the data has nothing to explain; clamping it
	// to the data would turn it inside out (an end before its start).
	if b.End != 0 && (inc.WindowStart > b.End || inc.WindowEnd < b.Start) {
		return inc, fmt.Errorf("the incident window %v → %v (at %v, %s) lies outside the data (%v → %v): give an --at inside the data",
			inc.WindowStart, inc.WindowEnd, inc.At, inc.AtChosenBy, b.Start, b.End)
	}
	if b.End != 0 && inc.WindowEnd > b.End {
		inc.WindowEnd = b.End
	}
	inc.BaselineStart = b.Start
	if spec.Baseline > 0 && inc.WindowStart-ingest.Time(spec.Baseline) > b.Start {
		inc.BaselineStart = inc.WindowStart - ingest.Time(spec.Baseline)
	}
	if inc.BaselineStart > inc.WindowStart {
		// The window starts before the data: the baseline is empty (it
		// ends where the window starts), never one that ends before it starts.
		inc.BaselineStart = inc.WindowStart
	}
	return inc, nil
}

// entryService is the service with the most root spans.
func entryService(b *ingest.Bundle) string {
	roots := map[ingest.Sym]int{}
	for i := range b.Spans {
		if b.Spans[i].ParentID == 0 {
			roots[b.Spans[i].Service]++
		}
	}
	count := make(map[string]int, len(roots))
	for s, n := range roots {
		count[s.String()] = n
	}
	best, bc := "", 0
	names := make([]string, 0, len(count))
	for s := range count {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		if count[s] > bc {
			best, bc = s, count[s]
		}
	}
	return best
}

// largestDeviation finds when the target's latency deviates most from its
// running median (the middle of the worst window).
func largestDeviation(b *ingest.Bundle, t Target, window time.Duration) ingest.Time {
	var best *ingest.Series
	for _, s := range b.Series {
		if s.Aligned && s.Entity.Kind == ingest.KindService && s.Entity.Name == t.Service && s.Signal == t.Signal {
			if best == nil || (s.Stat == "p90" && best.Stat != "p90") {
				best = s
			}
		}
	}
	if best == nil || len(best.V) == 0 {
		if len(b.Grid) > 0 {
			return b.Grid[len(b.Grid)-1]
		}
		return b.End
	}
	med, scale, _ := robust(best.V, 0)
	bi, bv := -1, math.Inf(-1)
	for i, v := range best.V {
		if !math.IsNaN(v) && (v-med)/scale > bv {
			bi, bv = i, (v-med)/scale
		}
	}
	if bi < 0 {
		return b.End
	}
	return best.T[bi]
}
