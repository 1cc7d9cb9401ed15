package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JaegerOptions configure a trace fetch.
type JaegerOptions struct {
	Start, End             time.Time // the whole range (baseline + window)
	WindowStart, WindowEnd time.Time // the incident window (slow/error traces come from here)
	MaxTraces              int       // per service, 0 = 1000
	Slices                 int       // time slices of the baseline sample, 0 = one a minute (6..60)
	Concurrency            int       // requests in flight, 0 = 4
	MaxServices            int       // services sampled (aggregate order, else the first by name), 0 = DefaultMaxServices
	MaxRequests            int       // searches and listings in all, 0 = DefaultMaxRequests
	Budget                 *Budget   // bytes of traces kept in memory, nil = unbounded
	// Aggregates are per-service deviations from the metrics' request
	// aggregates (AggregateScores); nil = none. They order the services
	// and skip the window searches of those that did not move.
	Aggregates map[string]float64
	Progress   func(format string, args ...any)
}

// Defaults of the request bounds: a server listing 100k services must not
// start millions of searches.
const (
	DefaultMaxServices = 200
	DefaultMaxTraces   = 1000 // JaegerOptions.MaxTraces: traces per service
	DefaultConcurrency = 4    // JaegerOptions.Concurrency: requests in flight
	DefaultMaxRequests = 3000
)

// JaegerResult is what a trace fetch produced.
type JaegerResult struct {
	API      string   // "grpc-v2", "grpc-v3" (gRPC), "v3" or "v1" (HTTP)
	FileName string   // traces.grpc-v2.jaeger.pb, traces.grpc-v3.otlp.binpb, traces.v3.otlp.json or traces.v1.jaeger.json
	Body     []byte   // the file, in a format ingest reads
	Services []string // services the server listed
	Traces   int      // distinct traces kept
	Errors   int      // of which carry an error span
	Capped   int      // requests that returned their full limit (the sample is thinner than the traffic there)
	Requests int
	Sampling string   // one line stating the sampling
	Missing  []string // what could not be fetched ("service x: ...")
	// Listed is how many services the server listed (Services holds at most
	// MaxServices of them); Skipped counts searches and listings not run
	// because the request bound was hit or the context ended; Stopped is the
	// context's error when it ended during the fetch (what arrived is kept).
	Listed  int
	Skipped int
	Stopped error
	// Dropped counts traces not kept because the byte budget was spent.
	Dropped int
	// Quiet counts the services whose window was not searched for slow or
	// error traces because their aggregates did not move.
	Quiet int
	// Fallbacks say which APIs were tried before API and why (a refused
	// gRPC endpoint, a server without api_v3).
	Fallbacks []string
	// Partial counts the answers the server marked incomplete (Tempo: a
	// search whose jobs did not all complete, a PARTIAL trace);
	// FirstPartial is the first one's text.
	Partial      int
	FirstPartial string
}

// trace is one fetched trace: its parts in the server's format.
type trace struct {
	window bool // found by a window search (not only the baseline sample)
	id     string
	parts  []json.RawMessage // v3: resourceSpans entries; v1: the trace object
	durs   map[string][]time.Duration
	errors bool
}

// findParams are one trace search.
type findParams struct {
	service, operation string
	start, end         time.Time
	limit              int
	minDuration        time.Duration
	errorsOnly         bool // only honoured by v1 (api_v3 over HTTP has no attribute filter)
}

// backend is one Jaeger API flavour.
type backend interface {
	services(ctx context.Context) ([]string, error)
	operations(ctx context.Context, service string) ([]string, error)
	find(ctx context.Context, p findParams) ([]*trace, error)
	encode(traces []*trace) ([]byte, error)
	name() string
}

// filtersErrors reports an API whose search takes the error=true tag
// (v1 over HTTP, api_v2 over gRPC).
func filtersErrors(be backend) bool {
	return be.name() == "v1" || be.name() == "grpc-v2" || be.name() == "tempo"
}

// hydrator is a backend whose searches return trace IDs only (Tempo): the
// traces are fetched after the sampling, under the same bounds.
type hydrator interface {
	hydrate(ctx context.Context, s *sampler, ts []*trace) []*trace
}

// errNotFound marks a 404 route (an older or newer server without it).
var errNotFound = errors.New("not found")

