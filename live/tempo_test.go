package live

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

// fakeTempo replays Tempo's documented HTTP API shapes over the fake
// spans: tag values (v2), TraceQL search (limit, start/end in seconds,
// spss; metrics with completed/total jobs) and trace by ID (v2: a
// TraceByIDResponse in protobuf when asked, else JSON with base64 IDs and
// resourceSpans; status PARTIAL on some). It can also answer 429 once,
// 503 once per trace, report partial search jobs, hang, or send a 2 GiB
// body for one trace.
type fakeTempo struct {
	spans    []fakeSpan
	org      string // required X-Scope-OrgID ("" = any)
	user     string // required basic-auth user ("" = none)
	pass     string
	jsonOnly bool   // ignore Accept: protobuf
	huge     string // the trace ID answered with a 2 GiB body
	hang     string // the trace ID that never answers
	searches atomic.Int32
	fetches  atomic.Int32
	mu       sync.Mutex
	failed   map[string]bool
	limited  bool
}

var traceqlSvc = regexp.MustCompile(`resource\.service\.name = "([^"]*)"`)
var traceqlDur = regexp.MustCompile(`duration >= (\d+)us`)

func (f *fakeTempo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.org != "" && r.Header.Get("X-Scope-OrgID") != f.org {
		http.Error(w, "no org id", http.StatusUnauthorized)
		return
	}
	if f.user != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != f.user || p != f.pass {
			http.Error(w, "invalid credentials", http.StatusUnauthorized)
			return
		}
	}
	switch {
	case r.URL.Path == "/api/v2/search/tag/resource.service.name/values":
		var vals []map[string]string
		seen := map[string]bool{}
		for _, s := range f.spans {
			if !seen[s.svc] {
				seen[s.svc] = true
				vals = append(vals, map[string]string{"type": "string", "value": s.svc})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"tagValues": vals, "metrics": map[string]any{"inspectedBytes": "1024"}})
	case r.URL.Path == "/api/search":
		f.searches.Add(1)
		f.mu.Lock()
		first := !f.limited
		f.limited = true
		f.mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		q := r.URL.Query()
		m := traceqlSvc.FindStringSubmatch(q.Get("q"))
		if m == nil || q.Get("spss") == "" {
			http.Error(w, "bad query "+q.Get("q"), 400)
			return
		}
		a, _ := strconv.ParseInt(q.Get("start"), 10, 64)
		b, _ := strconv.ParseInt(q.Get("end"), 10, 64)
		limit, _ := strconv.Atoi(q.Get("limit"))
		var minDur time.Duration
		if d := traceqlDur.FindStringSubmatch(q.Get("q")); d != nil {
			us, _ := strconv.ParseInt(d[1], 10, 64)
			minDur = time.Duration(us) * time.Microsecond
		}
		errOnly := strings.Contains(q.Get("q"), "status = error")
		var out []any
		for _, s := range f.spans {
			if len(out) >= limit || s.svc != m[1] || s.start.Unix() < a || s.start.Unix() > b || s.dur < minDur || (errOnly && !s.err) {
				continue
			}
			out = append(out, map[string]any{"traceID": strings.TrimLeft(s.trace, "0"), "rootServiceName": s.svc, "rootTraceName": s.op,
				"startTimeUnixNano": fmt.Sprint(s.start.UnixNano()), "durationMs": s.dur.Milliseconds(),
				"spanSets": []any{map[string]any{"spans": []any{map[string]any{"spanID": s.span, "startTimeUnixNano": fmt.Sprint(s.start.UnixNano()),
					"durationNanos": fmt.Sprint(s.dur.Nanoseconds())}}, "matched": 1}}})
		}
		total := 4
		json.NewEncoder(w).Encode(map[string]any{"traces": out, "metrics": map[string]any{"inspectedTraces": len(f.spans), "completedJobs": total - len(out)%2, "totalJobs": total}})
	case strings.HasPrefix(r.URL.Path, "/api/v2/traces/"):
		f.fetches.Add(1)
		id := strings.TrimPrefix(r.URL.Path, "/api/v2/traces/")
		if id == f.hang {
			<-r.Context().Done()
			return
		}
		if id == f.huge {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(" ", 1<<20))
			for range 2048 { // 2 GiB, never held in memory here
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		f.mu.Lock()
		again := f.failed[id]
		f.failed[id] = true
		f.mu.Unlock()
		if !again {
			http.Error(w, "upstream busy", http.StatusServiceUnavailable)
			return
		}
		var sp *fakeSpan
		for i := range f.spans {
			if f.spans[i].trace == id {
				sp = &f.spans[i]
			}
		}
		if sp == nil {
			http.Error(w, "trace not found", 404)
			return
		}
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", sp.svc)
		span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		var tid pcommon.TraceID
		var sid pcommon.SpanID
		hex.Decode(tid[:], []byte(sp.trace))
		hex.Decode(sid[:], []byte(sp.span))
		span.SetTraceID(tid)
		span.SetSpanID(sid)
		span.SetName(sp.op)
		span.SetKind(ptrace.SpanKindServer)
		span.SetStartTimestamp(pcommon.NewTimestampFromTime(sp.start))
		span.SetEndTimestamp(pcommon.NewTimestampFromTime(sp.start.Add(sp.dur)))
		if sp.err {
			span.Status().SetCode(ptrace.StatusCodeError)
		}
		partial := sp.span[len(sp.span)-1] == '7'
		if strings.Contains(r.Header.Get("Accept"), "protobuf") && !f.jsonOnly {
			tb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
			out := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), tb)
			if partial {
				out = protowire.AppendVarint(protowire.AppendTag(out, 3, protowire.VarintType), 1)
				out = protowire.AppendString(protowire.AppendTag(out, 4, protowire.BytesType), "trace exceeds max size")
			}
			w.Header().Set("Content-Type", "application/protobuf")
			w.Write(out)
			return
		}
		js, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		var doc map[string]any
		json.Unmarshal(js, &doc)
		b64 := func(h string) string { raw, _ := hex.DecodeString(h); return base64.StdEncoding.EncodeToString(raw) }
		s0 := doc["resourceSpans"].([]any)[0].(map[string]any)["scopeSpans"].([]any)[0].(map[string]any)["spans"].([]any)[0].(map[string]any)
		s0["traceId"], s0["spanId"] = b64(sp.trace), b64(sp.span)
		resp := map[string]any{"trace": map[string]any{"resourceSpans": doc["resourceSpans"]}, "metrics": map[string]any{"inspectedBytes": "512"}}
		if partial {
			resp["status"], resp["message"] = "PARTIAL", "trace exceeds max size"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	default:
		http.NotFound(w, r)
	}
}

