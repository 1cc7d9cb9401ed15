package analysis

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Ranked is one run of the pipeline's incident-time stages on a bundle:
// the resolved incident (its window reaching back to the target's onset
// where it moved), the graph and the ranked causes.
type Ranked struct {
	Incident tcg.Incident
	// Bundle is the incident window's view of the bundle read: the same
	// data with the window's derived series (log templates against the
	// incident's baseline, per-request patterns) and pattern evidence. The
	// bundle passed in is left as it was (features.ForWindow), so a caller that
	// reuses it — compare's sides, eval's methods — sees what was read.
	Bundle *ingest.Bundle
	Graph  *tcg.Graph
	Result *causal.Result
	Notes  []string // what the card should say about the target's series
	// shape is the request-shape map being made beside the graph and the
	// ranking (analyzeIncidentWith with shape options); nil otherwise.
	shape *pendingShape
}

// pendingShape is evidence.ShapeMap of a bundle over an incident, made on
// another goroutine while the graph is built and the causes ranked (the
// map needs only the incident's target and times; at a million spans it
// is a fifth of a second that the ranking's core would otherwise add).
type pendingShape struct {
	b    *ingest.Bundle
	inc  tcg.Incident
	opt  shape.Options
	done parallel.Group
	m    *shape.Map
}

// startShape starts making evidence.ShapeMap(b, inc, opt).
func startShape(b *ingest.Bundle, inc tcg.Incident, opt shape.Options) *pendingShape {
	p := &pendingShape{b: b, inc: inc, opt: opt}
	p.done.Go(func() { p.m = evidence.ShapeMap(b, inc, opt) })
	return p
}

// mapFor waits for the map and returns it with ok when it is the one
// evidence.ShapeMap gives b over inc with opt: the same bundle, target
// and times. A panic of the map's goroutine is raised here.
func (p *pendingShape) mapFor(b *ingest.Bundle, inc tcg.Incident, opt shape.Options) (*shape.Map, bool) {
	if p == nil {
		return nil, false
	}
	p.done.Wait()
	if p.b != b || !evidence.SameShapeMap(p.inc, inc) || !reflect.DeepEqual(p.opt, opt) {
		return nil, false
	}
	return p.m, true
}

// AnalyzeBundle resolves the incident (at resolved against the end of the
// data), builds the graph and ranks causes: what eval and compare's
// BEFORE side run.
func AnalyzeBundle(b *ingest.Bundle, spec tcg.IncidentSpec, at TimeSpec, topt tcg.Options, copt causal.Options) (*Ranked, error) {
	inc, err := ResolveIncident(b, spec, at)
	if err != nil {
		return nil, err
	}
	return AnalyzeIncident(b, inc, topt, copt)
}

// ResolveIncident fills the incident's target and times (tcg.ResolveIncident)
// with at resolved against the end of the data.
func ResolveIncident(b *ingest.Bundle, spec tcg.IncidentSpec, at TimeSpec) (tcg.Incident, error) {
	spec.At = at.Resolve(b.End)
	return tcg.ResolveIncident(b, spec)
}

// AnalyzeIncident builds the graph of a resolved incident and ranks causes.
// The target's series is the alert's own when the target came from an
// alert that says which (pickSeries).
func AnalyzeIncident(b *ingest.Bundle, inc tcg.Incident, topt tcg.Options, copt causal.Options) (*Ranked, error) {
	return analyzeIncidentWith(b, inc, topt, copt, nil, nil)
}

// analyzeIncidentWith is AnalyzeIncident with the target's series chosen
// by want (--target's words) instead of the alert, when want is not nil;
// with shapeOpt, the evidence's request-shape map is made meanwhile
// (Ranked.shape).
func analyzeIncidentWith(read *ingest.Bundle, inc tcg.Incident, topt tcg.Options, copt causal.Options, want *seriesWanted, shapeOpt *shape.Options) (_ *Ranked, err error) {
	// The window's values: log templates new, missing or shifted relative
	// to the incident's own baseline, known only now, and what each
	// request does where its log records join its spans. read is not
	// changed (features.ForWindow).
	b := features.ForWindow(read, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, features.Options{}).View(read)
	var pending *pendingShape
	if shapeOpt != nil {
		pending = startShape(b, inc, *shapeOpt)
		defer func() {
			if err != nil { // no caller waits for it: its panic is raised here
				pending.done.Wait()
			}
		}()
	}
	g, err := tcg.Build(b, inc, topt)
	if err != nil {
		return nil, err
	}
	// A target already off at the window's start: the window reaches back
	// to its onset, and everything that depends on the window is redone.
	if ext, ok := tcg.ExtendToOnset(g, topt); ok {
		inc = ext
		b = features.ForWindow(read, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, features.Options{}).View(read)
		if shapeOpt != nil {
			pending.done.Wait() // the old window's map: not wanted
			pending = startShape(b, inc, *shapeOpt)
		}
		if g, err = tcg.Build(b, inc, topt); err != nil {
			return nil, err
		}
	}
	var notes []string
	switch {
	case want != nil:
		notes = append(notes, pickSeries(g, *want))
	case strings.HasPrefix(inc.TargetChosenBy, "alert "):
		if w, ok := alertWanted(inc.Alert); ok {
			notes = append(notes, pickSeries(g, w))
		}
	}
	notes = slices.DeleteFunc(notes, func(s string) bool { return s == "" })
	res, err := causal.Analyze(g, b, copt)
	if err != nil {
		return nil, err
	}
	return &Ranked{Incident: inc, Bundle: b, Graph: g, Result: res, Notes: notes, shape: pending}, nil
}

// RelabelInputs shows a temporary directory's paths (the demo's, or a live
// fetch's without --save-bundle) as prefix/<file>, so reports do not carry
// random paths and the demo's report is the same on every run.
func RelabelInputs(b *ingest.Bundle, dir, prefix string) {
	b.RelabelSources(func(s string) string {
		if rel, err := filepath.Rel(dir, s); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(filepath.Join(prefix, rel))
		}
		return s
	})
}
