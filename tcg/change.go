package tcg

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// ChangeSeries is the name of the series a service's change node is made
// of: 1 on every grid cell within hold after a deployment or configuration
// change of the service (or one of its pods), else 0.
const ChangeSeries = "change_events_recent"

// changeSeries turns change-like events (rollouts, scaling, configuration
// updates) into one step series per service on the grid. A change is a new
// mechanism by definition; as a series it is judged like any other signal:
// a service that changes routinely (in the baseline too) is not anomalous
// for changing again. A change made after the incident's time (at, 0 for
// none) cannot have caused it and has no step. A service whose rollout the version model judges
// (skip: its new pods compared with its old ones, rolloutNodes) has none:
// those contrasts say what its change did. O(events · log events +
// services · grid).
func changeSeries(b *ingest.Bundle, hold time.Duration, skip map[string]bool, at ingest.Time) []*ingest.Series {
	if len(b.Grid) == 0 {
		return nil
	}
	times := map[string][]ingest.Time{}
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() || at != 0 && e.Time > at {
			continue // not a change, or one made after the incident began
		}
		svc := e.Entity.Service
		if svc == "" && e.Entity.Kind == ingest.KindService {
			svc = e.Entity.Name
		}
		if svc == "" || skip[svc] {
			continue
		}
		times[svc] = append(times[svc], e.Time)
	}
	out := make([]*ingest.Series, 0, len(times))
	for _, svc := range slices.Sorted(maps.Keys(times)) {
		ts := times[svc]
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		v := make([]float64, len(b.Grid))
		k := 0
		for i, t := range b.Grid {
			for k < len(ts) && ts[k] <= t-ingest.Time(hold) {
				k++
			}
			// any change in (t − hold, t]: ts is sorted, so the first
			// change after t − hold decides
			if k < len(ts) && ts[k] <= t {
				v[i] = 1
			}
		}
		out = append(out, &ingest.Series{Name: ChangeSeries, Entity: ingest.Entity{Kind: ingest.KindService, Name: svc, Service: svc},
			Signal: ingest.SignalChange, Stat: "count", Source: "derived:events", T: b.Grid, V: v, Aligned: true})
	}
	return out
}
