package model

import (
	"errors"
	"fmt"
	"math"
)

// maxValidateProblems bounds how many problems Validate reports per check, so
// that a badly broken bundle of millions of spans yields a readable error.
const maxValidateProblems = 8

// Validate checks the invariants Finalize establishes and later stages rely
// on, and returns every problem found joined with errors.Join (nil when the
// bundle is valid). Like pprof's CheckValid it is meant for tests, fuzzing
// and debugging: the readers never hand out a bundle that fails it.
//
// Checked: spans sorted by (start, trace, span) with unique (trace, span)
// IDs and non-negative durations; series non-nil with len(T) == len(V), T
// strictly increasing, no ±Inf in V, and aligned series on the grid; the
// grid strictly increasing by Step from a multiple of Step; Start <= End;
// entities well-formed (known kind, non-empty name), sorted and unique;
// events and warnings with a kind and a positive count; dependencies with
// both ends named and a non-negative call count; log records sorted by
// time with valid stream, template and severity, templates sorted by
// (group, pattern) and unique. O(spans + points + log records).
// Its length is the list of invariants, checked in order and collected
// with errors.Join; it reads as the checklist above.
func (b *Bundle) Validate() error {
	var errs []error
	counts := map[string]int{}
	bad := func(check string, format string, args ...any) {
		counts[check]++
		if counts[check] <= maxValidateProblems {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{check}, args...)...))
		}
	}

	// Spans.
	seen := make(map[SpanKey]int, len(b.Spans))
	for i := range b.Spans {
		s := &b.Spans[i]
		if i > 0 && spanLess(s, &b.Spans[i-1]) {
			bad("spans", "span %d (%v/%v) sorts before span %d", i, s.TraceID, s.SpanID, i-1)
		}
		k := SpanKey{s.TraceID, s.SpanID}
		if j, ok := seen[k]; ok {
			bad("spans", "span %d repeats the ID %v/%v of span %d", i, s.TraceID, s.SpanID, j)
		} else {
			seen[k] = i
		}
		if s.Duration < 0 {
			bad("spans", "span %d (%v/%v) has negative duration %v", i, s.TraceID, s.SpanID, s.Duration)
		}
		if s.Kind > SpanConsumer {
			bad("spans", "span %d has unknown kind %d", i, s.Kind)
		}
	}

	// Grid.
	if len(b.Grid) > 0 {
		if b.Step <= 0 {
			bad("grid", "grid of %d points with step %v", len(b.Grid), b.Step)
		} else {
			if int64(b.Grid[0])%int64(b.Step) != 0 {
				bad("grid", "grid starts at %d, not a multiple of step %v", b.Grid[0], b.Step)
			}
			for i := 1; i < len(b.Grid); i++ {
				if b.Grid[i]-b.Grid[i-1] != Time(b.Step) {
					bad("grid", "grid point %d is %v after point %d, want step %v", i, b.Grid[i].Sub(b.Grid[i-1]), i-1, b.Step)
					break
				}
			}
		}
	}
	if b.Start > b.End {
		bad("window", "start %d after end %d", b.Start, b.End)
	}

	// Series.
	for i, s := range b.Series {
		if s == nil {
			bad("series", "series %d is nil", i)
			continue
		}
		if len(s.T) != len(s.V) {
			bad("series", "series %q has %d times and %d values", s.Key(), len(s.T), len(s.V))
			continue
		}
		for j := 1; j < len(s.T); j++ {
			if s.T[j] <= s.T[j-1] {
				bad("series", "series %q: time %d (%d) not after time %d (%d)", s.Key(), j, s.T[j], j-1, s.T[j-1])
				break
			}
		}
		for j, v := range s.V {
			if math.IsInf(v, 0) {
				bad("series", "series %q: value %d is %v", s.Key(), j, v)
				break
			}
		}
		if s.Aligned && len(s.T) != len(b.Grid) {
			bad("series", "series %q is marked aligned but has %d points on a grid of %d", s.Key(), len(s.T), len(b.Grid))
		}
		if s.Signal >= numSignalKinds {
			bad("series", "series %q has unknown signal %d", s.Key(), s.Signal)
		}
	}

	// Entities.
	for i, e := range b.Entities {
		if e.Kind == KindUnknown || e.Kind > KindEdge || e.Name == "" {
			bad("entities", "entity %d (%s) is malformed: kind %v, name %q", i, e.ID(), e.Kind, e.Name)
		}
		if i > 0 && e.ID() <= b.Entities[i-1].ID() {
			bad("entities", "entity %q not after %q (unsorted or duplicate)", e.ID(), b.Entities[i-1].ID())
		}
	}

	// Events, dependencies, warnings, inputs.
	for i, e := range b.Events {
		if e.Kind > EventWarning {
			bad("events", "event %d has unknown kind %d", i, e.Kind)
		}
		if e.Count < 0 {
			bad("events", "event %d has negative count %d", i, e.Count)
		}
	}
	for i, d := range b.Deps {
		if d.Parent == "" || d.Child == "" || d.CallCount < 0 {
			bad("dependencies", "dependency %d %q->%q with call count %d", i, d.Parent, d.Child, d.CallCount)
		}
	}
	for i, w := range b.Warnings {
		if w.Kind == nil || w.Count < 1 {
			bad("warnings", "warning %d (%q) has kind %v and count %d", i, w.Message, w.Kind, w.Count)
		}
	}
	for i, in := range b.Inputs {
		if in.Path == "" {
			bad("inputs", "input %d has no path", i)
		}
	}

	for _, check := range []string{"spans", "grid", "window", "series", "entities", "events", "dependencies", "warnings", "inputs"} {
		if n := counts[check]; n > maxValidateProblems {
			errs = append(errs, fmt.Errorf("%s: %d more problems", check, n-maxValidateProblems))
		}
	}
	// Logs.
	for i := range b.Logs {
		r := &b.Logs[i]
		if i > 0 && r.Time < b.Logs[i-1].Time {
			bad("logs", "record %d at %v sorts before record %d", i, r.Time, i-1)
		}
		if r.Stream < 0 || int(r.Stream) >= len(b.LogStreams) {
			bad("logs", "record %d names stream %d of %d", i, r.Stream, len(b.LogStreams))
		}
		if r.Template < 0 || int(r.Template) >= len(b.LogTemplates) {
			bad("logs", "record %d names template %d of %d", i, r.Template, len(b.LogTemplates))
		}
		if r.Severity >= numSeverities {
			bad("logs", "record %d has unknown severity %d", i, r.Severity)
		}
	}
	for i := 1; i < len(b.LogTemplates); i++ {
		x, y := &b.LogTemplates[i-1], &b.LogTemplates[i]
		if x.Group > y.Group || x.Group == y.Group && x.Pattern >= y.Pattern {
			bad("logs", "templates %d and %d are not sorted by (group, pattern) or repeat one", i-1, i)
		}
	}
	return errors.Join(errs...)
}

// spanLess is the span order Finalize establishes: start, trace ID, span ID.
func spanLess(x, y *Span) bool {
	if x.Start != y.Start {
		return x.Start < y.Start
	}
	if x.TraceID != y.TraceID {
		if x.TraceID.High != y.TraceID.High {
			return x.TraceID.High < y.TraceID.High
		}
		return x.TraceID.Low < y.TraceID.Low
	}
	return x.SpanID < y.SpanID
}