func tempoServer(t *testing.T, f *fakeTempo) *httptest.Server {
	t.Helper()
	f.failed = map[string]bool{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchTempo: against Tempo's documented answers (protobuf and JSON
// traces, a 429 and 503s on the way, partial searches and traces, a small
// page that must be paged), the fetch keeps the HTTP Jaeger path's sample,
// with the same trace IDs, tenant and Grafana Cloud auth, and its file
// reads back as OTLP protobuf.
func TestFetchTempo(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	spans := testSpans(t0)
	opt := JaegerOptions{Start: t0, End: t0.Add(30 * time.Minute), WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 40}
	var calls atomic.Int32
	jsrv := fakeJaeger(t, spans, true, &calls)
	defer jsrv.Close()
	jres, err := FetchJaeger(context.Background(), newTestClient(t, jsrv.URL, TransportOptions{}), opt)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := traceIDs(t, jres.FileName, jres.Body)
	for _, jsonOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonOnly), func(t *testing.T) {
			f := &fakeTempo{spans: spans, org: "team-a", user: "123456", pass: secret, jsonOnly: jsonOnly}
			srv := tempoServer(t, f)
			u := strings.Replace(srv.URL, "http://", "http://123456@", 1) // Grafana Cloud: instance ID as the user, the token as password
			c := newTestClient(t, u, TransportOptions{BearerToken: secret, OrgID: "team-a", Retries: 2})
			res, err := FetchTempo(context.Background(), c, opt, 3)
			if err != nil {
				t.Fatal(err)
			}
			if res.API != "tempo" || res.FileName != "traces.tempo.otlp.binpb" || len(res.Missing) != 0 {
				t.Fatalf("api %s file %s missing %v", res.API, res.FileName, res.Missing)
			}
			got, n, format := traceIDs(t, res.FileName, res.Body)
			if format != ingest.FormatOTLPProto || n != res.Traces {
				t.Errorf("file read as %v with %d spans, want otlp-proto and %d", format, n, res.Traces)
			}
			// The baseline sample is the Jaeger path's, trace for trace; in
			// the window Tempo's one search per service (not per span name)
			// keeps up to the slow budget.
			inWindow := 0
			for _, id := range want {
				n, _ := strconv.ParseInt(id, 16, 64)
				if spans[n-1].start.Before(opt.WindowStart) && !containsStr(got, id) {
					t.Errorf("baseline trace %s sampled by the Jaeger path is missing", id)
				}
			}
			for _, id := range got {
				if n, _ := strconv.ParseInt(id, 16, 64); !spans[n-1].start.Before(opt.WindowStart) {
					inWindow++
				}
			}
			if inWindow < 2*(opt.MaxTraces-opt.MaxTraces*3/4) {
				t.Errorf("%d window traces, want at least the slow budget of both services", inWindow)
			}
			if res.Partial == 0 || !strings.Contains(res.Sampling, "tempo (TraceQL) sampling") || !strings.Contains(res.Sampling, "extra Tempo search pages") {
				t.Errorf("partial %d (%s), sampling %q", res.Partial, res.FirstPartial, res.Sampling)
			}
		})
	}
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestTempoFaults: a 2 GiB body for one trace stops at --max-response-size
// and a trace that never answers stops at the fetch deadline; each is named
// and what arrived is kept. Without the tenant the listing fails, redacted.
func TestTempoFaults(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	spans := testSpans(t0)
	opt := JaegerOptions{Start: t0, End: t0.Add(30 * time.Minute), WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 40}
	f := &fakeTempo{spans: spans, huge: spans[0].trace, hang: spans[1].trace}
	srv := tempoServer(t, f)
	c := newTestClient(t, srv.URL, TransportOptions{MaxBody: 1 << 20, Timeout: 2 * time.Second, Retries: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t1 := time.Now()
	res, err := FetchTempo(ctx, c, opt, 100)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(t1) > 15*time.Second {
		t.Errorf("took %v: the hung trace held the fetch", time.Since(t1))
	}
	joined := strings.Join(res.Missing, "\n")
	if !strings.Contains(joined, spans[0].trace) || !strings.Contains(joined, "larger than 1 MiB") || !strings.Contains(joined, spans[1].trace) {
		t.Errorf("missing: %s", joined)
	}
	if res.Traces == 0 {
		t.Error("nothing kept")
	}

	tenant := tempoServer(t, &fakeTempo{spans: spans, org: "team-a"})
	bad := newTestClient(t, tenant.URL, TransportOptions{BearerToken: secret})
	_, err = FetchTempo(context.Background(), bad, opt, 10)
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), secret) {
		t.Errorf("without the tenant: %v", err)
	}
}

