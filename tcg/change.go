package tcg

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
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

// Change is one change of a service the graph knows of: a rollout, a
// configuration update, a scaling, a change record — every change-like
// event up to the incident window's end, events of one service less than
// the change hold apart merged into one change, and every rollout of the
// version model. It is what the ranking judges by its timing against the
// symptom's onset and what the card lists under "what changed".
type Change struct {
	Service string
	// At is the change's first event (a rollout's first step); Last its
	// last.
	At, Last ingest.Time
	// What says what changed in a few words: "rollout to cart-v2
	// (ReplicaSet cart-v2-654dc5db66)", "ScalingReplicaSet: Scaled up …".
	What string
	// Events counts the events merged into the change.
	Events int
	// Rollout is the rollout's entity name (package peers) when the
	// version model knows the change as a rollout, "" otherwise.
	Rollout string
	// Workload is the rollout's workload (its Deployment) when the version
	// model knows it, "" otherwise: what one rolls back, where Rollout may
	// name the new ReplicaSet.
	Workload string
	// Node is the service's change node (-1 when the graph has none).
	Node int
	// Judged is the change's rollout nodes (its new pods against its old
	// ones), empty when none was compared.
	Judged []int
	// After is set for a change made after the incident's time: it cannot
	// have caused what the alert saw.
	After bool
}

// ChangeLookback is how far before the incident window the graph looks for
// changes (events, change records, workload snapshots' revisions).
const ChangeLookback = 24 * time.Hour

// collectChanges lists the graph's changes (see Change), oldest first.
// O(events · log events + rollouts + nodes).
func (g *Graph) collectChanges(b *ingest.Bundle, m *peers.Model, hold time.Duration) {
	var winEnd ingest.Time
	if g.W1 > 0 && g.W1 <= len(g.Grid) {
		winEnd = g.Grid[g.W1-1]
	}
	type ev struct {
		t   ingest.Time
		msg string
	}
	// A change is one kind of change of one service: a configuration
	// update three minutes after a rollout is a change of its own.
	bySvc := map[string][]ev{}
	var from ingest.Time
	if g.Incident.WindowStart != 0 {
		from = g.Incident.WindowStart - ingest.Time(ChangeLookback)
	}
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() || winEnd != 0 && e.Time > winEnd || e.Time < from {
			continue
		}
		svc := e.Entity.Service
		if svc == "" && e.Entity.Kind == ingest.KindService {
			svc = e.Entity.Name
		}
		if svc == "" {
			continue
		}
		msg := e.Reason
		if e.Message != "" {
			msg += ": " + e.Message
		}
		key := svc + "\x00" + e.Kind.String()
		bySvc[key] = append(bySvc[key], ev{e.Time, msg})
	}
	var out []Change
	for _, key := range slices.Sorted(maps.Keys(bySvc)) {
		svc, _, _ := strings.Cut(key, "\x00")
		es := bySvc[key]
		sort.SliceStable(es, func(i, j int) bool { return es[i].t < es[j].t })
		for k := 0; k < len(es); {
			c := Change{Service: svc, At: es[k].t, Last: es[k].t, What: es[k].msg, Events: 1, Node: -1}
			k++
			for k < len(es) && es[k].t-c.Last <= ingest.Time(hold) {
				c.Last = es[k].t
				c.Events++
				k++
			}
			out = append(out, c)
		}
	}
	// Rollouts: the change that holds the rollout's start, else a change
	// of its own (known from the data: its new pods' first samples).
	if m != nil {
		for _, r := range m.Rollouts {
			if winEnd != 0 && r.At > winEnd {
				continue
			}
			found := false
			for i := range out {
				c := &out[i]
				if c.Service == r.Service && r.At >= c.At-ingest.Time(hold) && r.At <= c.Last+ingest.Time(hold) {
					c.Rollout, c.Workload, found = r.Name(), r.New.Workload, true
					c.What = "rollout to " + r.Name()
					if r.New != nil && r.New.Name != r.Name() {
						c.What += " (" + r.New.Name + ")"
					}
					if r.At < c.At {
						c.At = r.At
					}
					break
				}
			}
			if !found {
				out = append(out, Change{Service: r.Service, At: r.At, Last: r.At, What: "rollout to " + r.Name() + " (" + r.By + ")",
					Events: len(r.Events), Rollout: r.Name(), Workload: r.New.Workload, Node: -1})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Service < out[j].Service
	})
	for i := range out {
		c := &out[i]
		c.After = g.Incident.At != 0 && c.At > g.Incident.At
		c.Node = g.find(svcEntity(c.Service), ingest.SignalChange, FacetNone)
		if c.Rollout != "" {
			for j, n := range g.Nodes {
				if n.Entity.Kind == ingest.KindRollout && n.Entity.Name == c.Rollout && n.Entity.Service == c.Service {
					c.Judged = append(c.Judged, j)
				}
			}
		}
	}
	g.Changes = out
}

// changePriors sets every anomalous change node's anomaly to what a
// change is worth before its effects are weighed: the detection threshold
// (a step from "no change" to "a change" has no size in robust σ — a
// service that never changed in the baseline would read 100 σ for any
// change, healthy or not), and its onset to the change itself (the step's
// first cell, which may lie before the window). What the change did is
// judged by its effects (its rollout's contrasts, the anomalies of its
// service it precedes) and its timing (package causal).
func (g *Graph) changePriors(opt Options) {
	for _, n := range g.Nodes {
		if n.Signal != ingest.SignalChange || !n.Anomalous {
			continue
		}
		v := n.Values()
		i := n.OnsetIdx
		for i > 0 && v[i-1] >= 1 {
			i--
		}
		n.OnsetIdx, n.Onset = i, g.Grid[i]
		n.Score = opt.Threshold
	}
}
