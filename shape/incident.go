package shape

import "github.com/pipeline-analyze/pipeline-analyze/ingest"

// ForIncident maps the LLM requests of b over an incident: the baseline's
// requests, [baselineStart, windowStart), against the window's,
// [windowStart, windowEnd]. The requests are those FindSource picks for
// the target service. Nil when b has no LLM requests to map (no span with
// a token count, no request-size histogram) or too few.
func ForIncident(b *ingest.Bundle, target string, baselineStart, windowStart, windowEnd ingest.Time, opt Options) *Map {
	opt = opt.WithDefaults()
	src, ok := FindSource(b, target, opt.MinRequests)
	if !ok {
		return nil
	}
	base := src.Collect(b, baselineStart, windowStart)
	win := src.Collect(b, windowStart, windowEnd+1)
	return Between(&src, base, win, opt)
}

// Between builds the map of two samples of one source (nil when they hold
// fewer than opt.MinRequests requests together).
func Between(src *Source, base, win *Sample, opt Options) *Map {
	opt = opt.WithDefaults()
	if base.Len()+win.Len() < opt.MinRequests {
		return nil
	}
	m := Build(base, win, opt)
	m.Service, m.Operation, m.Source = src.Service, src.Operation, src.Describe()
	return m
}
