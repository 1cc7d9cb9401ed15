package live

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Grafana Tempo (--tempo-url), through its documented HTTP API: the
// services from the service.name tag values, then per service the HTTP
// Jaeger path's sampling plan (FetchJaeger's sampler: time-sliced baseline
// searches, the window's slow and error traces, the same budgets and
// deadline) as TraceQL searches (/api/search with q, start, end, limit and
// spss), which return trace IDs; then the traces by ID (/api/v2/traces/ID,
// else the older /api/traces/ID) in parallel, window traces first, under
// the request bound and the byte budget. A full search page is paged by
// halving its time range. Tempo answers protobuf when asked and JSON
// otherwise (IDs in base64 there); both become one OTLP TracesData file
// (traces.tempo.otlp.binpb) that ingest reads by content. Auth, TLS,
// X-Scope-OrgID (--org-id), retries and redaction are the shared client's.

// Tempo's defaults: search results per request (Tempo's own default limit
// is 20; a page this full is split), spans per span set, and how deep a
// full page is halved (each search also spends at most 4 pages per page of
// traces it wants on halving).
const (
	DefaultTempoPage = 100
	tempoSpss        = 50
	tempoMaxSplits   = 8
)

// tempo is the Tempo backend of the sampler.
type tempo struct {
	c    *Client
	page int

	mu      sync.Mutex
	partial int    // searches or traces Tempo marked partial
	pages   int    // extra search pages (halved ranges)
	v1      bool   // the server has no /api/v2/traces: use /api/traces
	first   string // the first partial answer's message
}

func (*tempo) name() string { return "tempo" }

