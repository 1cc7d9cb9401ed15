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
	return shapeOfMap(ShapeMap(b, g.Incident, opt), r, maxCauses)
}

// ShapeMap is the request-shape map ShapeOf gives an incident: the target
// service's LLM requests of b, the baseline against the window
// (shape.ForIncident; nil without LLM requests). It needs only the
// incident's target and times, so a caller may make it before the graph
// and the ranking are done (CollectMapped takes it).
func ShapeMap(b *ingest.Bundle, inc tcg.Incident, opt shape.Options) *shape.Map {
	return shape.ForIncident(b, inc.Target.Service, inc.BaselineStart, inc.WindowStart, inc.WindowEnd, opt)
}

// SameShapeMap reports whether ShapeMap gives a and b the same map on one
// bundle: their target and times are the same.
func SameShapeMap(a, b tcg.Incident) bool {
	return a.Target.Service == b.Target.Service && a.BaselineStart == b.BaselineStart && a.WindowStart == b.WindowStart && a.WindowEnd == b.WindowEnd
}

// shapeOfMap is ShapeOf with its map made (nil: no map).
func shapeOfMap(m *shape.Map, r *causal.Result, maxCauses int) *Shape {
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
