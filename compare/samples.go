package compare

import (
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

// spanSet is the span-level samples of one entity and facet on one side:
// a value (duration in seconds), its start instant and whether the span
// was an error. Appended in span order (start order).
type spanSet struct {
	v   []float64
	t   []ingest.Time
	err []bool
}

func (s *spanSet) add(v float64, t ingest.Time, err bool) {
	s.v = append(s.v, v)
	s.t = append(s.t, t)
	s.err = append(s.err, err)
}

// setMeta describes what a spanSet or series group measures.
type setMeta struct {
	entity     string // entity ID, e.g. "edge/router->vllm"
	entityKind string
	service    string
	facet      string
	pod        string // pod name of a pod-level set ("" otherwise)
	// traffic and errors of an edge come from its server side; a client
	// set carries them only when the edge has no server side (an external
	// dependency seen from client spans).
	clientOnly bool
}

// points are one series' values in a window, in time order.
type points struct {
	v []float64
	t []ingest.Time
}

// seriesMeta describes a series item.
type seriesMeta struct {
	setMeta
	signal ingest.SignalKind
	name   string // name{labels}, display
	unit   string
	stat   string
	dir    int
	// exact and pooled keys: exact names the series; pooled the same
	// series of any pod of the workload (used when its pod is not present
	// on both sides), pooledName its name without the pod's labels.
	exact, pooled, pooledName string
	// query and pooledQuery are the PromQL of the series and of its
	// workload's pooled series ("" when derived).
	query, pooledQuery string
}

// extent is when a pod first and last reports in a window.
type extent struct{ first, last ingest.Time }

// seen widens the pod's extent by t.
func (d *sideData) seen(pod string, t ingest.Time) {
	e := d.pods[pod]
	if e == nil {
		d.pods[pod] = &extent{t, t}
		return
	}
	e.first, e.last = min(e.first, t), max(e.last, t)
}

// present reports whether a pod reports through enough of the window's
// data (covered: how much of the window the bundle's data spans) to be
// compared as itself: from its first to its last sample (plus one step)
// at least minCoverage of it. A pod that stops (or starts) early in the
// window is being replaced: it counts with its workload.
func (d *sideData) present(pod string, step, covered time.Duration, minCoverage float64) bool {
	e := d.pods[pod]
	return e != nil && float64(e.last.Sub(e.first)+step) >= minCoverage*float64(covered)
}

// sideData is everything extracted from one side's window.
type sideData struct {
	start, end ingest.Time
	sets       map[string]*spanSet // by set ID ("service/x", "edge/a->b/client", ...)
	setMeta    map[string]setMeta
	series     map[string]*points // by exact series key
	seriesMeta map[string]seriesMeta
	pods       map[string]*extent // pods with spans or points in the window: when they first and last report
	spans      int
	nseries    int
	// active are the time cells (of width cell from start) holding any
	// span, ascending; activeCells is their number.
	active      []int64
	activeCells int
	cell        time.Duration
	// logSets are the log records per (service, template) (logs.go),
	// logs their number and logActive the cells holding any, ascending.
	logSets   map[string]*logSet
	logMeta   map[string]logMeta
	logs      int
	logActive []int64
}

// activeIn counts the active cells that start in [lo, hi).
func (d *sideData) activeIn(lo, hi ingest.Time, cell time.Duration) float64 {
	n := 0
	for _, c := range d.active {
		t := d.start.Add(time.Duration(c) * cell)
		if t >= lo && t < hi {
			n++
		}
	}
	return float64(n)
}

// bundleIndex caches per-bundle facts shared by every side read from it.
type bundleIndex struct {
	b             *ingest.Bundle
	nChildren     []int32
	crossChildren []int32
	podsOf        map[string]map[string]bool // service → pods with spans
	opsOf         map[string]map[string]bool // service → operations of entry spans
	// logSteps are the grid points whose step holds a log record of any
	// stream (the step a record counts in, as the derived log series count
	// it); nil without logs or grid.
	logSteps map[ingest.Time]bool
}

func newBundleIndex(b *ingest.Bundle) *bundleIndex {
	ix := &bundleIndex{b: b, nChildren: make([]int32, len(b.Spans)), crossChildren: make([]int32, len(b.Spans)),
		podsOf: map[string]map[string]bool{}, opsOf: map[string]map[string]bool{}}
	for i := range b.Spans {
		s := &b.Spans[i]
		p := parentOf(b, i)
		if p >= 0 {
			ix.nChildren[p]++
			if b.Spans[p].Service != s.Service {
				ix.crossChildren[p]++
			}
		}
		if !s.Pod.IsEmpty() {
			add(ix.podsOf, s.Service.String(), s.Pod.String())
		}
		if p < 0 || b.Spans[p].Service != s.Service {
			add(ix.opsOf, s.Service.String(), s.Operation.String())
		}
	}
	if len(b.Logs) > 0 && len(b.Grid) > 0 && b.Step > 0 {
		g0, step := int64(b.Grid[0]), int64(b.Step)
		ix.logSteps = map[ingest.Time]bool{}
		for i := range b.Logs {
			if c := (int64(b.Logs[i].Time) - g0 + step - 1) / step; c >= 0 {
				ix.logSteps[ingest.Time(g0+c*step)] = true
			}
		}
	}
	return ix
}

func add(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

// parentOf is the index of span i's parent, -1 for none.
func parentOf(b *ingest.Bundle, i int) int {
	if i < len(b.Parent) {
		return int(b.Parent[i])
	}
	return -1
}

// replacedBySpans are the derived series whose information the span-level
// items carry in full (distributions instead of per-step quantiles).
var replacedBySpans = map[string]bool{
	ingest.TraceRequests: true, ingest.TraceErrors: true, ingest.TraceErrorRatio: true, ingest.TraceLatency: true,
	ingest.EdgeClient: true, ingest.EdgeServer: true, ingest.EdgeGap: true, ingest.EdgeCalls: true, ingest.EdgeErrors: true,
	// The operation-mix shift is measured against its own bundle's usual
	// mix, so its values do not compare across bundles; operation-level
	// latency and traffic items carry the same information.
	ingest.TraceOpMix: true,
}

// logCounts are the derived log series that count records per step, 0 in
// a step without any (the others are NaN where their entity logged
// nothing in their window: the missing-template deficit, the mix shift).
var logCounts = map[string]bool{ingest.LogRecords: true, ingest.LogErrors: true, ingest.LogNewTemplates: true}

// extract reads the spans starting in [start, end) and the series points
// in it. O(spans in range + series · log points).
// Its length is the two scans (spans, then series) filling one sideData;
// they share the range cut and the cell width.
func (ix *bundleIndex) extract(start, end ingest.Time, cell time.Duration) *sideData {
	b := ix.b
	d := &sideData{start: start, end: end, cell: cell, sets: map[string]*spanSet{}, setMeta: map[string]setMeta{},
		series: map[string]*points{}, seriesMeta: map[string]seriesMeta{}, pods: map[string]*extent{}}
	get := func(id string, m setMeta) *spanSet {
		s := d.sets[id]
		if s == nil {
			s = &spanSet{}
			d.sets[id] = s
			d.setMeta[id] = m
		}
		return s
	}
	// Set IDs are built once per name (not per span): a span costs map
	// lookups, not string allocations.
	type pair struct{ a, b string }
	svcID, podID := map[string]string{}, map[string]string{}
	opID := map[pair]string{}
	type edgeKeys struct{ entity, server, client, gap string }
	edgeID, peerID := map[pair]*edgeKeys{}, map[pair]*edgeKeys{}
	edgeOf := func(m map[pair]*edgeKeys, caller, callee string) *edgeKeys {
		k := pair{caller, callee}
		if e := m[k]; e != nil {
			return e
		}
		ent := "edge/" + caller + "->" + callee
		e := &edgeKeys{entity: ent, server: ent + "/server", client: ent + "/client", gap: ent + "/gap"}
		m[k] = e
		return e
	}
	cached := func(m map[string]string, k string, f func() string) string {
		if v, ok := m[k]; ok {
			return v
		}
		v := f()
		m[k] = v
		return v
	}
	cached2 := func(m map[pair]string, k pair, f func() string) string {
		if v, ok := m[k]; ok {
			return v
		}
		v := f()
		m[k] = v
		return v
	}
	lo := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= start })
	hi := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= end })
	d.spans = hi - lo
	lastCell := int64(-1)
	for i := lo; i < hi; i++ {
		s := &b.Spans[i]
		if c := int64(s.Start-start) / int64(cell); c != lastCell {
			d.active = append(d.active, c)
			lastCell = c
		}
		dur := s.Duration.Seconds()
		p := parentOf(b, i)
		if p < 0 || b.Spans[p].Service != s.Service {
			id := cached(svcID, s.Service.String(), func() string { return "service/" + s.Service.String() })
			get(id, setMeta{entity: id, entityKind: "service", service: s.Service.String()}).add(dur, s.Start, s.Error)
			if !s.Pod.IsEmpty() && len(ix.podsOf[s.Service.String()]) > 1 {
				d.seen(s.Pod.String(), s.Start)
				id := cached(podID, s.Pod.String(), func() string { return "pod/" + s.Pod.String() })
				get(id, setMeta{entity: id, entityKind: "pod", service: s.Service.String(), pod: s.Pod.String()}).add(dur, s.Start, s.Error)
			}
			if len(ix.opsOf[s.Service.String()]) > 1 {
				id := cached2(opID, pair{s.Service.String(), s.Operation.String()}, func() string { return "operation/" + s.Service.String() + "/" + s.Operation.String() })
				get(id, setMeta{entity: id, entityKind: "operation", service: s.Service.String()}).add(dur, s.Start, s.Error)
			}
		}
		if p >= 0 && b.Spans[p].Service != s.Service {
			ps := &b.Spans[p]
			edge := edgeOf(edgeID, ps.Service.String(), s.Service.String())
			get(edge.server, setMeta{entity: edge.entity, entityKind: "edge", service: s.Service.String(), facet: "server"}).add(dur, s.Start, s.Error)
			pp := parentOf(b, p)
			clientSide := ps.Kind == ingest.SpanClient ||
				(ps.Kind == ingest.SpanUnspecified && pp >= 0 && b.Spans[pp].Service == ps.Service &&
					ix.crossChildren[p] == ix.nChildren[p] && ix.nChildren[p] == 1)
			if clientSide {
				cd := ps.Duration.Seconds()
				get(edge.client, setMeta{entity: edge.entity, entityKind: "edge", service: s.Service.String(), facet: "client"}).add(cd, s.Start, ps.Error)
				get(edge.gap, setMeta{entity: edge.entity, entityKind: "edge", service: s.Service.String(), facet: "gap"}).add(cd-dur, s.Start, false)
			}
		}
		if !s.Peer.IsEmpty() && s.Peer != s.Service && ix.nChildren[i] == 0 && (s.Kind == ingest.SpanClient || s.Kind == ingest.SpanUnspecified) {
			edge := edgeOf(peerID, s.Service.String(), s.Peer.String())
			get(edge.client, setMeta{entity: edge.entity, entityKind: "edge", service: s.Peer.String(), facet: "client", clientOnly: true}).add(dur, s.Start, s.Error)
		}
	}
	// An edge with a server side takes its traffic and errors from it.
	for id, m := range d.setMeta {
		if m.clientOnly {
			if _, ok := d.sets[m.entity+"/server"]; ok {
				m.clientOnly = false
				d.setMeta[id] = m
			}
		}
	}
	for _, s := range b.Series {
		if !s.Aligned || s.Entity.Kind == ingest.KindUnknown || s.Entity.Name == "" {
			continue
		}
		if s.Source == ingest.DerivedSource && replacedBySpans[s.Name] {
			continue
		}
		i0 := sort.Search(len(s.T), func(i int) bool { return s.T[i] >= start })
		i1 := sort.Search(len(s.T), func(i int) bool { return s.T[i] >= end })
		// A derived log count counts 0 in a step where the log source
		// holds no record at all, of any service: a gap in collection (a
		// sparsely logged baseline), not a quiet service. Such steps are
		// left out, as the log-template items count only the seconds that
		// held any record.
		logGaps := s.Source == ingest.DerivedSource && logCounts[s.Name] && ix.logSteps != nil
		var pt points
		for i := i0; i < i1; i++ {
			if logGaps && !ix.logSteps[s.T[i]] {
				continue
			}
			if v := s.V[i]; v == v {
				pt.v = append(pt.v, v)
				pt.t = append(pt.t, s.T[i])
			}
		}
		if len(pt.v) == 0 {
			continue
		}
		m := newSeriesMeta(s)
		if old, ok := d.series[m.exact]; ok && len(old.v) >= len(pt.v) {
			continue // the same series from two files: keep the fuller one
		}
		d.series[m.exact] = &pt
		d.seriesMeta[m.exact] = m
		if m.pod != "" {
			d.seen(m.pod, pt.t[0])
			d.seen(m.pod, pt.t[len(pt.t)-1])
		}
	}
	d.nseries = len(d.series)
	d.activeCells = len(d.active)
	ix.extractLogs(d, start, end)
	return d
}