func (b *tempo) services(ctx context.Context) ([]string, error) {
	data, err := b.c.Get(ctx, "/api/v2/search/tag/resource.service.name/values", nil)
	if se := (*StatusError)(nil); errors.As(err, &se) && se.Code == http.StatusNotFound {
		data, err = b.c.Get(ctx, "/api/search/tag/service.name/values", nil)
		if err != nil {
			return nil, err
		}
		var r struct {
			TagValues []string `json:"tagValues"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("decode /api/search/tag/service.name/values: %w", err)
		}
		return r.TagValues, nil
	}
	if err != nil {
		return nil, err
	}
	var r struct {
		TagValues []struct {
			Value string `json:"value"`
		} `json:"tagValues"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode /api/v2/search/tag/resource.service.name/values: %w", err)
	}
	out := make([]string, 0, len(r.TagValues))
	for _, v := range r.TagValues {
		out = append(out, v.Value)
	}
	return out, nil
}

// operations is one service-wide search: Tempo's window searches are not
// split by span name.
func (*tempo) operations(context.Context, string) ([]string, error) { return []string{""}, nil }

// traceQL is the search of one findParams: the service's spans (a
// resource attribute), optionally of one span name, at least a duration,
// or failed.
func traceQL(p findParams) string {
	conds := []string{"resource.service.name = " + strconv.Quote(p.service)}
	if p.operation != "" {
		conds = append(conds, "name = "+strconv.Quote(p.operation))
	}
	if p.minDuration > 0 {
		conds = append(conds, "duration >= "+strconv.FormatInt(p.minDuration.Microseconds(), 10)+"us")
	}
	if p.errorsOnly {
		conds = append(conds, "status = error")
	}
	return "{ " + strings.Join(conds, " && ") + " }"
}

// tempoSearch is /api/search's answer.
type tempoSearch struct {
	Traces []struct {
		TraceID           string `json:"traceID"`
		StartTimeUnixNano string `json:"startTimeUnixNano"`
		DurationMs        int64  `json:"durationMs"`
		SpanSet           *struct {
			Spans []struct {
				DurationNanos string `json:"durationNanos"`
			} `json:"spans"`
		} `json:"spanSet"`
		SpanSets []struct {
			Spans []struct {
				DurationNanos string `json:"durationNanos"`
			} `json:"spans"`
		} `json:"spanSets"`
	} `json:"traces"`
	Metrics struct {
		CompletedJobs int `json:"completedJobs"`
		TotalJobs     int `json:"totalJobs"`
	} `json:"metrics"`
}

func (b *tempo) find(ctx context.Context, p findParams) ([]*trace, error) {
	seen := map[string]*trace{}
	var order []string
	budget := 4 * (p.limit/b.page + 1) // pages this search may spend halving ranges
	err := b.search(ctx, p, p.start, p.end, 0, &budget, seen, &order)
	out := make([]*trace, 0, len(order))
	for _, id := range order {
		out = append(out, seen[id])
	}
	if err != nil && len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// search runs one TraceQL search over [a, b]; a page that comes back full
// while more traces are wanted is searched again in two halves.
func (b *tempo) search(ctx context.Context, p findParams, a, e time.Time, depth int, budget *int, seen map[string]*trace, order *[]string) error {
	want := p.limit - len(*order)
	if want <= 0 {
		return nil
	}
	limit := min(want, b.page)
	q := url.Values{"q": {traceQL(p)}, "start": {strconv.FormatInt(a.Unix(), 10)}, "end": {strconv.FormatInt(max(e.Unix(), a.Unix()+1), 10)},
		"limit": {strconv.Itoa(limit)}, "spss": {strconv.Itoa(tempoSpss)}}
	data, err := b.c.Get(ctx, "/api/search", q)
	if err != nil {
		return err
	}
	var r tempoSearch
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("decode /api/search: %w", err)
	}
	if r.Metrics.TotalJobs > 0 && r.Metrics.CompletedJobs < r.Metrics.TotalJobs {
		b.note(fmt.Sprintf("search %s: %d of %d jobs completed", traceQL(p), r.Metrics.CompletedJobs, r.Metrics.TotalJobs))
	}
	for _, tr := range r.Traces {
		id := strings.ToLower(tr.TraceID)
		if id == "" {
			continue
		}
		id = strings.Repeat("0", max(0, 32-len(id))) + id // Tempo drops leading zeros
		if seen[id] != nil || len(*order) >= p.limit {
			continue
		}
		t := &trace{id: id, durs: map[string][]time.Duration{}, errors: p.errorsOnly}
		sets := tr.SpanSets
		if tr.SpanSet != nil {
			sets = append(sets, *tr.SpanSet)
		}
		for _, s := range sets {
			for _, sp := range s.Spans {
				if d, err := strconv.ParseInt(sp.DurationNanos, 10, 64); err == nil {
					t.durs[p.service] = append(t.durs[p.service], time.Duration(d))
				}
			}
		}
		if len(t.durs[p.service]) == 0 && tr.DurationMs > 0 {
			t.durs[p.service] = []time.Duration{time.Duration(tr.DurationMs) * time.Millisecond}
		}
		seen[id] = t
		*order = append(*order, id)
	}
	if len(r.Traces) < limit || len(*order) >= p.limit || depth >= tempoMaxSplits || *budget < 2 || e.Sub(a) < 2*time.Second {
		return nil
	}
	mid := a.Add(e.Sub(a) / 2)
	*budget -= 2
	b.mu.Lock()
	b.pages += 2
	b.mu.Unlock()
	if err := b.search(ctx, p, a, mid, depth+1, budget, seen, order); err != nil {
		return err
	}
	return b.search(ctx, p, mid, e, depth+1, budget, seen, order)
}

// note counts a partial answer.
func (b *tempo) note(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.partial == 0 {
		b.first = msg
	}
	b.partial++
}

// hydrate fetches the kept traces by ID, window traces first, then the
// baseline sample, concurrently, each under the request bound and the byte
// budget; a trace that cannot be fetched is dropped and named in Missing.
func (b *tempo) hydrate(ctx context.Context, s *sampler, ts []*trace) []*trace {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].window && !ts[j].window })
	var wg sync.WaitGroup
	for _, t := range ts {
		if ctx.Err() != nil || !s.request(false) {
			s.mu.Lock()
			s.res.Skipped++
			s.mu.Unlock()
			continue
		}
		wg.Add(1)
		s.sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-s.sem }()
			part, err := b.traceByID(ctx, t.id, s.opt.Start, s.opt.End)
			s.mu.Lock()
			defer s.mu.Unlock()
			switch {
			case err != nil:
				s.res.Missing = append(s.res.Missing, fmt.Sprintf("trace %s: %v", t.id, err))
			case !s.opt.Budget.take(int64(len(part))):
				s.res.Dropped++
			default:
				t.parts = []json.RawMessage{part}
			}
		}()
	}
	wg.Wait()
	out := ts[:0]
	for _, t := range ts {
		if len(t.parts) > 0 {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// traceByID fetches one trace as an OTLP TracesData message.
func (b *tempo) traceByID(ctx context.Context, id string, start, end time.Time) ([]byte, error) {
	q := url.Values{"start": {strconv.FormatInt(start.Unix(), 10)}, "end": {strconv.FormatInt(end.Unix()+1, 10)}}
	b.mu.Lock()
	v1 := b.v1
	b.mu.Unlock()
	const accept = "application/protobuf, application/json;q=0.5"
	path := "/api/v2/traces/" + url.PathEscape(id)
	if v1 {
		path = "/api/traces/" + url.PathEscape(id)
	}
	data, ctype, err := b.c.GetAs(ctx, path, q, accept)
	if se := (*StatusError)(nil); !v1 && errors.As(err, &se) && se.Code == http.StatusNotFound && !strings.Contains(strings.ToLower(se.Body), "trace") {
		path = "/api/traces/" + url.PathEscape(id) // an older Tempo: no v2 route
		if data, ctype, err = b.c.GetAs(ctx, path, q, accept); err == nil {
			b.mu.Lock()
			b.v1 = true
			b.mu.Unlock()
			v1 = true
		}
	}
	if err != nil {
		return nil, err
	}
	if strings.Contains(ctype, "protobuf") {
		return b.protoTrace(data, v1, id)
	}
	return b.jsonTrace(data, v1, id)
}

// protoTrace reads tempopb's answer: v2's TraceByIDResponse (trace 1,
// status 3 with PARTIAL = 1, message 4) or v1's Trace, whose field 1 is
// ResourceSpans as in TracesData.
func (b *tempo) protoTrace(data []byte, v1 bool, id string) ([]byte, error) {
	if v1 {
		return checkTracesData(data)
	}
	var tr []byte
	partial, msg := false, ""
	for rest := data; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return nil, errors.New("decode TraceByIDResponse: bad tag")
		}
		rest = rest[n:]
		m := protowire.ConsumeFieldValue(num, typ, rest)
		if m < 0 {
			return nil, errors.New("decode TraceByIDResponse: cut short")
		}
		switch {
		case num == 1 && typ == protowire.BytesType:
			tr, _ = protowire.ConsumeBytes(rest)
		case num == 3 && typ == protowire.VarintType:
			v, _ := protowire.ConsumeVarint(rest)
			partial = v == 1
		case num == 4 && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(rest)
			msg = string(v)
		}
		rest = rest[m:]
	}
	if partial {
		b.note(fmt.Sprintf("trace %s: partial: %s", id, msg))
	}
	return checkTracesData(tr)
}

