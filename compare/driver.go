package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// WindowSpec is what the user asked for the two windows; zero fields are
// resolved from the data.
type WindowSpec struct {
	BeforeAt, AfterAt             ingest.Time // window centres; zero: resolved (see ResolveSides)
	BeforeAtSource, AfterAtSource string      // how each was given, e.g. "--before-at 2026-11-30T03:12:00Z"
	Window                        time.Duration
	Baseline                      time.Duration
	Target                        tcg.Target // Service "" = from BEFORE's alert, else its busiest entry service
}

// ResolveSides places the two windows of length Window. BEFORE's is
// resolved as the main analysis resolves its incident (tcg.ResolveIncident:
// BeforeAt, else the firing alert's startsAt, else the target's largest
// deviation), which also gives the target. AFTER's is centred on AfterAt,
// or else is the last Window of AFTER's data. The incident is returned for
// the BEFORE side's analysis.
func ResolveSides(before, after *ingest.Bundle, ws WindowSpec) (Side, Side, tcg.Incident, error) {
	if ws.Window <= 0 {
		ws.Window = tcg.DefaultWindow
	}
	inc, err := tcg.ResolveIncident(before, tcg.IncidentSpec{At: ws.BeforeAt, AtSource: ws.BeforeAtSource,
		Window: ws.Window, Baseline: ws.Baseline, Target: ws.Target})
	if err != nil {
		return Side{}, Side{}, inc, fmt.Errorf("BEFORE: %w", err)
	}
	half := ws.Window / 2
	b := Side{Bundle: before, Start: inc.At.Add(-half), End: inc.At.Add(ws.Window - half), ChosenBy: inc.AtChosenBy}
	var a Side
	if ws.AfterAt != 0 {
		src := ws.AfterAtSource
		if src == "" {
			src = "--after-at"
		}
		a = Side{Bundle: after, Start: ws.AfterAt.Add(-half), End: ws.AfterAt.Add(ws.Window - half), ChosenBy: src}
	} else {
		if after.End == 0 {
			return Side{}, Side{}, inc, errors.New("AFTER holds no timed data")
		}
		end := after.End.Add(time.Nanosecond)
		a = Side{Bundle: after, Start: end.Add(-ws.Window), End: end, ChosenBy: "the last " + fmtDur(ws.Window) + " of AFTER's data"}
	}
	return b, a, inc, nil
}

// scorecardJSON is the part of a scorecard's JSON (docs/scorecard.schema.json)
// that names its causes.
type scorecardJSON struct {
	SchemaVersion string `json:"schema_version"`
	Causes        []struct {
		Rank          int    `json:"rank"`
		Service       string `json:"service"`
		Component     string `json:"component"`
		ComponentKind string `json:"component_kind"`
		Via           string `json:"via"`
		Signal        string `json:"signal"`
	} `json:"causes"`
}

// CausesFromScorecard reads the first n causes of a scorecard saved with
// `pipeline-analyze -o json`: a regular file of at most maxBytes (the
// --max-document-size limit; ≤ 0 means no limit).
func CausesFromScorecard(path string, n int, maxBytes int64) ([]Cause, error) {
	data, err := boundedfile.ReadFile(path, maxBytes, "--max-document-size")
	if err != nil {
		return nil, fmt.Errorf("read scorecard: %w", err)
	}
	var sc scorecardJSON
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("read scorecard %s: %w", path, err)
	}
	if sc.SchemaVersion == "" {
		return nil, fmt.Errorf("read scorecard %s: no schema_version: not a pipeline-analyze -o json scorecard", path)
	}
	var out []Cause
	for i, c := range sc.Causes {
		if i >= n {
			break
		}
		rank := c.Rank
		if rank == 0 {
			rank = i + 1
		}
		kind, comp := measuredOn(c.ComponentKind, c.Component, c.Via)
		out = append(out, Cause{Rank: rank, Service: c.Service, Component: comp, ComponentKind: kind, Signal: c.Signal})
	}
	return out, nil
}

// Gate names for FailOn.
const (
	GateNever     = "never"
	GateRegressed = "regressed"
	GateUnchanged = "unchanged"
)

// FailOn returns the exit status a CI gate should take for the report:
// GateRegressed trips (3) when the target or any item regressed;
// GateUnchanged also trips unless the target is fixed or improved; either
// returns 4 when the target's verdict is insufficient data; GateNever is 0.
func FailOn(r *model.Report, gate string) int {
	switch gate {
	case GateRegressed, GateUnchanged:
	default:
		return 0
	}
	if r.Verdict.Regressions > 0 || r.Verdict.Verdict == model.Regressed {
		return model.ExitGate
	}
	if r.Verdict.Verdict == model.Insufficient {
		return model.ExitUndetermined
	}
	if gate == GateUnchanged && r.Verdict.Verdict != model.Fixed && r.Verdict.Verdict != model.Improved {
		return model.ExitGate
	}
	return 0
}