// newSeriesMeta keys a series by what it measures, not by the file it came
// from, so the same series matches across two bundles.
func newSeriesMeta(s *ingest.Series) seriesMeta {
	e := s.Entity
	facet := facetOf(s)
	if peer := peerOf(s); peer != "" {
		// The caller's side of its calls to peer, as a client span with
		// peer.service is: the entity is the edge, so a regression of it
		// names the service called.
		e = ingest.Entity{Kind: ingest.KindEdge, Name: e.Name + "->" + peer, Caller: e.Name, Callee: peer, Service: peer, Node: e.Node}
		if s.Signal == ingest.SignalLatency && facet == "" {
			facet = "client"
		}
	}
	sig := s.Signal.String()
	if facet != "" {
		sig += "/" + facet
	}
	m := seriesMeta{signal: s.Signal, unit: s.Unit, stat: s.Stat, dir: ingest.BadDirection(s)}
	if m.stat == "" {
		m.stat = s.Labels.Get("stat")
	}
	if s.Signal == ingest.SignalTraffic || s.Signal == ingest.SignalOther {
		m.dir = 0
	}
	m.entity, m.entityKind, m.service, m.facet = e.ID(), e.Kind.String(), e.Service, facet
	m.name = s.Name + s.Labels.String()
	m.query = reportview.SeriesQuery(s)
	m.exact = "series/" + e.ID() + ":" + sig + " " + m.name
	if e.Kind == ingest.KindPod {
		m.pod = e.Name
		var kept ingest.Labels
		for _, l := range s.Labels {
			if !podIdentifying(l, e.Name) {
				kept = append(kept, l)
			}
		}
		m.pooledName = s.Name + kept.String()
		pooled := *s
		pooled.Labels = kept
		m.pooledQuery = reportview.SeriesQuery(&pooled)
		m.pooled = "series/workload/" + e.Service + ":" + sig + " " + m.pooledName
	}
	return m
}