// FetchJaeger lists the services and samples their traces over the range.
// It errs only when nothing can be listed; failed searches are named in
// Missing.
// Its length is the fetch plan in order (list services, per service a
// baseline sample and the window's slow traces, bounded by the request and
// byte budgets), which shares the budgets and the Missing list.
func FetchJaeger(ctx context.Context, c *Client, opt JaegerOptions) (*JaegerResult, error) {
	return fetchJaeger(ctx, opt, []backend{v3{c}, v1{c}}, c.URL())
}

// fetchJaeger is FetchJaeger over the first API of chain whose service
// listing succeeds: a listing that fails with errFallback or errNotFound
// moves on to the next API (and the result says so), any other failure is
// the fetch's error.
func fetchJaeger(ctx context.Context, opt JaegerOptions, chain []backend, where string) (*JaegerResult, error) {
	if opt.MaxTraces <= 0 {
		opt.MaxTraces = DefaultMaxTraces
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.Slices <= 0 {
		opt.Slices = min(max(int(opt.End.Sub(opt.Start)/time.Minute), 6), 60)
	}
	if opt.MaxServices <= 0 {
		opt.MaxServices = DefaultMaxServices
	}
	if opt.MaxRequests <= 0 {
		opt.MaxRequests = DefaultMaxRequests
	}
	progress := opt.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	var (
		be        backend
		svcs      []string
		err       error
		fallbacks []string
	)
	for i, b := range chain {
		be = b
		svcs, err = b.services(ctx)
		if err == nil || i == len(chain)-1 || !(errors.Is(err, errFallback) || errors.Is(err, errNotFound)) || ctx.Err() != nil {
			break
		}
		why := strings.TrimPrefix(err.Error(), errFallback.Error()+": ")
		if errors.Is(err, errNotFound) {
			why = "no api_v3"
		}
		fallbacks = append(fallbacks, fmt.Sprintf("api %s: %s; trying api %s", b.name(), why, chain[i+1].name()))
		progress("jaeger: %s has %s; falling back to api %s", where, why, chain[i+1].name())
	}
	src := "jaeger"
	if be.name() == "tempo" {
		src = "tempo"
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: list services: %w", src, where, err)
	}
	sort.Strings(svcs)
	svcs = slices.Compact(svcs)
	res := &JaegerResult{API: be.name(), Listed: len(svcs), Fallbacks: fallbacks}
	if len(opt.Aggregates) > 0 {
		svcs = orderByAggregates(svcs, opt.Aggregates)
	}
	if len(svcs) > opt.MaxServices {
		svcs = svcs[:opt.MaxServices]
	}
	res.Services = svcs
	progress("%s: %d services via api %s", src, res.Listed, be.name())
	if len(svcs) == 0 {
		return nil, fmt.Errorf("%s %s: no services", src, where)
	}
	// The baseline sample gets half the request budget (the window's
	// searches and the operation listings the rest): fewer slices when
	// there are many services.
	opt.Slices = max(min(opt.Slices, opt.MaxRequests/2/len(svcs)), 1)
	t0 := time.Now()
	s := &sampler{be: be, opt: opt, seen: map[string]*trace{}, res: res, sem: make(chan struct{}, opt.Concurrency)}
	uniform := max(opt.MaxTraces*3/4, 1)
	perSlice := max((uniform+opt.Slices-1)/opt.Slices, 1)
	slice := opt.End.Sub(opt.Start) / time.Duration(opt.Slices)

	// 1. The baseline sample: every service, every slice, an equal share.
	var jobs []findParams
	for _, svc := range svcs {
		for i := range opt.Slices {
			a := opt.Start.Add(time.Duration(i) * slice)
			b := a.Add(slice)
			if i == opt.Slices-1 {
				b = opt.End
			}
			jobs = append(jobs, findParams{service: svc, start: a, end: b, limit: perSlice})
		}
	}
	s.run(ctx, jobs, "baseline sample")
	progress("%s: baseline sample: %d traces from %d searches in %v", src, len(s.seen), res.Requests, time.Since(t0).Round(time.Millisecond))

	// 2. The window's slow traces per operation, and errors where the API can filter.
	slowBudget := max(opt.MaxTraces-uniform, 1)
	jobs = jobs[:0]
	for _, svc := range svcs {
		if quietByAggregates(svc, opt.Aggregates) {
			res.Quiet++
			continue
		}
		if ctx.Err() != nil || !s.request(false) {
			res.Skipped++
			continue
		}
		ops, err := be.operations(ctx, svc)
		if err != nil {
			res.Missing = append(res.Missing, fmt.Sprintf("service %s: operations: %v", svc, err))
			continue
		}
		p90 := s.p90(svc)
		per := max(slowBudget/max(len(ops), 1), 5)
		for _, op := range ops {
			if p90 > 0 {
				jobs = append(jobs, findParams{service: svc, operation: op, start: opt.WindowStart, end: opt.WindowEnd, limit: per, minDuration: p90})
			}
		}
		if filtersErrors(be) {
			jobs = append(jobs, findParams{service: svc, start: opt.WindowStart, end: opt.WindowEnd, limit: slowBudget, errorsOnly: true})
		}
	}
	before := len(s.seen)
	s.run(ctx, jobs, "window slow/error traces")
	progress("%s: window slow/error traces: +%d traces; %d in all in %v", src, len(s.seen)-before, len(s.seen), time.Since(t0).Round(time.Millisecond))
	res.Stopped = ctx.Err() // what arrived before the deadline is kept

	all := make([]*trace, 0, len(s.seen))
	for _, t := range s.seen {
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	if h, ok := be.(hydrator); ok { // searches returned IDs: fetch the traces
		all = h.hydrate(ctx, s, all)
		res.Stopped = ctx.Err()
	}
	for _, t := range all {
		if t.errors {
			res.Errors++
		}
	}
	res.Traces = len(all)
	body, err := be.encode(all)
	if err != nil {
		return nil, fmt.Errorf("jaeger: encode: %w", err)
	}
	res.Body = body
	res.FileName = map[string]string{"v3": "traces.v3.otlp.json", "v1": "traces.v1.jaeger.json", "grpc-v2": grpcFileNames["grpc-v2"], "grpc-v3": grpcFileNames["grpc-v3"], "tempo": "traces.tempo.otlp.binpb"}[be.name()]
	errNote := "error traces preferred via the error=true tag"
	if !filtersErrors(be) {
		errNote = "api_v3 cannot filter errors, so error traces are kept only as sampled"
	}
	what, split := "jaeger api "+be.name(), "split over its operations"
	if be.name() == "tempo" {
		split = "one TraceQL search per service"
		errNote = "error traces preferred via TraceQL status = error; traces fetched by ID, window traces first"
		what = "tempo (TraceQL)"
	}
	res.Sampling = fmt.Sprintf("%s sampling: per service up to %d traces in each of %d time slices (baseline sample), "+
		"plus up to %d slow traces per service in the window, %s (duration >= the service's sampled p90); %s; "+
		"kept %d traces (%d with errors); %d of %d searches hit their limit",
		what, perSlice, opt.Slices, slowBudget, split, errNote, res.Traces, res.Errors, res.Capped, res.Requests)
	if len(opt.Aggregates) > 0 {
		res.Sampling += fmt.Sprintf("; services ordered by their deviation in the metrics' request aggregates, "+
			"and %d whose aggregates did not move (under %g robust scales) not searched in the window", res.Quiet, AggregateMinZ)
	}
	sort.Strings(res.Missing)
	return res, nil
}

// sampler runs searches concurrently and keeps the first copy of each trace.
type sampler struct {
	be      backend
	opt     JaegerOptions
	sem     chan struct{}
	mu      sync.Mutex
	seen    map[string]*trace
	res     *JaegerResult
	started int // requests started, against opt.MaxRequests
}

// request counts one more request (a search when search is set, which
// JaegerResult.Requests counts) against opt.MaxRequests, false when the
// budget is spent.
func (s *sampler) request(search bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started+1 >= s.opt.MaxRequests { // the service listing was one
		return false
	}
	s.started++
	if search {
		s.res.Requests++
	}
	return true
}

func (s *sampler) run(ctx context.Context, jobs []findParams, what string) {
	var wg sync.WaitGroup
	for _, p := range jobs {
		if ctx.Err() != nil || !s.request(true) {
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
			ts, err := s.be.find(ctx, p)
			s.mu.Lock()
			defer s.mu.Unlock()
			if err != nil {
				s.res.Missing = append(s.res.Missing, fmt.Sprintf("service %s %s %s..%s: %v", p.service, what,
					p.start.UTC().Format(time.RFC3339), p.end.UTC().Format(time.RFC3339), err))
				return
			}
			if len(ts) >= p.limit {
				s.res.Capped++
			}
			for _, t := range ts {
				if _, ok := s.seen[t.id]; ok {
					continue
				}
				if !s.opt.Budget.take(t.size()) {
					s.res.Dropped++
					continue
				}
				t.window = what != "baseline sample"
				s.seen[t.id] = t
			}
		}()
	}
	wg.Wait()
}

// size is the bytes of the trace's kept parts.
func (t *trace) size() int64 {
	n := int64(0)
	for _, p := range t.parts {
		n += int64(len(p))
	}
	return n
}

// p90 is the 90th percentile (nearest rank) of the service's sampled span durations.
func (s *sampler) p90(svc string) time.Duration {
	var d []time.Duration
	for _, t := range s.seen {
		d = append(d, t.durs[svc]...)
	}
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[int(math.Ceil(0.9*float64(len(d))))-1]
}

// ---- api_v3 ----

type v3 struct{ c *Client }

func (v3) name() string { return "v3" }

func (b v3) services(ctx context.Context) ([]string, error) {
	data, err := b.c.Get(ctx, "/api/v3/services", nil)
	if se := (*StatusError)(nil); errors.As(err, &se) && se.Code == http.StatusNotFound {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	var r struct {
		Services []string `json:"services"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode /api/v3/services: %w", err)
	}
	return r.Services, nil
}

func (b v3) operations(ctx context.Context, svc string) ([]string, error) {
	data, err := b.c.Get(ctx, "/api/v3/operations", url.Values{"service": {svc}})
	if err != nil {
		return nil, err
	}
	var r struct {
		Operations []struct {
			Name string `json:"name"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode /api/v3/operations: %w", err)
	}
	set := map[string]bool{}
	for _, o := range r.Operations {
		set[o.Name] = true
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// noTraces reports Jaeger's 404 "No traces found" answer to a search.
func noTraces(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == http.StatusNotFound && strings.Contains(se.Body, "No traces found")
}

type otlpRS struct {
	Resource   json.RawMessage `json:"resource"`
	SchemaURL  string          `json:"schemaUrl,omitempty"`
	ScopeSpans []struct {
		Scope     json.RawMessage   `json:"scope,omitempty"`
		SchemaURL string            `json:"schemaUrl,omitempty"`
		Spans     []json.RawMessage `json:"spans"`
	} `json:"scopeSpans"`
}

type otlpSpanHead struct {
	TraceID string          `json:"traceId"`
	Start   json.RawMessage `json:"startTimeUnixNano"`
	End     json.RawMessage `json:"endTimeUnixNano"`
	Status  struct {
		Code json.RawMessage `json:"code"`
	} `json:"status"`
}

type otlpResource struct {
	Attributes []struct {
		Key   string `json:"key"`
		Value struct {
			StringValue string `json:"stringValue"`
		} `json:"value"`
	} `json:"attributes"`
}

func (b v3) find(ctx context.Context, p findParams) ([]*trace, error) {
	q := url.Values{
		"query.service_name":   {p.service},
		"query.start_time_min": {p.start.UTC().Format(time.RFC3339Nano)},
		"query.start_time_max": {p.end.UTC().Format(time.RFC3339Nano)},
		"query.num_traces":     {strconv.Itoa(max(p.limit, 1))},
	}
	if p.operation != "" {
		q.Set("query.operation_name", p.operation)
	}
	if p.minDuration > 0 {
		q.Set("query.duration_min", p.minDuration.String())
	}
	data, err := b.c.Get(ctx, "/api/v3/traces", q)
	if noTraces(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return splitV3(data)
}

// splitV3 groups an api_v3 answer's spans by trace, keeping each span's
// resource and scope.
func splitV3(data []byte) ([]*trace, error) {
	var env struct {
		Result struct {
			ResourceSpans []otlpRS `json:"resourceSpans"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("decode /api/v3/traces: %w", err)
	}
	byID := map[string]*trace{}
	var order []string
	for _, rs := range env.Result.ResourceSpans {
		var res otlpResource
		_ = json.Unmarshal(rs.Resource, &res)
		svc := ""
		for _, a := range res.Attributes {
			if a.Key == "service.name" {
				svc = a.Value.StringValue
			}
		}
		for _, ss := range rs.ScopeSpans {
			group := map[string][]json.RawMessage{}
			var ids []string
			for _, sp := range ss.Spans {
				var h otlpSpanHead
				if err := json.Unmarshal(sp, &h); err != nil || h.TraceID == "" {
					continue
				}
				t := byID[h.TraceID]
				if t == nil {
					t = &trace{id: h.TraceID, durs: map[string][]time.Duration{}}
					byID[h.TraceID] = t
					order = append(order, h.TraceID)
				}
				if _, ok := group[h.TraceID]; !ok {
					ids = append(ids, h.TraceID)
				}
				group[h.TraceID] = append(group[h.TraceID], sp)
				st, e := unquoteInt(h.Start), unquoteInt(h.End)
				if e > st {
					t.durs[svc] = append(t.durs[svc], time.Duration(e-st))
				}
				if c := strings.Trim(string(h.Status.Code), `"`); c == "2" || c == "STATUS_CODE_ERROR" {
					t.errors = true
				}
			}
			for _, id := range ids {
				part, err := json.Marshal(map[string]any{
					"resource":   rs.Resource,
					"scopeSpans": []map[string]any{{"scope": rawOrEmpty(ss.Scope), "spans": group[id]}},
				})
				if err != nil {
					return nil, err
				}
				byID[id].parts = append(byID[id].parts, part)
			}
		}
	}
	out := make([]*trace, 0, len(order))
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out, nil
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage(`{}`)
	}
	return r
}

func unquoteInt(r json.RawMessage) int64 {
	n, _ := strconv.ParseInt(strings.Trim(string(r), `"`), 10, 64)
	return n
}

func (v3) encode(ts []*trace) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"result":{"resourceSpans":[`)
	first := true
	for _, t := range ts {
		for _, p := range t.parts {
			if !first {
				buf.WriteString(",\n")
			}
			first = false
			buf.Write(p)
		}
	}
	buf.WriteString("]}}\n")
	return buf.Bytes(), nil
}

// ---- v1 search API (fallback) ----

type v1 struct{ c *Client }

func (v1) name() string { return "v1" }

func (b v1) services(ctx context.Context) ([]string, error) {
	data, err := b.c.Get(ctx, "/api/services", nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		Data []string `json:"data"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode /api/services: %w", err)
	}
	return r.Data, nil
}

func (b v1) operations(ctx context.Context, svc string) ([]string, error) {
	data, err := b.c.Get(ctx, "/api/services/"+url.PathEscape(svc)+"/operations", nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		Data []string `json:"data"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode operations: %w", err)
	}
	set := map[string]bool{}
	for _, o := range r.Data {
		set[o] = true
	}
	return slices.Sorted(maps.Keys(set)), nil
}

func (b v1) find(ctx context.Context, p findParams) ([]*trace, error) {
	q := url.Values{
		"service": {p.service},
		"start":   {strconv.FormatInt(p.start.UnixMicro(), 10)},
		"end":     {strconv.FormatInt(p.end.UnixMicro(), 10)},
		"limit":   {strconv.Itoa(max(p.limit, 1))},
	}
	if p.operation != "" {
		q.Set("operation", p.operation)
	}
	if p.minDuration > 0 {
		q.Set("minDuration", strconv.FormatInt(p.minDuration.Microseconds(), 10)+"us")
	}
	if p.errorsOnly {
		q.Set("tags", `{"error":"true"}`)
	}
	data, err := b.c.Get(ctx, "/api/traces", q)
	if err != nil {
		return nil, err
	}
	var r struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode /api/traces: %w", err)
	}
	out := make([]*trace, 0, len(r.Data))
	for _, raw := range r.Data {
		var h struct {
			TraceID string `json:"traceID"`
			Spans   []struct {
				Duration  int64  `json:"duration"`
				ProcessID string `json:"processID"`
				Tags      []struct {
					Key   string `json:"key"`
					Value any    `json:"value"`
				} `json:"tags"`
			} `json:"spans"`
			Processes map[string]struct {
				ServiceName string `json:"serviceName"`
			} `json:"processes"`
		}
		if err := json.Unmarshal(raw, &h); err != nil || h.TraceID == "" {
			continue
		}
		t := &trace{id: h.TraceID, parts: []json.RawMessage{raw}, durs: map[string][]time.Duration{}}
		for _, sp := range h.Spans {
			svc := h.Processes[sp.ProcessID].ServiceName
			t.durs[svc] = append(t.durs[svc], time.Duration(sp.Duration)*time.Microsecond)
			for _, tg := range sp.Tags {
				if tg.Key == "error" && fmt.Sprint(tg.Value) == "true" {
					t.errors = true
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func (v1) encode(ts []*trace) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"data":[`)
	for i, t := range ts {
		if i > 0 {
			buf.WriteString(",\n")
		}
		buf.Write(t.parts[0])
	}
	buf.WriteString("]}\n")
	return buf.Bytes(), nil
}
