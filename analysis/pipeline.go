package analysis

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
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
	return analyzeIncidentWith(b, inc, topt, copt, nil)
}

// analyzeIncidentWith is AnalyzeIncident with the target's series chosen
// by want (--target's words) instead of the alert, when want is not nil.
func analyzeIncidentWith(read *ingest.Bundle, inc tcg.Incident, topt tcg.Options, copt causal.Options, want *seriesWanted) (*Ranked, error) {
	// The window's values: log templates new, missing or shifted relative
	// to the incident's own baseline, known only now, and what each
	// request does where its log records join its spans. read is not
	// changed (features.ForWindow).
	b := features.ForWindow(read, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, features.Options{}).View(read)
	g, err := tcg.Build(b, inc, topt)
	if err != nil {
		return nil, err
	}
	// A target already off at the window's start: the window reaches back
	// to its onset, and everything that depends on the window is redone.
	if ext, ok := tcg.ExtendToOnset(g, topt); ok {
		inc = ext
		b = features.ForWindow(read, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, features.Options{}).View(read)
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
	return &Ranked{Incident: inc, Bundle: b, Graph: g, Result: res, Notes: notes}, nil
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
