package model

import (
	"sort"
	"strings"
)

// The entity model's matching: the services a bundle knows (KnownServices),
// a name from another source mapped onto one of them (MatchService; the
// features stage's matchEntities uses both), and the bundle's entity list
// (CollectEntities, the last step of ingest.Align).

// KnownServices returns the services named by traces, dependencies and
// call-edge (service-graph) series.
func (b *Bundle) KnownServices() map[string]bool {
	known := map[string]bool{}
	spanServices := map[Sym]bool{}
	for i := range b.Spans {
		spanServices[b.Spans[i].Service] = true
	}
	for s := range spanServices {
		known[s.String()] = true
	}
	for _, d := range b.Deps {
		known[d.Parent] = true
		known[d.Child] = true
	}
	// Service-graph metrics (client/server labels) are a call graph too.
	for _, s := range b.Series {
		if s.Entity.Kind == KindEdge {
			known[s.Entity.Caller] = true
			known[s.Entity.Callee] = true
		}
	}
	delete(known, "")
	return known
}

// matchService maps a name from another source onto a known trace service:
// exact, workload of a pod name, or the longest known service that prefixes
// it followed by "-". It returns "" when nothing matches. The prefixes
// tried are the name's own (up to each "-"), longest first: O(len(name))
// lookups, whatever the number of services.
func matchService(name string, known map[string]bool) string { return MatchService(name, known) }

// MatchService is matchService for the stages after ingest (the version
// model places pods that only a label names).
func MatchService(name string, known map[string]bool) string {
	if name == "" {
		return ""
	}
	if known[name] {
		return name
	}
	if w := WorkloadOf(name); known[w] {
		return w
	}
	for i := strings.LastIndexByte(name, '-'); i > 0; i = strings.LastIndexByte(name[:i], '-') {
		if known[name[:i]] {
			return name[:i]
		}
	}
	return ""
}

// CollectEntities builds the sorted entity list, merging placement facts
// (node, GPU, service) seen for the same entity in different sources: the
// last step of ingest.Align.
func (b *Bundle) CollectEntities() {
	m := map[string]*Entity{}
	add := func(e Entity) {
		if e.Kind == KindUnknown || e.Name == "" {
			return
		}
		id := e.ID()
		if old, ok := m[id]; ok {
			if old.Service == "" {
				old.Service = e.Service
			}
			if old.Node == "" {
				old.Node = e.Node
			}
			if old.GPU == "" {
				old.GPU = e.GPU
			}
			return
		}
		c := e
		m[id] = &c
	}
	// Spans repeat a few placements millions of times: add each distinct
	// one once, in order of first appearance (the first value wins).
	type placed struct{ service, pod, node, gpu Sym }
	spanPlaces := map[placed]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		k := placed{s.Service, s.Pod, s.Node, s.GPU}
		if spanPlaces[k] {
			continue
		}
		spanPlaces[k] = true
		add(Entity{Kind: KindService, Name: s.Service.String(), Service: s.Service.String()})
		if !s.Pod.IsEmpty() {
			add(Entity{Kind: KindPod, Name: s.Pod.String(), Service: s.Service.String(), Node: s.Node.String(), GPU: s.GPU.String()})
		}
		if !s.Node.IsEmpty() {
			add(Entity{Kind: KindNode, Name: s.Node.String()})
		}
	}
	for _, s := range b.Series {
		add(s.Entity)
		e := s.Entity
		if e.Kind == KindPod || e.Kind == KindGPU || e.Kind == KindNode {
			if e.Service != "" {
				add(Entity{Kind: KindService, Name: e.Service, Service: e.Service})
			}
			if e.Node != "" && e.Kind != KindNode {
				add(Entity{Kind: KindNode, Name: e.Node})
			}
		}
	}
	for _, ev := range b.Events {
		add(ev.Entity)
	}
	for i := range b.LogStreams {
		e := b.LogStreams[i].Entity()
		add(e)
		if e.Kind == KindPod && e.Service != "" {
			add(Entity{Kind: KindService, Name: e.Service, Service: e.Service})
		}
		if e.Node != "" && e.Kind != KindNode {
			add(Entity{Kind: KindNode, Name: e.Node})
		}
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b.Entities = make([]Entity, len(ids))
	for i, id := range ids {
		b.Entities[i] = *m[id]
	}
}
