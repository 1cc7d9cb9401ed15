package features

import (
	"cmp"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"slices"
	"sort"
	"strings"
)

// Entity matching across sources: series, events, alerts and log streams
// named by pod, workload or X-Ray vertex matched to the traced services.

// matchEntities rewrites series and event services onto trace services.
func matchEntities(b *ingest.Bundle) {
	known := b.KnownServices()
	if len(known) == 0 {
		return
	}
	// A node label whose value is a vertex of the call graph names that
	// service, not a host (metrics exported per call-graph vertex, as
	// CloudWatch/X-Ray service maps do): the series is the service's, under
	// the name exactly as the data spells it.
	for _, s := range b.Series {
		if s.Entity.Kind != ingest.KindNode {
			continue
		}
		if v := ingest.FirstLabel(s.Labels, ingest.NodeLabelNames...); v != "" && known[v] {
			s.Entity = ingest.Entity{Kind: ingest.KindService, Name: v, Service: v}
		}
	}
	// One component, several service-map vertices (X-Ray): one name.
	mergeComponentVertices(b, known)
	unmatched := map[string]bool{}
	fix := func(e *ingest.Entity) {
		if e.Service == "" {
			return
		}
		m := ingest.MatchService(e.Service, known)
		if m == "" && e.Kind == ingest.KindPod {
			m = ingest.MatchService(e.Name, known)
		}
		if m == "" {
			unmatched[e.Service] = true
			return
		}
		if e.Kind == ingest.KindService && e.Name == e.Service {
			e.Name = m
		}
		if e.Kind == ingest.KindEdge {
			if c := ingest.MatchService(e.Caller, known); c != "" {
				e.Caller = c
			}
			if c := ingest.MatchService(e.Callee, known); c != "" {
				e.Callee = c
			}
			e.Name = e.Caller + "->" + e.Callee
		}
		e.Service = m
	}
	for _, s := range b.Series {
		fix(&s.Entity)
	}
	for i := range b.Events {
		fix(&b.Events[i].Entity)
		matchConfigObject(&b.Events[i], known)
	}
	for i := range b.Alerts {
		if m := ingest.MatchService(b.Alerts[i].Service, known); m != "" {
			b.Alerts[i].Service = m
		}
	}
	if len(unmatched) > 0 {
		names := make([]string, 0, len(unmatched))
		for n := range unmatched {
			names = append(names, n)
		}
		sort.Strings(names)
		more := ""
		if len(names) > 8 {
			more = fmt.Sprintf(" and %d more", len(names)-8)
			names = names[:8]
		}
		b.Warn(ingest.ErrUnmatched, "metrics", len(unmatched), "%d metric/event services match no traced service: %s%s",
			len(unmatched), strings.Join(names, ", "), more)
	}
}

// matchConfigObject places a configuration change made on the object
// itself, that no workload is known to use (kind unknown, Object
// "ConfigMap/router-config" or "Secret/…", from kubectl get events or a
// snapshot of objects), on the traced service its name belongs to, by the
// rule any other name is matched by (ingest.MatchService: exact, the
// workload of a generated name, or the longest service that prefixes it
// followed by "-"). One whose name matches no service stays as it is:
// neither an entity nor an unmatched service.
func matchConfigObject(e *ingest.Event, known map[string]bool) {
	if e.Entity.Kind != ingest.KindUnknown || e.Entity.Service != "" {
		return
	}
	kind, name, ok := strings.Cut(e.Object, "/")
	if !ok || !strings.EqualFold(kind, "ConfigMap") && !strings.EqualFold(kind, "Secret") {
		return
	}
	if m := ingest.MatchService(name, known); m != "" {
		e.Entity = ingest.Entity{Kind: ingest.KindService, Name: m, Service: m}
	}
}

// componentAliases maps each name of a component that has several
// service-map vertices to one canonical name: the most specific typed one
// (most "::" in its type, then the longest, then the first in order), so
// that a label naming the component by its full X-Ray name still finds it.
// Names of components with one vertex are absent. O(names log names).
func componentAliases(names map[string]bool) map[string]string {
	groups := map[string][]string{}
	for n := range names {
		if b := ingest.ComponentBase(n); b != n {
			groups[b] = append(groups[b], n)
		}
	}
	// a bare name joins its typed siblings
	for b := range groups {
		if names[b] && !slices.Contains(groups[b], b) {
			groups[b] = append(groups[b], b)
		}
	}
	out := map[string]string{}
	for _, ns := range groups {
		if len(ns) < 2 {
			continue
		}
		slices.SortFunc(ns, func(x, y string) int {
			return cmp.Or(-cmp.Compare(strings.Count(x, "::"), strings.Count(y, "::")), -cmp.Compare(len(x), len(y)), cmp.Compare(x, y))
		})
		for _, n := range ns[1:] {
			out[n] = ns[0]
		}
	}
	return out
}

// mergeComponentVertices renames the vertices of components that have
// several (componentAliases) to their canonical name, everywhere a
// service is named: series entities, dependencies, events and alerts.
func mergeComponentVertices(b *ingest.Bundle, known map[string]bool) {
	alias := componentAliases(known)
	if len(alias) == 0 {
		return
	}
	to := func(s string) string {
		if c, ok := alias[s]; ok {
			return c
		}
		return s
	}
	fix := func(e *ingest.Entity) {
		e.Service, e.Caller, e.Callee = to(e.Service), to(e.Caller), to(e.Callee)
		switch e.Kind {
		case ingest.KindService:
			e.Name = to(e.Name)
		case ingest.KindEdge:
			e.Name = e.Caller + "->" + e.Callee
		}
	}
	for _, s := range b.Series {
		fix(&s.Entity)
	}
	for i := range b.Events {
		fix(&b.Events[i].Entity)
	}
	for i := range b.Alerts {
		b.Alerts[i].Service = to(b.Alerts[i].Service)
	}
	for i := range b.Deps {
		b.Deps[i].Parent, b.Deps[i].Child = to(b.Deps[i].Parent), to(b.Deps[i].Child)
	}
	for a, c := range alias {
		delete(known, a)
		known[c] = true
	}
}

// matchLogStreams maps stream services onto trace services (as
// matchEntities does for series): a stream that names only a pod takes the
// pod's workload.
func matchLogStreams(b *ingest.Bundle) {
	if len(b.LogStreams) == 0 {
		return
	}
	known := b.KnownServices()
	if len(known) == 0 {
		return
	}
	for i := range b.LogStreams {
		s := &b.LogStreams[i]
		if m := ingest.MatchService(s.Service, known); m != "" {
			s.Service = m
		} else if s.Service == "" && s.Pod != "" {
			if m := ingest.MatchService(s.Pod, known); m != "" {
				s.Service = m
			}
		}
	}
}
