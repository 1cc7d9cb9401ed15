package features

import (
	"cmp"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Per-request patterns. Every span is a request to its service: its events
// are the log records joined to it (LogSpans) and the calls it makes (its
// child spans), in time order, between a start and an end. Each event is
// followed by the next: in normal operation "query" is followed by "order
// found", a call to the database by "return order". A fault in the code
// breaks such a pattern — a statement that no longer follows its
// predecessor, an exception template right after a call, a call no longer
// made — in the requests that reach it, whatever their number: a service
// whose traffic fell does not "miss" anything. The opposite change is no
// break: requests that stopped logging an error line where the baseline
// (holding an earlier incident) logged it, and went back to a step they
// knew, recovered (recovery).
//
// Every transition of a request is the service's: what it does after a
// callee answers included. Whether a changed reaction follows a changed
// answer (the callee's errors or its own broken patterns) is for the graph
// to say: a caller's pattern has its callees' as parents.

// Pattern event names: a template is "log:<index>", a call "call:<service>".
const (
	eventStart = "start"
	eventEnd   = "end"
)

// maxPatternZ caps the deviate of a p-value too small to represent.
const maxPatternZ = 12

// patternEvent is one event of one span.
type patternEvent struct {
	t    ingest.Time
	seq  int32 // a tie-break: records before calls, each in input order
	name int32 // index into the event names
}

// patternKey is a (group, next event) pair of the tests' counts.
type patternKey struct{ group, next int32 }

// patternGroup is an (owner, operation, from-event) pair.
type patternGroup struct {
	service, callee, op string
	from                int32
}

// DerivePatternSeries derives the ingest.LogPatternShift series of every service
// whose log records join spans, with [baselineStart, windowStart) as the
// baseline and windowEnd − windowStart as the trailing window, and the
// evidence of each owner's most broken pattern over [windowStart,
// windowEnd) in Patterns (every owner tested, Z 0 where nothing departs).
// Services (and pods) that have pattern series lose the volume-based
// content series (LogNewTemplates, LogMissingTemplates, LogMixShift): per
// request replaces per volume.
// Deterministic. O(records · log spans + spans + transitions · cells / window).
// fo's zero fields take their defaults.
func DerivePatternSeries(b *ingest.Bundle, baselineStart, windowStart, windowEnd ingest.Time, fo Options) {
	fo = fo.withDefaults()
	b.Series = slices.DeleteFunc(b.Series, func(s *ingest.Series) bool { return s.Name == ingest.LogPatternShift })
	b.Patterns = nil
	if len(b.Spans) == 0 || len(b.Grid) == 0 || b.Step <= 0 {
		return
	}
	n := len(b.Grid)
	g0, step := int64(b.Grid[0]), int64(b.Step)
	cellOf := func(t ingest.Time) int {
		c := (int64(t) - g0 + step - 1) / step
		if c < 0 || c >= int64(n) {
			return -1
		}
		return int(c)
	}
	recSpan, how := b.LogSpans()
	var joined [4]int
	// The cells whose requests are judged: with logs, those in which any
	// log was collected (no logs is not zero logs); without, all (the
	// calls alone make the pattern).
	covered := make([]bool, n)
	for i := range b.Logs {
		joined[how[i]]++
		if c := cellOf(b.Logs[i].Time); c >= 0 {
			covered[c] = true
		}
	}
	if len(b.Logs) == 0 {
		for i := range covered {
			covered[i] = true
		}
	} else if joined[ingest.JoinSpanID]+joined[ingest.JoinTraceTime]+joined[ingest.JoinPodTime] == 0 {
		return // logs that join no request: the volume-based series stay
	}
	if joined[ingest.JoinPodTime] > 0 || joined[ingest.JoinNone] > 0 {
		b.Warn(ingest.ErrUnmatched, "logs", joined[ingest.JoinPodTime]+joined[ingest.JoinNone],
			"log records joined to requests: %d by span ID, %d by trace and time, %d by pod and time only (weaker), %d not at all",
			joined[ingest.JoinSpanID], joined[ingest.JoinTraceTime], joined[ingest.JoinPodTime], joined[ingest.JoinNone])
	}
	// Event names, interned.
	names := map[string]int32{}
	var nameOf []string
	intern := func(s string) int32 {
		if i, ok := names[s]; ok {
			return i
		}
		names[s] = int32(len(nameOf))
		nameOf = append(nameOf, s)
		return names[s]
	}
	start, end := intern(eventStart), intern(eventEnd)
	logName, callName := map[int32]int32{}, map[ingest.Sym]int32{}
	// A request to a service is the service's topmost span of a run of
	// its spans in a trace (its client and internal spans are part of it):
	// its records and its calls to other services are its events, kept
	// flat, bucketed by request (no slice per span).
	req := requestSpans(b)
	off := make([]int32, len(b.Spans)+1)
	for i := range b.Logs {
		if si := recSpan[i]; si >= 0 {
			off[req[si]+1]++
		}
	}
	for i := range b.Spans {
		if p := b.Parent[i]; p >= 0 && b.Spans[i].Service != b.Spans[p].Service {
			off[req[p]+1]++
		}
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	flat := make([]patternEvent, off[len(off)-1])
	fill := slices.Clone(off[:len(off)-1])
	for i := range b.Logs {
		if si := recSpan[i]; si >= 0 {
			r := &b.Logs[i]
			name, ok := logName[r.Template]
			if !ok {
				name = intern("log:" + itoa(int(r.Template)))
				logName[r.Template] = name
			}
			k := req[si]
			flat[fill[k]] = patternEvent{r.Time, int32(i), name}
			fill[k]++
		}
	}
	for i := range b.Spans {
		if p := b.Parent[i]; p >= 0 && b.Spans[i].Service != b.Spans[p].Service {
			sp := &b.Spans[i]
			name, ok := callName[sp.Service]
			if !ok {
				name = intern("call:" + sp.Service.String())
				callName[sp.Service] = name
			}
			k := req[p]
			flat[fill[k]] = patternEvent{sp.Start, math.MaxInt32, name}
			fill[k]++
		}
	}
	// Each covered request's transitions, counted per cell; the first
	// two requests of each (group, next) in the window kept as examples.
	w0, w1 := cellOf(windowStart), cellOf(windowEnd)
	if w0 < 0 {
		w0 = n
	}
	if w1 < 0 {
		w1 = n - 1
	}
	type groupKey struct {
		svc, op ingest.Sym
		from    int32
	}
	groups := map[groupKey]int32{}
	// byFrom[svc, op] is the groups of one service and operation by their
	// from event: a request looks its (service, operation) up once, then
	// each event by a 32-bit key, not by hashing the whole groupKey.
	byFrom := map[uint64]map[int32]int32{}
	var groupOf []patternGroup
	cells := make([]map[patternKey]int32, n)
	examples := map[patternKey][]int32{}
	linkedSyms := map[ingest.Sym]bool{} // services whose requests have events
	for i := range b.Spans {
		evs := flat[off[i]:off[i+1]]
		if len(evs) == 0 {
			continue
		}
		s := &b.Spans[i]
		c := cellOf(s.Start)
		if c < 0 || !covered[c] {
			continue
		}
		slices.SortFunc(evs, func(x, y patternEvent) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.seq, y.seq)) })
		if cells[c] == nil {
			cells[c] = map[patternKey]int32{}
		}
		linkedSyms[s.Service] = true
		var mine map[int32]int32 // this (service, operation)'s groups, when its IDs pack
		if si, oi := s.Service.ID(), s.Operation.ID(); si>>31 == 0 && oi>>31 == 0 {
			so := uint64(si)<<31 | uint64(oi)
			if mine = byFrom[so]; mine == nil {
				mine = map[int32]int32{}
				byFrom[so] = mine
			}
		}
		prev := start
		for k := 0; k <= len(evs); k++ {
			next := end
			if k < len(evs) {
				next = evs[k].name
			}
			gi, ok := mine[prev]
			if !ok {
				gk := groupKey{s.Service, s.Operation, prev}
				if gi, ok = groups[gk]; !ok {
					gi = int32(len(groupOf))
					groups[gk] = gi
					groupOf = append(groupOf, patternGroup{service: s.Service.String(), op: s.Operation.String(), from: prev})
				}
				if mine != nil {
					mine[prev] = gi
				}
			}
			key := patternKey{gi, next}
			cells[c][key]++
			if c >= w0 && c <= w1 && len(examples[key]) < 2 {
				examples[key] = append(examples[key], int32(i))
			}
			prev = next
		}
	}
	if len(linkedSyms) == 0 {
		return
	}
	linked := make(map[string]bool, len(linkedSyms))
	for svc := range linkedSyms {
		linked[svc.String()] = true
	}
	pt := patternTests{b: b, fo: fo, n: n, groups: groupOf, names: nameOf, cells: cells, examples: examples,
		b0: max(cellOf(baselineStart), 0), w0: w0, w1: w1}
	pt.width = max(1, int((windowEnd-windowStart+ingest.Time(step)/2)/ingest.Time(step)))
	pt.run()
	// Per request replaces per volume for the services that have patterns.
	b.Series = slices.DeleteFunc(b.Series, func(s *ingest.Series) bool {
		return s.Source == ingest.DerivedSource && linked[s.Entity.Service] &&
			(s.Name == ingest.LogNewTemplates || s.Name == ingest.LogMissingTemplates || s.Name == ingest.LogMixShift)
	})
}

