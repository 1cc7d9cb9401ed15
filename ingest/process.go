package ingest

import (
	"strconv"
	"strings"
)

// Placement tags and processes: what the span decoders record of where a
// span ran (pod, node, host, GPU, PID) and which version a pod runs.

// LocTags are the placement tags of a span or process.
type LocTags struct {
	pod, node, host, gpu Sym
	pid                  Sym // process.pid, for placing GPU processes
	version              Sym // service.version, for the version model (package peers)
}

// Merge fills the empty fields of l from o.
func (l *LocTags) Merge(o LocTags) {
	if l.pod.IsEmpty() {
		l.pod = o.pod
	}
	if l.node.IsEmpty() {
		l.node = o.node
	}
	if l.host.IsEmpty() {
		l.host = o.host
	}
	if l.gpu.IsEmpty() {
		l.gpu = o.gpu
	}
	if l.pid.IsEmpty() {
		l.pid = o.pid
	}
	if l.version.IsEmpty() {
		l.version = o.version
	}
}

// Field returns the placement field a tag or attribute key fills, or nil.
func (l *LocTags) Field(key string) *Sym {
	switch key {
	case "k8s.pod.name", "pod", "pod.name":
		return &l.pod
	case "k8s.node.name", "host.name", "node":
		return &l.node
	case "hostname":
		return &l.host
	case "gpu.uuid", "gpu", "nvidia.gpu.uuid", "k8s.gpu":
		return &l.gpu
	case "process.pid", "pid":
		return &l.pid
	case "service.version":
		return &l.version
	}
	return nil
}

// Place sets s's Pod, Node and GPU from loc; hostname names the node only
// when there is neither a node nor a pod tag.
func (l LocTags) Place(s *Span) {
	s.Pod, s.Node, s.GPU = l.pod, l.node, l.gpu
	if s.Node.IsEmpty() && s.Pod.IsEmpty() {
		s.Node = l.host
	}
}

// ProcessSet records a reader's processes with a PID once each. Readers
// call add for every span (span tags may carry the PID), so the last
// process is checked before the map: consecutive spans share it.
type ProcessSet struct {
	seen map[Process]bool
	last Process
	// versions are the (pod, version) pairs recorded, lastVersion the last.
	versions    map[PodVersion]bool
	lastVersion PodVersion
}

// Add records the process described by service and loc (when it has a PID)
// in b.Processes, once per distinct process; and the version a pod runs
// (when loc names both) in b.PodVersions, once per pair.
func (ps *ProcessSet) Add(b *Bundle, service Sym, loc LocTags, source string) {
	if !loc.version.IsEmpty() && !loc.pod.IsEmpty() {
		ps.addVersion(b, PodVersion{Service: service.String(), Pod: loc.pod.String(), Version: loc.version.String(), Source: source})
	}
	if loc.pid.IsEmpty() || service.IsEmpty() {
		return
	}
	pid, err := strconv.ParseUint(strings.TrimSpace(loc.pid.String()), 10, 32)
	if err != nil || pid == 0 {
		return // not a PID: ignored, like any unknown tag
	}
	host := loc.node
	if host.IsEmpty() {
		host = loc.host
	}
	p := Process{Service: service.String(), Pod: loc.pod.String(), Host: host.String(), PID: uint32(pid), Source: source}
	if p == ps.last {
		return
	}
	ps.last = p
	if ps.seen == nil {
		ps.seen = map[Process]bool{}
	}
	if ps.seen[p] {
		return
	}
	ps.seen[p] = true
	b.Processes = append(b.Processes, p)
}

// addVersion records v once.
func (ps *ProcessSet) addVersion(b *Bundle, v PodVersion) {
	if v == ps.lastVersion {
		return
	}
	ps.lastVersion = v
	if ps.versions == nil {
		ps.versions = map[PodVersion]bool{}
	}
	if !ps.versions[v] {
		ps.versions[v] = true
		b.PodVersions = append(b.PodVersions, v)
	}
}