// peerLabels name the service a series' calls go to: OpenTelemetry's
// peer.service attribute as Prometheus spells it (dots become
// underscores). Package ingest's edge label pairs are the general place
// for this; a service's series with one is placed on its edge here.
var peerLabels = []string{"peer_service", "peer.service"}

// peerOf is the peer a service's series names as the callee of its calls
// ("" for none, for the service itself, and for series of other entities).
func peerOf(s *ingest.Series) string {
	if s.Entity.Kind != ingest.KindService || s.Entity.Name == "" {
		return ""
	}
	for _, l := range peerLabels {
		if v := s.Labels.Get(l); v != "" && v != s.Entity.Name {
			return v
		}
	}
	return ""
}

// podIdentifying reports whether a label names one pod instance or its
// version rather than what the series measures: its value contains the
// pod's name, or it is one of the labels that name an instance, a version
// (version, image, pod-template hash), a node or a device
// (ingest.IdentityLabel, canary mode's families use the same): a new pod
// of the same workload after a rollout is the same workload.
func podIdentifying(l ingest.Label, pod string) bool {
	return pod != "" && strings.Contains(l.Value, pod) || ingest.IdentityLabel(l.Name)
}

// facetOf is the facet of a series as the temporal causal graph defines it
// (self time, an edge's client/server/gap side), read from the series.
func facetOf(s *ingest.Series) string {
	switch s.Name {
	case ingest.EdgeClient:
		return "client"
	case ingest.EdgeServer:
		return "server"
	case ingest.EdgeGap:
		return "gap"
	case ingest.TraceSelf:
		return "self"
	}
	if s.Entity.Kind == ingest.KindEdge && s.Signal == ingest.SignalLatency {
		switch s.Labels.Get("reporter") {
		case "source", "client":
			return "client"
		case "destination", "server":
			return "server"
		}
	}
	return ""
}