// requestSpans maps every span to its request span: the topmost span of
// the run of same-service spans it belongs to (itself for an entry span).
// O(spans).
func requestSpans(b *ingest.Bundle) []int32 {
	req := make([]int32, len(b.Spans))
	for i := range req {
		req[i] = -1
	}
	var path []int32
	for i := range b.Spans {
		j := int32(i)
		path = path[:0]
		for req[j] < 0 {
			path = append(path, j)
			p := b.Parent[j]
			if p < 0 || b.Spans[p].Service != b.Spans[j].Service || len(path) > len(b.Spans) {
				req[j] = j
				break
			}
			j = p
		}
		for _, k := range path {
			req[k] = req[j]
		}
	}
	return req
}

// itoa is strconv.Itoa for non-negative ints (no import for one call).
func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var buf [20]byte
	k := len(buf)
	for i > 0 {
		k--
		buf[k] = byte('0' + i%10)
		i /= 10
	}
	return string(buf[k:])
}

// patternTests runs the G-tests of DerivePatternSeries.
type patternTests struct {
	b      *ingest.Bundle
	fo     Options // with its defaults
	n      int
	groups []patternGroup
	names  []string
	// cells[c] counts the transitions of requests begun in cell c, by
	// (group, next event); examples are window requests of each.
	cells    []map[patternKey]int32
	examples map[patternKey][]int32
	// isError[i] says whether event i is a log line whose template's
	// severity is error or above (recovery).
	isError []bool
	// b0 is the baseline's first cell, w0 and w1 the window's first and
	// last, width the trailing window in cells.
	b0, w0, w1, width int
}

