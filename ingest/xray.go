package ingest

import (
	"cmp"
	"slices"
	"strings"
)

// X-Ray's service map names one component several times: the function
// itself, its invocation and its bare name ("fn", "fn_AWS::Lambda",
// "fn_AWS::Lambda::Function"), each a vertex with its own metrics. They
// are one component whose parts are signals.

// xraySep separates a vertex's name from its AWS resource type in X-Ray
// service-map names ("payforadoption_AWS::ECS::Container").
const xraySep = "_AWS::"

// ComponentBase returns the component a service-map vertex name belongs
// to: its name before an X-Ray resource type ("fn" for "fn_AWS::Lambda",
// "fn_AWS::Lambda::Function" and "fn"); the name itself for any other.
func ComponentBase(name string) string {
	if i := strings.Index(name, xraySep); i > 0 {
		return name[:i]
	}
	return name
}

// componentAliases maps each name of a component that has several
// service-map vertices to one canonical name: the most specific typed one
// (most "::" in its type, then the longest, then the first in order), so
// that a label naming the component by its full X-Ray name still finds it.
// Names of components with one vertex are absent. O(names log names).
func componentAliases(names map[string]bool) map[string]string {
	groups := map[string][]string{}
	for n := range names {
		if b := ComponentBase(n); b != n {
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
func (b *Bundle) mergeComponentVertices(known map[string]bool) {
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
	fix := func(e *Entity) {
		e.Service, e.Caller, e.Callee = to(e.Service), to(e.Caller), to(e.Callee)
		switch e.Kind {
		case KindService:
			e.Name = to(e.Name)
		case KindEdge:
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
