package ingest

import "strings"

// The Jaeger reader's span attributes: tags coerced by type, the
// location tags (host, pod, container, process) that placement uses, the
// parent chosen among references, and each trace's processes.

// locTags are the placement tags of a span or process.
type locTags struct {
	pod, node, host, gpu Sym
	pid                  Sym // process.pid, for placing GPU processes
	version              Sym // service.version, for the version model (package peers)
}

// merge fills the empty fields of l from o.
func (l *locTags) merge(o locTags) {
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

// parent picks the first CHILD_OF reference within the same trace, else the
// first FOLLOWS_FROM one, else parentSpanID. A span whose only references
// point into other traces becomes a root (counted).
func (r *jaegerReader) parent(js *jSpan, trace TraceID) SpanID {
	var child, follows SpanID
	cross := false
	refs := js.References
	if len(refs) > maxSpanRefs {
		r.manyRefs++
		r.mostRefs = max(r.mostRefs, len(refs))
		refs = refs[:maxSpanRefs]
	}
	for _, ref := range refs {
		// A reference that spells the span's own trace ID (the usual case)
		// is in the trace without parsing it again.
		if ref.TraceID != "" && ref.TraceID != js.TraceID {
			rt, err := ParseTraceID(ref.TraceID)
			if err != nil || rt != trace {
				cross = true
				continue
			}
		}
		id, err := ParseSpanID(ref.SpanID)
		if err != nil || id == 0 {
			continue
		}
		switch {
		case strings.EqualFold(ref.RefType, "FOLLOWS_FROM"):
			if follows == 0 {
				follows = id
			}
		default: // CHILD_OF, or an unknown type treated as such
			if child == 0 {
				child = id
			}
		}
	}
	switch {
	case child != 0:
		return child
	case follows != 0:
		return follows
	}
	if js.ParentSpanID != "" {
		if id, err := ParseSpanID(js.ParentSpanID); err == nil && id != 0 {
			return id
		}
	}
	if cross {
		r.crossTrace++
	}
	return 0
}

// spanTags applies the tags the reader understands: kind, error flags, peer
// (peer.service, else server.address) and placement.
func (r *jaegerReader) spanTags(tags []jTag, s *Span, loc *locTags) {
	addr := ""
	for i := range tags {
		t := &tags[i]
		switch t.Key {
		case "peer.service":
			s.Peer = r.in.sym(tagString(t))
		case "server.address":
			addr = tagString(t)
		case "span.kind":
			s.Kind = parseSpanKind(tagString(t))
		case "error":
			if strings.EqualFold(tagString(t), "true") {
				s.Error = true
			}
		case "otel.status_code":
			if strings.EqualFold(tagString(t), "ERROR") {
				s.Error = true
			}
		case "http.status_code", "http.response.status_code":
			if v, ok := tagInt(t); ok && v >= 500 {
				s.Error = true
			}
		case "rpc.grpc.status_code":
			if v, ok := tagInt(t); ok && v != 0 {
				s.Error = true
			}
		default:
			r.locTag(t, loc)
		}
	}
	if s.Peer.IsEmpty() && addr != "" {
		s.Peer = r.in.sym(addr)
	}
}

// locTag records a placement tag (pod, node, hostname, GPU) into loc; the
// first value of each field wins.
func (r *jaegerReader) locTag(t *jTag, loc *locTags) {
	if dst := loc.field(t.Key); dst != nil && dst.IsEmpty() {
		*dst = r.in.sym(tagString(t))
	}
}

// field returns the placement field a tag or attribute key fills, or nil.
func (l *locTags) field(key string) *Sym {
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

// place sets s's Pod, Node and GPU from loc; hostname names the node only
// when there is neither a node nor a pod tag.
func (l locTags) place(s *Span) {
	s.Pod, s.Node, s.GPU = l.pod, l.node, l.gpu
	if s.Node.IsEmpty() && s.Pod.IsEmpty() {
		s.Node = l.host
	}
}

// process resolves a Jaeger process into a service and placement.
func (r *jaegerReader) process(p jProcess) procInfo {
	pi := procInfo{service: r.in.sym(p.ServiceName)}
	for i := range p.Tags {
		r.locTag(&p.Tags[i], &pi.loc)
	}
	return pi
}