// owner keys a series: a service's own events, or what it does after a
// callee's answer.
type patternOwner struct{ service, callee string }

func (pt *patternTests) run() {
	n := pt.n
	pt.isError = make([]bool, len(pt.names))
	for i := range pt.names {
		t := pt.template(int32(i))
		pt.isError[i] = t != nil && t.Severity() >= ingest.SeverityError
	}
	type gn = patternKey
	cells := pt.cells
	base := map[gn]int32{}
	for c := pt.b0; c < pt.w0 && c < n; c++ {
		for k, v := range cells[c] {
			base[k] += v
		}
	}
	baseTot := map[int32]int32{}
	for k, v := range base {
		baseTot[k.group] += v
	}
	owners := map[patternOwner][]int32{}
	for gi, g := range pt.groups {
		o := patternOwner{g.service, g.callee}
		owners[o] = append(owners[o], int32(gi))
	}
	ownerKeys := make([]patternOwner, 0, len(owners))
	for o := range owners {
		ownerKeys = append(ownerKeys, o)
	}
	slices.SortFunc(ownerKeys, func(x, y patternOwner) int {
		return cmp.Or(cmp.Compare(x.service, y.service), cmp.Compare(x.callee, y.callee))
	})
	series := map[patternOwner][]float64{}
	for _, o := range ownerKeys {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.NaN()
		}
		series[o] = v
	}
	groupOwner := make([]patternOwner, len(pt.groups))
	for gi, g := range pt.groups {
		groupOwner[gi] = patternOwner{g.service, g.callee}
	}
	// Each cell: the trailing window's counts against the baseline's (net
	// of the window's own baseline cells).
	for c := 0; c < n; c++ {
		lo := max(0, c-pt.width+1)
		win := map[gn]int32{}
		for k := lo; k <= c; k++ {
			for key, v := range cells[k] {
				win[key] += v
			}
		}
		if len(win) == 0 {
			continue
		}
		ref := base
		refTot := baseTot
		if lo < pt.w0 && c >= pt.b0 {
			ref, refTot = map[gn]int32{}, map[int32]int32{}
			for k, v := range base {
				ref[k], refTot[k.group] = v, refTot[k.group]+v
			}
			for k := max(lo, pt.b0); k <= c && k < pt.w0; k++ {
				for key, v := range cells[k] {
					ref[key] -= v
					refTot[key.group] -= v
				}
			}
		}
		best := map[patternOwner]float64{}
		tested := map[patternOwner]int{}
		for _, r := range pt.testAll(win, ref, refTot) {
			o := groupOwner[r.group]
			tested[o]++
			if p, ok := best[o]; !ok || r.p < p {
				best[o] = r.p
			}
		}
		for o, p := range best {
			series[o][c] = pValueZ(p * float64(tested[o]))
		}
	}
	// Evidence: each owner's most broken pattern over the whole window.
	if pt.w0 < n {
		win := map[gn]int32{}
		for k := pt.w0; k <= pt.w1 && k < n; k++ {
			for key, v := range cells[k] {
				win[key] += v
			}
		}
		byOwner := map[patternOwner]patternResult{}
		tested := map[patternOwner]int{}
		for _, r := range pt.testAll(win, base, baseTot) {
			o := groupOwner[r.group]
			tested[o]++
			if cur, ok := byOwner[o]; !ok || r.p < cur.p {
				byOwner[o] = r
			}
		}
		for _, o := range ownerKeys {
			r, ok := byOwner[o]
			if !ok {
				continue
			}
			// Every owner tested, whether or not it departs: a
			// correction over the owners (causal.RequestBreaks) counts
			// them all.
			pt.b.Patterns = append(pt.b.Patterns, pt.evidence(r, tested[o], win, base, baseTot))
		}
	}
	for _, o := range ownerKeys {
		v := series[o]
		if !slices.ContainsFunc(v, func(x float64) bool { return !math.IsNaN(x) }) {
			continue
		}
		s := &ingest.Series{Name: ingest.LogPatternShift, Signal: ingest.SignalLogs, Stat: "pattern", Unit: "z", Source: ingest.DerivedSource,
			T: pt.b.Grid, V: v, Aligned: true}
		if o.callee == "" {
			s.Entity = ingest.Entity{Kind: ingest.KindService, Name: o.service, Service: o.service}
			s.Labels = ingest.Labels{{Name: "service", Value: o.service}, {Name: "stat", Value: "pattern"}}
		} else {
			s.Entity = ingest.Entity{Kind: ingest.KindEdge, Name: o.service + "->" + o.callee, Service: o.callee, Caller: o.service, Callee: o.callee}
			s.Labels = ingest.Labels{{Name: "callee", Value: o.callee}, {Name: "caller", Value: o.service}, {Name: "stat", Value: "pattern"}}
		}
		pt.b.Series = append(pt.b.Series, s)
	}
}