// TestTempoOlderAnswers: an older Tempo's /api/traces answer ({"batches":
// [...]} with base64 IDs in JSON; a bare Trace in protobuf) becomes the
// same OTLP TracesData as the v2 answer.
func TestTempoOlderAnswers(t *testing.T) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cart")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	sp.SetSpanID(pcommon.SpanID{1, 1, 1, 1, 1, 1, 1, 1})
	sp.SetParentSpanID(pcommon.SpanID{2, 2, 2, 2, 2, 2, 2, 2})
	sp.SetName("GET /cart")
	sp.SetStartTimestamp(1)
	sp.SetEndTimestamp(2)
	want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	b := &tempo{}
	got, err := b.protoTrace(want, true, "x")
	if err != nil || string(got) != string(want) {
		t.Errorf("v1 protobuf: %v", err)
	}
	js, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	doc := strings.Replace(string(js), `"resourceSpans"`, `"batches"`, 1)
	for hexID, raw := range map[string][]byte{"00000000000000000102030405060708": {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, "0101010101010101": {1, 1, 1, 1, 1, 1, 1, 1}, "0202020202020202": {2, 2, 2, 2, 2, 2, 2, 2}} {
		doc = strings.ReplaceAll(doc, `"`+hexID+`"`, `"`+base64.StdEncoding.EncodeToString(raw)+`"`)
	}
	got, err = b.jsonTrace([]byte(doc), true, "x")
	if err != nil {
		t.Fatalf("v1 JSON: %v", err)
	}
	back, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(got)
	if err != nil || back.SpanCount() != 1 {
		t.Fatalf("v1 JSON: %v", err)
	}
	s := back.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	if s.TraceID() != sp.TraceID() || s.SpanID() != sp.SpanID() || s.ParentSpanID() != sp.ParentSpanID() {
		t.Errorf("IDs %v %v %v, want %v %v %v", s.TraceID(), s.SpanID(), s.ParentSpanID(), sp.TraceID(), sp.SpanID(), sp.ParentSpanID())
	}
}