// checkTracesData validates a TracesData message with pdata.
func checkTracesData(b []byte) ([]byte, error) {
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
	if err != nil {
		return nil, fmt.Errorf("decode trace: %w", err)
	}
	if td.SpanCount() == 0 {
		return nil, errors.New("trace has no spans")
	}
	return b, nil
}

// jsonTrace reads the JSON answer: v2 {"trace":{"resourceSpans":...},
// "status","message"}, v1 {"batches":[...]}; Tempo writes IDs in base64,
// which become OTLP/JSON's hex before pdata reads them.
func (b *tempo) jsonTrace(data []byte, v1 bool, id string) ([]byte, error) {
	var doc struct {
		Trace   map[string]json.RawMessage `json:"trace"`
		Batches json.RawMessage            `json:"batches"`
		Status  string                     `json:"status"`
		Message string                     `json:"message"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode trace JSON: %w", err)
	}
	rs := doc.Batches
	if doc.Trace != nil {
		rs = doc.Trace["resourceSpans"]
		if rs == nil {
			rs = doc.Trace["batches"]
		}
	}
	if strings.EqualFold(doc.Status, "PARTIAL") {
		b.note(fmt.Sprintf("trace %s: partial: %s", id, doc.Message))
	}
	var generic []any
	if err := json.Unmarshal(rs, &generic); err != nil || len(generic) == 0 {
		return nil, errors.New("trace JSON has no resourceSpans")
	}
	hexIDs(generic)
	fixed, err := json.Marshal(map[string]any{"resourceSpans": generic})
	if err != nil {
		return nil, err
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(fixed)
	if err != nil {
		return nil, fmt.Errorf("decode trace JSON: %w", err)
	}
	return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
}

// hexIDs rewrites base64 traceId/spanId/parentSpanId values (Tempo's JSON)
// as hex, walking the whole document; hex values are left as they are.
func hexIDs(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			hexIDs(e)
		}
	case map[string]any:
		for k, e := range x {
			s, ok := e.(string)
			if ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
				x[k] = hexID(s)
				continue
			}
			hexIDs(e)
		}
	}
}

func hexID(s string) string {
	if s == "" {
		return s
	}
	if _, err := hex.DecodeString(s); err == nil && (len(s) == 32 || len(s) == 16) {
		return s
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && (len(b) == 16 || len(b) == 8) {
		return hex.EncodeToString(b)
	}
	return s
}

// encode concatenates the traces' TracesData messages (one TracesData).
func (*tempo) encode(ts []*trace) ([]byte, error) {
	var buf bytes.Buffer
	for _, t := range ts {
		for _, p := range t.parts {
			buf.Write(p)
		}
	}
	return buf.Bytes(), nil
}

// FetchTempo samples Tempo's traces over the range (see above); it errs
// only when no service can be listed.
func FetchTempo(ctx context.Context, c *Client, opt JaegerOptions, page int) (*JaegerResult, error) {
	if page <= 0 {
		page = DefaultTempoPage
	}
	be := &tempo{c: c, page: page}
	res, err := fetchJaeger(ctx, opt, []backend{be}, c.URL())
	if err != nil {
		return nil, err
	}
	if be.pages > 0 {
		res.Sampling += fmt.Sprintf("; %d extra Tempo search pages (a full page of %d was searched again in halves of its range)", be.pages, page)
	}
	res.Partial, res.FirstPartial = be.partial, be.first
	return res, nil
}
