package evidence

import (
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Shape is the tail latency by request shape of the target's LLM requests
// (package shape: the baseline against the incident window) and what its
// reading says of each shown cause, by the rule of physics of the cause's
// kind of signal (shape.Reading.Bears).
type Shape struct {
	Map *shape.Map
	// Bearings are the causes the reading supports or contradicts, in rank
	// order (neutral ones left out).
	Bearings []ShapeBearing
}

// ShapeBearing is what the reading says of one cause.
type ShapeBearing struct {
	Cause   int // index in the result's Candidates
	Bearing shape.Bearing
	Why     string
}

// ShapeOf maps the target's LLM requests over the incident when the data
// holds their shapes (spans with token counts, else request-size
// histograms); nil otherwise. It is made for a target that is an LLM
// latency, and kept for any other target of an LLM-serving incident (an
// error-ratio alert on the gateway): which shapes slowed is evidence there
// too. maxCauses bounds the causes given a bearing.
func ShapeOf(b *ingest.Bundle, g *tcg.Graph, r *causal.Result, opt shape.Options, maxCauses int) *Shape {
	inc := g.Incident
	m := shape.ForIncident(b, inc.Target.Service, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, opt)
	if m == nil {
		return nil
	}
	s := &Shape{Map: m}
	for i, c := range r.Candidates[:min(maxCauses, len(r.Candidates))] {
		if be, why := m.Reading.Bears(c.Signal); be != shape.Neutral {
			s.Bearings = append(s.Bearings, ShapeBearing{Cause: i, Bearing: be, Why: why})
		}
	}
	return s
}
