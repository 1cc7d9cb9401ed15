package model

// CountInto fills the counts and time range of in from the part's content.
func (b *Bundle) CountInto(in *Input) {
	c := &in.Counts
	c.Spans = len(b.Spans)
	c.Series = len(b.Series)
	c.Events = len(b.Events)
	c.Alerts = len(b.Alerts)
	c.Dependencies = len(b.Deps)
	traces := map[TraceID]struct{}{}
	services := map[string]struct{}{}
	span := func(t Time) {
		if t == 0 {
			return
		}
		if in.Start == 0 || t < in.Start {
			in.Start = t
		}
		if t > in.End {
			in.End = t
		}
	}
	spanServices := map[Sym]struct{}{}
	for i := range b.Spans {
		s := &b.Spans[i]
		// A reader's spans come trace by trace (and a trace's spans often
		// from one service): a key equal to the last span's is in the map
		// already, so only a change is looked up.
		if i == 0 || s.TraceID != b.Spans[i-1].TraceID {
			traces[s.TraceID] = struct{}{}
		}
		if i == 0 || s.Service != b.Spans[i-1].Service {
			spanServices[s.Service] = struct{}{}
		}
		span(s.Start)
		span(s.End())
	}
	for s := range spanServices {
		services[s.String()] = struct{}{}
	}
	for _, s := range b.Series {
		c.Points += len(s.T)
		if len(s.T) > 0 {
			span(s.T[0])
			span(s.T[len(s.T)-1])
		}
		if s.Entity.Service != "" {
			services[s.Entity.Service] = struct{}{}
		}
	}
	for _, e := range b.Events {
		span(e.Time)
	}
	for _, a := range b.Alerts {
		span(a.StartsAt)
	}
	c.Logs = len(b.Logs)
	for i := range b.Logs {
		span(b.Logs[i].Time)
	}
	for i := range b.LogStreams {
		if e := b.LogStreams[i].Entity(); e.Service != "" {
			services[e.Service] = struct{}{}
		}
	}
	c.Traces = len(traces)
	c.Services = len(services)
}