// patternResult is one (owner, operation, event) pair's test.
type patternResult struct {
	group int32
	p     float64
}

// testAll G-tests every group with enough transitions in win and in ref,
// in group order.
func (pt *patternTests) testAll(win, ref map[patternKey]int32, refTot map[int32]int32) []patternResult {
	type gn = patternKey
	byGroup := map[int32][]gn{}
	winTot := map[int32]int32{}
	for k, v := range win {
		byGroup[k.group] = append(byGroup[k.group], k)
		winTot[k.group] += v
	}
	for k, v := range ref {
		if v > 0 && winTot[k.group] > 0 {
			if _, in := win[k]; !in {
				byGroup[k.group] = append(byGroup[k.group], k)
			}
		}
	}
	gs := make([]int32, 0, len(byGroup))
	for g := range byGroup {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	var out []patternResult
	for _, g := range gs {
		// The statistic sums in the order of the next events: the keys
		// came from map iteration, and a float sum's last bit depends on
		// its order (output is deterministic).
		slices.SortFunc(byGroup[g], func(x, y gn) int { return cmp.Compare(x.next, y.next) })
		bt, wt := float64(refTot[g]), float64(winTot[g])
		if bt < float64(pt.fo.MinPatternBaseline) || wt < float64(pt.fo.MinPatternWindow) {
			continue
		}
		stat, df := 0.0, -1
		for _, k := range byGroup[g] {
			o1, o2 := float64(ref[k]), float64(win[k])
			tot := o1 + o2
			if tot <= 0 {
				continue
			}
			df++
			e1, e2 := tot*bt/(bt+wt), tot*wt/(bt+wt)
			if o1 > 0 {
				stat += 2 * o1 * math.Log(o1/e1)
			}
			if o2 > 0 {
				stat += 2 * o2 * math.Log(o2/e2)
			}
		}
		if df < 1 || pt.recovery(byGroup[g], win, ref, wt, bt) {
			// one outcome, the same on both sides; or requests that
			// stopped failing: no break
			out = append(out, patternResult{group: g, p: 1})
			continue
		}
		out = append(out, patternResult{group: g, p: distuv.ChiSquared{K: float64(df)}.Survival(math.Max(stat, 0))})
	}
	return out
}

// recovery reports whether a group's change is a recovery rather than a
// break: requests that stopped failing. Some error line's share fell, no
// error line's share rose, and every step whose share rose was already
// taken in the reference (the requests went back to a step they knew). An
// earlier incident in the baseline, over by the window, is not a fault of
// the window.
func (pt *patternTests) recovery(keys []patternKey, win, ref map[patternKey]int32, wt, bt float64) bool {
	fell := false
	for _, k := range keys {
		d := float64(win[k])/wt - float64(ref[k])/bt
		switch {
		case d < 0 && pt.isError[k.next]:
			fell = true
		case d > 0 && (pt.isError[k.next] || ref[k] == 0):
			return false
		}
	}
	return fell
}

// pValueZ turns a (Bonferroni-adjusted) p-value into a one-sided standard
// normal deviate, 0 from p ≥ 1/2 (nothing departs) and at most maxPatternZ.
func pValueZ(p float64) float64 {
	if p >= 0.5 {
		return 0
	}
	if p <= 0 {
		return maxPatternZ
	}
	return math.Min(maxPatternZ, distuv.UnitNormal.Quantile(1-p))
}

// evidence describes a group's test in words and counts.
func (pt *patternTests) evidence(r patternResult, tested int, win, ref map[patternKey]int32, refTot map[int32]int32) ingest.PatternShift {
	g := pt.groups[r.group]
	sh := ingest.PatternShift{Service: g.service, Callee: g.callee, Operation: g.op, After: pt.eventWords(g.from),
		P: math.Min(1, r.p*float64(tested))}
	if callee, ok := strings.CutPrefix(pt.names[g.from], "call:"); ok {
		sh.AfterCall = callee
	}
	sh.Z = pValueZ(sh.P)
	var expected, instead int32 = -1, -1
	bestRef, bestGain := int32(-1), -1.0
	winTot := 0
	for k, v := range win {
		if k.group == r.group {
			winTot += int(v)
		}
	}
	for k, v := range ref {
		if k.group == r.group && (v > bestRef || v == bestRef && k.next < expected) {
			expected, bestRef = k.next, v
		}
	}
	for k, v := range win {
		if k.group != r.group {
			continue
		}
		gain := float64(v)/math.Max(float64(winTot), 1) - float64(ref[k])/math.Max(float64(refTot[r.group]), 1)
		if gain > bestGain || gain == bestGain && k.next < instead {
			instead, bestGain = k.next, gain
		}
	}
	if expected >= 0 {
		sh.Expected = pt.eventWords(expected)
		sh.BaselineHits = int(ref[patternKey{r.group, expected}])
		sh.WindowHits = int(win[patternKey{r.group, expected}])
	}
	if instead >= 0 && instead != expected {
		sh.Instead = pt.eventWords(instead)
		for _, i := range pt.examples[patternKey{r.group, instead}] {
			if tr := pt.b.Spans[i].TraceID; !slices.Contains(sh.Traces, tr) {
				sh.Traces = append(sh.Traces, tr)
			}
		}
	}
	sh.BaselineN, sh.WindowN = int(refTot[r.group]), winTot
	return sh
}

// eventWords names an event for people.
func (pt *patternTests) eventWords(i int32) string {
	name := pt.names[i]
	switch {
	case name == eventStart:
		return "the request's start"
	case name == eventEnd:
		return "the request's end"
	case strings.HasPrefix(name, "call:"):
		return "a call to " + name[len("call:"):]
	case strings.HasPrefix(name, "log:"):
		if t := pt.template(i); t != nil {
			return "log " + quoteShort(t.Pattern)
		}
	}
	return name
}

// template is the log template of a log event (nil for other events).
func (pt *patternTests) template(i int32) *ingest.LogTemplate {
	name, ok := strings.CutPrefix(pt.names[i], "log:")
	if !ok {
		return nil
	}
	k := 0
	for _, c := range name {
		k = k*10 + int(c-'0')
	}
	if k >= len(pt.b.LogTemplates) {
		return nil
	}
	return &pt.b.LogTemplates[k]
}

// quoteShort quotes a template pattern, cut to 120 bytes.
func quoteShort(s string) string {
	if len(s) > 120 {
		s = ingest.TruncateUTF8(s, 119) + "…"
	}
	return "\"" + s + "\""
}
