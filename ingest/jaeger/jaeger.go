package jaeger

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Jaeger JSON reader.
//
// Accepted shapes (any number of them concatenated, e.g. one per line):
//   - the /api/traces and UI-download envelope {"data":[trace,...],"errors":...};
//   - one trace object {traceID, spans, processes, warnings} without envelope;
//   - the older UI shape whose references[].span embeds the parent span
//     recursively (and whose spans carry an embedded "process");
//   - a bare array of spans with embedded "process" (or of trace objects).
//
// The reader streams: json.Decoder.Token walks the envelope and trace
// objects and each span is decoded on its own into small local structs, so
// memory is O(largest trace), not O(file). A trace's spans wait in a pending
// list until its "processes" map (which Jaeger writes after "spans") is known.
// The embedded references[].span is not a field of jRef: encoding/json skips
// it with its iterative scanner, never building the recursive structure.
// Nesting inside one span is bounded by encoding/json's own limit (10000).

// jTag is one typed Jaeger tag {key, type, value}. Value stays raw and is
// coerced by type only for the few keys the reader uses.
type jTag struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	// str holds the value as text when direct is set (the protobuf reader,
	// jaegerproto.go, whose values arrive typed rather than as JSON).
	str    string
	direct bool
}

// jRef is a span reference. The older UI shape's embedded "span" is
// deliberately not a field: it is skipped without being decoded.
type jRef struct {
	RefType string `json:"refType"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}

// jProcess is a Jaeger process: the service name and its tags.
type jProcess struct {
	ServiceName string `json:"serviceName"`
	Tags        []jTag `json:"tags"`
}

// jSpan is one Jaeger span. Spans and Processes are only set when an element
// of a bare array is a whole trace rather than a span.
type jSpan struct {
	TraceID       string    `json:"traceID"`
	SpanID        string    `json:"spanID"`
	ParentSpanID  string    `json:"parentSpanID"`
	OperationName string    `json:"operationName"`
	References    []jRef    `json:"references"`
	StartTime     flexInt   `json:"startTime"`
	Duration      flexInt   `json:"duration"`
	Tags          []jTag    `json:"tags"`
	ProcessID     string    `json:"processID"`
	Process       *jProcess `json:"process"`
	Warnings      []string  `json:"warnings"`

	Spans     []jSpan             `json:"spans"`
	Processes map[string]jProcess `json:"processes"`
}

// flexInt is an integer that may arrive as a JSON number or a decimal string
// (Jaeger writes µs as numbers; other producers quote int64 beyond 2^53).
type flexInt int64

var int64Type = reflect.TypeFor[int64]()

// UnmarshalJSON accepts 123, "123", 1.23e6 and null (0).
func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*f = 0
		return nil
	}
	quoted := len(s) >= 2 && s[0] == '"'
	if quoted {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*f = flexInt(v)
		return nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= -9.2e18 && v <= 9.2e18 {
		*f = flexInt(v)
		return nil
	}
	what := "number " + string(b)
	if quoted {
		what = "string " + string(b)
	} else if len(b) > 0 && (b[0] == 't' || b[0] == 'f') {
		what = "bool"
	} else if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		what = "object or array"
	}
	return &json.UnmarshalTypeError{Value: what, Type: int64Type}
}

// procInfo is a resolved process.
type procInfo struct {
	service ingest.Sym
	loc     ingest.LocTags
}

// pendingSpan waits for its trace's processes before it is committed.
type pendingSpan struct {
	span     ingest.Span
	procID   string
	embedded *procInfo         // the span's own "process", when it has one
	loc      ingest.LocTags    // span-level placement tags
	llm      ingest.LLMRequest // the LLM request the span's gen_ai tags describe (Known() false: none)
}

// traceState collects one trace object's keys.
type traceState struct {
	id        string
	pending   []pendingSpan
	procs     map[string]jProcess
	procCache map[string]procInfo
	warnings  []string
	dropped   int // spans beyond lim.MaxTraceSpans
}

func (t *traceState) reset() {
	t.id = ""
	t.dropped = 0
	t.pending = t.pending[:0]
	t.procs = nil
	clear(t.procCache)
	t.warnings = nil
}

// jaegerReader is the state of one decodeJaeger call.
type jaegerReader struct {
	name string
	file ingest.Sym // name, the spans' Source
	src  io.Reader
	dec  *json.Decoder
	lim  ingest.Limits
	b    *ingest.Bundle
	in   *ingest.Interner
	js   jSpan // reused between spans
	// spanOff is the byte offset of the array element last decoded.
	spanOff int64
	tr      traceState

	traces      int // complete traces (or bare spans) committed
	limited     bool
	srcWarn     int
	firstWarn   string
	apiErrs     int
	firstAPIErr string
	crossTrace  int
	unknownProc int
	procs       ingest.ProcessSet // processes with a PID, recorded once
	badSpans    int
	firstBad    error
	bigTraces   int // traces with more than lim.MaxTraceSpans spans
	bigDropped  int // their spans dropped
	manyRefs    int // spans with more than maxSpanRefs references
	mostRefs    int
	// fastProcs caches resolved process objects by their raw JSON text
	// (fast path only, jaegerfast.go).
	fastProcs   map[string]procText
	fastProcSet map[string]jProcess // reused as each trace's procs
	// recentProcs are, per process ID, texts of fastProcs last met under
	// it, most recent first (fastProcesses matches them without
	// delimiting or hashing the object).
	recentProcs map[string]*recentProcs
	// syms, llmAttrs and kinds cache r.in.Sym, ingest.LLMAttrOf and
	// ingest.ParseSpanKind (jaegerids.go).
	syms     strCache[ingest.Sym]
	llmAttrs strCache[ingest.LLMAttr]
	kinds    strCache[ingest.SpanKind]
	// size is the input's length when known (0: not), read how much of it
	// has been read so far (fast path): growSpans sizes the spans by them.
	size, read int64
}

// decodeJaeger reads Jaeger JSON (see the shapes above) into spans.
func decodeJaeger(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	dec := json.NewDecoder(r)
	jr := &jaegerReader{name: name, file: ingest.Intern(name), src: r, dec: dec, lim: lim, b: &ingest.Bundle{}, in: ingest.NewInterner(lim.MaxStringBytes)}
	jr.tr.procCache = map[string]procInfo{}
	return jr.finish(jr.run())
}

// run walks the top-level values until EOF, an error or the span limit.
func (r *jaegerReader) run() error {
	for values := 0; ; values++ {
		off := r.dec.InputOffset()
		tok, err := r.dec.Token()
		if errors.Is(err, io.EOF) {
			if values == 0 {
				return ingest.ErrorAt(r.name, off, errors.New("empty input"))
			}
			return nil
		}
		if err != nil {
			return r.tokErr(err)
		}
		switch tok {
		case json.Delim('['):
			err = r.bareArray()
		case json.Delim('{'):
			err = r.topObject()
		default:
			return ingest.ErrorAt(r.name, r.dec.InputOffset(), fmt.Errorf("jaeger: expected an object or array at top level, found %s", ingest.DescribeToken(tok)))
		}
		if err != nil || r.limited {
			return err
		}
	}
}

// topObject reads an envelope or a bare trace object ('{' already read).
func (r *jaegerReader) topObject() error {
	r.tr.reset()
	isTrace := false
	for r.dec.More() {
		key, err := r.key()
		if err != nil {
			return err
		}
		switch key {
		case "data":
			err = r.dataArray()
		case "errors":
			err = r.apiErrors()
		case "traceID", "spans", "processes", "warnings":
			isTrace = true
			err = r.traceKey(key)
		default:
			err = r.skip()
		}
		if err != nil || r.limited {
			return err
		}
	}
	if err := r.expect('}'); err != nil {
		return err
	}
	if isTrace {
		r.flushTrace()
	}
	return nil
}

// dataArray reads the envelope's "data" array of traces.
func (r *jaegerReader) dataArray() error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.tokErr(err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return ingest.ErrorAt(r.name, r.dec.InputOffset(), fmt.Errorf("jaeger: \"data\" must be an array of traces, found %s", ingest.DescribeToken(tok)))
	}
	for r.dec.More() {
		if err := r.expect('{'); err != nil {
			return err
		}
		r.tr.reset()
		for r.dec.More() {
			key, err := r.key()
			if err != nil {
				return err
			}
			if err := r.traceKey(key); err != nil {
				return err
			}
		}
		if err := r.expect('}'); err != nil {
			return err
		}
		r.flushTrace()
		if r.limited {
			return nil
		}
	}
	return r.expect(']')
}

// traceKey reads the value of one key of a trace object into r.tr.
func (r *jaegerReader) traceKey(key string) error {
	switch key {
	case "traceID":
		return r.decodeValue(&r.tr.id)
	case "spans":
		return r.spansArray()
	case "processes":
		return r.decodeValue(&r.tr.procs)
	case "warnings":
		var w []string
		if err := r.decodeValue(&w); err != nil {
			return err
		}
		r.tr.warnings = append(r.tr.warnings, w...)
		return nil
	}
	return r.skip()
}

// spansArray reads a trace's "spans" array one span at a time.
func (r *jaegerReader) spansArray() error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.tokErr(err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return ingest.ErrorAt(r.name, r.dec.InputOffset(), fmt.Errorf("jaeger: \"spans\" must be an array, found %s", ingest.DescribeToken(tok)))
	}
	for first := true; r.dec.More(); first = false {
		ok, err := r.decodeSpan(first)
		if err != nil {
			return err
		}
		if ok {
			if p, good := r.convert(&r.js); good {
				r.queue(p)
			}
		}
	}
	return r.expect(']')
}

// bareArray reads a top-level array of spans (or of traces).
func (r *jaegerReader) bareArray() error {
	for first := true; r.dec.More(); first = false {
		ok, err := r.decodeSpan(first)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		r.tr.reset()
		if r.js.Spans != nil || r.js.Processes != nil {
			// A whole trace object.
			r.tr.id, r.tr.procs, r.tr.warnings = r.js.TraceID, r.js.Processes, r.js.Warnings
			for i := range r.js.Spans {
				if p, good := r.convert(&r.js.Spans[i]); good {
					r.queue(p)
				}
			}
		} else if p, good := r.convert(&r.js); good {
			r.queue(p)
		}
		r.flushTrace()
		if r.limited {
			return nil
		}
	}
	return r.expect(']')
}

// queue adds a converted span to its trace, up to lim.MaxTraceSpans: a
// trace's spans wait in memory for its processes, so one endless trace must
// not hold the whole input.
func (r *jaegerReader) queue(p pendingSpan) {
	if len(r.tr.pending) >= r.lim.MaxTraceSpans {
		r.tr.dropped++
		return
	}
	r.tr.pending = append(r.tr.pending, p)
}

// maxSpanRefs is the most references of one span that are looked at for
// its parent; more are counted in a warning.
const maxSpanRefs = 1000

// decodeSpan decodes the next array element into r.js. ok is false (and err
// nil) when the element was read but had a wrong-typed field: it is counted
// as a bad span and skipped. err is a fatal, positioned error.
func (r *jaegerReader) decodeSpan(first bool) (ok bool, err error) {
	base := r.dec.InputOffset()
	if !first {
		base++ // More() stopped at the ',' that precedes the element
	}
	r.spanOff = base
	js := &r.js
	tags, refs := js.Tags[:cap(js.Tags)], js.References[:cap(js.References)]
	for i := range tags {
		tags[i].Key, tags[i].Type, tags[i].Value, tags[i].str, tags[i].direct = "", "", tags[i].Value[:0], "", false
	}
	// encoding/json decodes an array element into the slice's old element
	// where the capacity holds one, keeping the fields the new object
	// lacks: a reference without a spanID would inherit the previous
	// span's (FuzzJaegerFast's ec5752dbacb215bb, where the fast path,
	// which starts each reference from zero, disagreed).
	clear(refs)
	*js = jSpan{Tags: tags[:0], References: refs[:0]}
	err = r.dec.Decode(js)
	if err == nil {
		return true, nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		r.badSpans++
		if r.firstBad == nil {
			r.firstBad = ingest.ErrorAt(r.name, base+te.Offset, ingest.TypeErrMsg(te))
		}
		return false, nil
	}
	return false, r.valueErr(err)
}

// convert turns a decoded span into a pending span. It returns false for a
// span whose IDs do not parse (counted as a bad span).
func (r *jaegerReader) convert(js *jSpan) (pendingSpan, bool) {
	var p pendingSpan
	ok := r.convertInto(js, &p)
	return p, ok
}

// convertInto is convert into *p, which must be zero (the fast path
// converts into the pending list's next element, saving a copy).
func (r *jaegerReader) convertInto(js *jSpan, p *pendingSpan) bool {
	s := &p.span
	tid := js.TraceID
	if tid == "" {
		tid = r.tr.id
	}
	var err error
	if s.TraceID, err = parseTraceID(tid); err == nil {
		s.SpanID, err = parseSpanID(js.SpanID)
	}
	if err != nil {
		r.badSpans++
		if r.firstBad == nil {
			r.firstBad = ingest.ErrorAt(r.name, r.spanOff, fmt.Errorf("jaeger span %q: %w", js.SpanID, err))
		}
		return false
	}
	s.ParentID = r.parent(js, s.TraceID)
	s.Operation = r.sym(js.OperationName)
	s.Start = ingest.FromUnixMicro(int64(js.StartTime))
	s.Duration = time.Duration(ingest.FromUnixMicro(int64(js.Duration))) // saturates: checkValues warns
	s.Source = r.file
	p.llm = ingest.NewLLMRequest()
	r.spanTags(js.Tags, s, &p.loc, &p.llm)
	p.procID = js.ProcessID
	if js.Process != nil {
		pi := r.process(*js.Process)
		p.embedded = &pi
	}
	if len(js.Warnings) > 0 {
		r.sourceWarnings(js.Warnings)
	}
	return true
}

// flushTrace resolves the pending spans of r.tr against its processes and
// commits them to the bundle, up to Limits.MaxSpans.
func (r *jaegerReader) flushTrace() {
	if len(r.tr.warnings) > 0 {
		r.sourceWarnings(r.tr.warnings)
	}
	var traceID ingest.TraceID
	if r.tr.id != "" {
		traceID, _ = parseTraceID(r.tr.id)
	}
	committed := false
	// last is the process ID last resolved in this loop, lastPI its
	// procInfo: what procCache holds for it (an entry is never changed
	// here), without the lookup, for the runs of spans of one process.
	last, lastPI, haveLast := "", procInfo{}, false
	for i := range r.tr.pending {
		if len(r.b.Spans) >= r.lim.MaxSpans {
			r.limited = true
			break
		}
		p := &r.tr.pending[i]
		var pi procInfo
		switch {
		case p.embedded != nil:
			pi = *p.embedded
		case haveLast && p.procID == last:
			pi = lastPI
		default:
			// procCache holds only IDs of r.tr.procs: a hit is one lookup.
			if c, ok := r.tr.procCache[p.procID]; ok {
				pi = c
				last, lastPI, haveLast = p.procID, c, true
				break
			}
			jp, found := r.tr.procs[p.procID]
			if !found {
				r.unknownProc++
				break // out of the switch: the span keeps an empty service
			}
			pi = r.process(jp)
			r.tr.procCache[p.procID] = pi
			last, lastPI, haveLast = p.procID, pi, true
		}
		loc := p.loc
		loc.Merge(pi.loc)
		r.procs.Add(r.b, pi.service, loc, r.name)
		if len(r.b.Spans) == cap(r.b.Spans) {
			r.b.Spans = ingest.GrowSpans(r.b.Spans, grownFor(len(r.b.Spans), 4096, r.read, r.size)) // as ingest.AppendSpan without a size
		}
		r.b.Spans = append(r.b.Spans, p.span)
		s := &r.b.Spans[len(r.b.Spans)-1] // completed in place
		if s.TraceID == (ingest.TraceID{}) {
			s.TraceID = traceID
		}
		s.Service = pi.service
		loc.Place(s)
		if p.llm.Known() {
			p.llm.Key = ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID}
			if len(r.b.LLM) == cap(r.b.LLM) {
				r.b.LLM = slices.Grow(r.b.LLM, grownFor(len(r.b.LLM), 1, r.read, r.size))
			}
			r.b.LLM = append(r.b.LLM, p.llm)
		}
		committed = true
	}
	if committed {
		r.traces++
	}
	if r.tr.dropped > 0 {
		r.bigTraces++
		r.bigDropped += r.tr.dropped
		r.tr.dropped = 0
	}
	r.tr.pending = r.tr.pending[:0]
}

// sourceWarnings counts warnings Jaeger itself attached to spans and traces.
func (r *jaegerReader) sourceWarnings(ws []string) {
	for _, w := range ws {
		if r.srcWarn == 0 {
			r.firstWarn = w
		}
		r.srcWarn++
	}
}

// apiErrors reads the envelope's "errors" array ({code, msg, traceID}).
func (r *jaegerReader) apiErrors() error {
	var errs []struct {
		Code    int    `json:"code"`
		Msg     string `json:"msg"`
		TraceID string `json:"traceID"`
	}
	if err := r.decodeValue(&errs); err != nil {
		return err
	}
	for _, e := range errs {
		if r.apiErrs == 0 {
			r.firstAPIErr = fmt.Sprintf("code %d: %s", e.Code, e.Msg)
			if e.TraceID != "" {
				r.firstAPIErr += " (trace " + e.TraceID + ")"
			}
		}
		r.apiErrs++
	}
	return nil
}

// finish turns the walk's outcome into the result: a fatal error before any
// complete trace is an error; after one it becomes an ErrPartialInput warning.
func (r *jaegerReader) finish(err error) (*ingest.Bundle, error) {
	b := r.b
	if err != nil {
		if len(b.Spans) == 0 {
			return nil, err
		}
		lostSpans := len(r.tr.pending)
		rest, _ := io.Copy(io.Discard, r.src)
		total := r.dec.InputOffset() + ingest.BufferedLen(r.dec) + rest
		at := int64(-1)
		var ie *ingest.InputError
		if errors.As(err, &ie) {
			at = ie.Offset
		}
		lost := ""
		if at >= 0 && total > at {
			lost = fmt.Sprintf(" and the last %d of %d bytes", total-at, total)
		}
		kind := ingest.ErrPartialInput
		if errors.Is(err, ingest.ErrLimit) {
			kind = ingest.ErrLimit
		}
		b.Warn(kind, r.name, max(1, lostSpans), "kept %d spans of %d complete traces; dropped %d spans of an unfinished trace%s: %v",
			len(b.Spans), r.traces, lostSpans, lost, err)
	}
	if len(b.Spans) == 0 && r.firstBad != nil {
		return nil, r.firstBad
	}
	if r.srcWarn > 0 {
		b.Warn(ingest.ErrSourceWarning, r.name, r.srcWarn, "%d Jaeger span/trace warnings; first: %q", r.srcWarn, r.firstWarn)
	}
	if r.apiErrs > 0 {
		b.Warn(ingest.ErrSourceWarning, r.name, r.apiErrs, "Jaeger API reported %d errors; first: %s", r.apiErrs, r.firstAPIErr)
	}
	if r.crossTrace > 0 {
		b.Warn(ingest.ErrOrphanSpan, r.name, r.crossTrace, "%d spans reference a parent only in another trace; treated as roots", r.crossTrace)
	}
	if r.unknownProc > 0 {
		b.Warn(ingest.ErrBadValue, r.name, r.unknownProc, "%d spans name a processID missing from their trace's processes; service left empty", r.unknownProc)
	}
	if r.badSpans > 0 {
		b.Warn(ingest.ErrBadValue, r.name, r.badSpans, "%d malformed spans skipped; first: %v", r.badSpans, r.firstBad)
	}
	if r.in.Truncated > 0 {
		b.Warn(ingest.ErrLimit, r.name, r.in.Truncated, "%d names longer than %d bytes truncated", r.in.Truncated, r.lim.MaxStringBytes)
	}
	if r.limited {
		b.Warn(ingest.ErrLimit, r.name, 1, "stopped after %d spans (the span limit); the rest of the input was not read", len(b.Spans))
	}
	if r.bigTraces > 0 {
		b.Warn(ingest.ErrLimit, r.name, r.bigDropped, "%d spans of %d traces with more than %d spans dropped (--max-trace-spans)", r.bigDropped, r.bigTraces, r.lim.MaxTraceSpans)
	}
	if r.manyRefs > 0 {
		b.Warn(ingest.ErrBadValue, r.name, r.manyRefs, "%d spans carry more than %d references (up to %d); only the first %d were looked at for the parent",
			r.manyRefs, maxSpanRefs, r.mostRefs, maxSpanRefs)
	}
	return b, nil
}

// --- token helpers -------------------------------------------------------

// key reads an object key.
func (r *jaegerReader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", r.tokErr(err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", ingest.ErrorAt(r.name, r.dec.InputOffset(), fmt.Errorf("jaeger: expected an object key, found %s", ingest.DescribeToken(tok)))
	}
	return s, nil
}

// expect reads the delimiter d.
func (r *jaegerReader) expect(d json.Delim) error {
	off := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		return r.tokErr(err)
	}
	if tok != d {
		return ingest.ErrorAt(r.name, off, fmt.Errorf("jaeger: expected %q, found %s", d, ingest.DescribeToken(tok)))
	}
	return nil
}

// skip discards the next value, enforcing Limits.MaxDepth.
func (r *jaegerReader) skip() error {
	depth := 0
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return r.tokErr(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			if depth > r.lim.MaxDepth {
				return ingest.ErrorAt(r.name, r.dec.InputOffset(), fmt.Errorf("%w: JSON nested deeper than %d", ingest.ErrLimit, r.lim.MaxDepth))
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// decodeValue decodes the next value into v with positioned errors.
func (r *jaegerReader) decodeValue(v any) error {
	base := r.dec.InputOffset()
	err := r.dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return ingest.ErrorAt(r.name, base+te.Offset, ingest.TypeErrMsg(te))
	}
	return r.valueErr(err)
}

// tokErr positions an error returned by Token at the current offset.
func (r *jaegerReader) tokErr(err error) error {
	return ingest.JSONError(r.name, err, r.dec)
}

// valueErr positions a fatal error returned by Decode (syntax, truncation or
// read error) precisely, by rescanning the value's buffered bytes.
func (r *jaegerReader) valueErr(err error) error {
	return ingest.JSONErrorAt(r.name, err, r.dec, r.dec.InputOffset()) // a failed Decode leaves dec at the value
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatJaegerJSON, Decode: decodeJaeger, Fast: decodeJaegerFast, FastFile: decodeJaegerFile, SelfGuarded: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityJaegerJSON, Match: func(h *ingest.Head) bool { return h.JSON() && (h.Has("spanID") || h.Has("traceID") && h.Has("spans")) }}}})
}
