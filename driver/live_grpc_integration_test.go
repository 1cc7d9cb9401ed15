package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"github.com/pipeline-analyze/pipeline-analyze/live"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The real-Jaeger tests of the gRPC query API (issue 46): the same Jaeger
// v2 as TestLiveRealServers, asked over its gRPC port and over HTTP.

// heldInCase is the development case TestLiveJaegerGRPC loads into Jaeger
// (TrainTicket, Nezha; 169 traces, 14,260 spans).
const heldInCase = "data/nezha-tt-dev/tt-20230129-084304"

// otlpOf builds OTLP traces of a bundle's spans: the fields the analysis
// reads (IDs, parent, service, pod, node, name, kind, times, status, peer).
func otlpOf(spans []ingest.Span) ptrace.Traces {
	td := ptrace.NewTraces()
	type key struct{ svc, pod, node string }
	byRes := map[key]ptrace.SpanSlice{}
	var order []key
	for _, s := range spans {
		k := key{s.Service.String(), s.Pod.String(), s.Node.String()}
		ss, ok := byRes[k]
		if !ok {
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr("service.name", k.svc)
			if k.pod != "" {
				rs.Resource().Attributes().PutStr("k8s.pod.name", k.pod)
			}
			if k.node != "" {
				rs.Resource().Attributes().PutStr("k8s.node.name", k.node)
			}
			ss = rs.ScopeSpans().AppendEmpty().Spans()
			byRes[k] = ss
			order = append(order, k)
		}
		sp := ss.AppendEmpty()
		var tid pcommon.TraceID
		for i := range 8 {
			tid[i] = byte(s.TraceID.High >> (56 - 8*i))
			tid[8+i] = byte(s.TraceID.Low >> (56 - 8*i))
		}
		sp.SetTraceID(tid)
		sp.SetSpanID(spanIDOf(uint64(s.SpanID)))
		if s.ParentID != 0 {
			sp.SetParentSpanID(spanIDOf(uint64(s.ParentID)))
		}
		sp.SetName(s.Operation.String())
		sp.SetKind(ptrace.SpanKind(s.Kind))
		sp.SetStartTimestamp(pcommon.Timestamp(s.Start))
		sp.SetEndTimestamp(pcommon.Timestamp(int64(s.Start) + int64(s.Duration)))
		if s.Error {
			sp.Status().SetCode(ptrace.StatusCodeError)
		}
		if p := s.Peer.String(); p != "" {
			sp.Attributes().PutStr("peer.service", p)
		}
	}
	return td
}

func spanIDOf(v uint64) pcommon.SpanID {
	var id pcommon.SpanID
	for i := range 8 {
		id[i] = byte(v >> (56 - 8*i))
	}
	return id
}

// pushOTLP posts td to Jaeger's OTLP/HTTP receiver as protobuf, at most
// batch spans a request.
func pushOTLP(t testing.TB, otlp string, td ptrace.Traces, batch int) {
	t.Helper()
	var m ptrace.ProtoMarshaler
	send := func(part ptrace.Traces) {
		body, err := m.MarshalTraces(part)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(otlp+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST /v1/traces: HTTP %d", resp.StatusCode)
		}
	}
	part, n := ptrace.NewTraces(), 0
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		spans := rs.ScopeSpans().At(0).Spans()
		for j := 0; j < spans.Len(); j++ {
			if n == 0 || part.ResourceSpans().Len() == 0 || part.ResourceSpans().At(part.ResourceSpans().Len() - 1).Resource().Attributes().AsRaw()["service.name"] != rs.Resource().Attributes().AsRaw()["service.name"] {
				prs := part.ResourceSpans().AppendEmpty()
				rs.Resource().CopyTo(prs.Resource())
				prs.ScopeSpans().AppendEmpty()
			}
			spans.At(j).CopyTo(part.ResourceSpans().At(part.ResourceSpans().Len() - 1).ScopeSpans().At(0).Spans().AppendEmpty())
			if n++; n == batch {
				send(part)
				part, n = ptrace.NewTraces(), 0
			}
		}
	}
	if n > 0 {
		send(part)
	}
}

// waitSpans waits until Jaeger's api_v3 returns want spans for a search of
// service over all time (the batch processor flushes asynchronously).
func waitSpans(t testing.TB, query, service string, from, to time.Time, want int) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	got := -1
	for time.Now().Before(deadline) {
		q := fmt.Sprintf("%s/api/v3/traces?query.service_name=%s&query.start_time_min=%s&query.start_time_max=%s&query.num_traces=50000",
			query, service, from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
		resp, err := http.Get(q)
		if err == nil {
			var r struct {
				Result struct {
					ResourceSpans []struct {
						ScopeSpans []struct {
							Spans []json.RawMessage
						}
					}
				}
			}
			json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			got = 0
			for _, rs := range r.Result.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					got += len(ss.Spans)
				}
			}
			if got >= want {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("jaeger returned %d spans of %s, want %d, within 120s", got, service, want)
}

// savedSpans reads the trace file of a saved bundle: its format and each
// span as "trace span duration".
func savedSpans(t *testing.T, dir string) (ingest.Format, []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "traces.*"))
	if len(files) != 1 {
		t.Fatalf("%s: trace files %v, want one", dir, files)
	}
	b, err := ingest.ReadFile(files[0], nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range b.Spans {
		out = append(out, fmt.Sprintf("%v %v %d", s.TraceID, s.SpanID, s.Duration))
	}
	slices.Sort(out)
	return b.Inputs[0].Format, out
}

// TestLiveJaegerGRPC loads a held-in development case into a real Jaeger v2
// and analyses it live twice, over the HTTP API and over the gRPC query
// API: the same spans (count, IDs, durations) and the same top cause; the
// gRPC bundle replays byte for byte; a refused gRPC port falls back to HTTP.
func TestLiveJaegerGRPC(t *testing.T) {
	jbin := needBin(t, "PIPELINE_ANALYZE_JAEGER_BIN")
	dir := filepath.Join(testkit.SharedDir(t), heldInCase)
	src, err := ingest.ReadFile(filepath.Join(dir, "traces.json.gz"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var label struct {
		InjectTime string `json:"inject_time"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "label.json"))
	if err != nil || json.Unmarshal(data, &label) != nil {
		t.Fatalf("label.json: %v", err)
	}
	work := t.TempDir()
	// The case's other inputs (metrics, events, alert) are read as local
	// files beside the live traces, as a user would give them.
	local := filepath.Join(work, "local")
	os.MkdirAll(local, 0o755)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, "traces") && !strings.HasPrefix(n, "logs") && n != "label.json" {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(local, n), b, 0o644)
		}
	}
	ports := startJaegerPorts(t, jbin, work)
	pushOTLP(t, ports.otlp, otlpOf(src.Spans), 2000)
	first, last := src.Spans[0].Start, src.Spans[0].Start
	count := map[string]int{}
	for _, s := range src.Spans {
		first, last = min(first, s.Start), max(last, s.Start)
		count[s.Service.String()]++
	}
	for svc, n := range count {
		waitSpans(t, ports.query, svc, first.Std(), last.Std().Add(time.Second), n)
	}

	run := func(bundle string, live ...string) (string, []byte) {
		t.Helper()
		var out, errb bytes.Buffer
		args := append(append([]string{}, live...), "--at", label.InjectTime, "--window", "1m", "--max-traces", "50000", "--save-bundle", bundle, "-o", "json", local)
		t0 := time.Now()
		if code := Run(args, nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d\n%s", live, code, tail(errb.String(), 3000))
		}
		t.Logf("%v: fetch + analysis in %v", live, time.Since(t0).Round(time.Millisecond))
		var card struct {
			Causes []struct{ Service, Component string }
		}
		if err := json.Unmarshal(out.Bytes(), &card); err != nil || len(card.Causes) == 0 {
			t.Fatalf("%v: card: %v", live, err)
		}
		return card.Causes[0].Service + " " + card.Causes[0].Component, out.Bytes()
	}
	httpTop, _ := run(filepath.Join(work, "http"), "--jaeger-url", ports.query)
	hf, hs := savedSpans(t, filepath.Join(work, "http"))
	if hf != ingest.FormatOTLPJSON || len(hs) == 0 {
		t.Fatalf("HTTP: %v, %d spans", hf, len(hs))
	}
	for _, tc := range []struct {
		name, api string
		format    ingest.Format
	}{{"grpc", "auto", ingest.FormatOTLPProto}, {"grpc-v2", "v2", ingest.FormatJaegerProto}} {
		bundle := filepath.Join(work, tc.name)
		top, card := run(bundle, "--jaeger-url", "grpc://"+ports.grpc, "--jaeger-grpc-api", tc.api)
		f, gs := savedSpans(t, bundle)
		t.Logf("HTTP (%v): %d spans, top cause %s; gRPC %s (%v): %d spans, top cause %s", hf, len(hs), httpTop, tc.api, f, len(gs), top)
		if f != tc.format {
			t.Errorf("gRPC %s saved %v, want %v", tc.api, f, tc.format)
		}
		if !slices.Equal(gs, hs) {
			t.Errorf("gRPC %s kept %d spans, HTTP %d: not the same spans", tc.api, len(gs), len(hs))
		}
		if top != httpTop {
			t.Errorf("top cause over gRPC %s %q, over HTTP %q", tc.api, top, httpTop)
		}
		var m struct {
			Jaeger struct{ API, URL string }
		}
		mdata, _ := os.ReadFile(filepath.Join(bundle, "manifest.json"))
		json.Unmarshal(mdata, &m)
		if want := map[string]string{"auto": "grpc-v3", "v2": "grpc-v2"}[tc.api]; m.Jaeger.API != want || !strings.HasPrefix(m.Jaeger.URL, "grpc://") {
			t.Errorf("manifest: api %q url %q, want %s", m.Jaeger.API, m.Jaeger.URL, want)
		}
		var again, errb bytes.Buffer
		if code := Run([]string{"--window", "1m", "-o", "json", local, bundle}, nil, &again, &errb); code != 0 || !bytes.Equal(again.Bytes(), card) {
			t.Errorf("replay of the gRPC %s bundle: exit %d, same card %v\n%s", tc.api, code, bytes.Equal(again.Bytes(), card), errb.String())
		}
	}

	// A refused gRPC port: the traces come over HTTP, and the manifest says why.
	dead := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var out, errb2 bytes.Buffer
	fb := filepath.Join(work, "fallback")
	args := []string{"--jaeger-grpc", dead, "--jaeger-url", ports.query, "--at", label.InjectTime, "--window", "1m", "--max-traces", "50000", "--save-bundle", fb, "-o", "json", local}
	if code := Run(args, nil, &out, &errb2); code != 0 {
		t.Fatalf("fallback: exit %d\n%s", code, errb2.String())
	}
	mdata, _ := os.ReadFile(filepath.Join(fb, "manifest.json"))
	if !strings.Contains(string(mdata), `"fallbacks"`) || !strings.Contains(string(mdata), `"api": "v3"`) {
		t.Errorf("fallback manifest: %s", tail(string(mdata), 1500))
	}
	if _, fs := savedSpans(t, fb); !slices.Equal(fs, hs) {
		t.Errorf("fallback kept %d spans, HTTP %d", len(fs), len(hs))
	}
}

// TestJaegerGRPCPullBenchmark measures pulling N spans (env
// PIPELINE_ANALYZE_GRPC_BENCH_SPANS, e.g. 1000000) from a real Jaeger v2
// over HTTP (api_v3 JSON) and gRPC (api_v3, and api_v2), through live.Fetch with the
// same sampling plan: every trace of the range is kept. It logs the
// numbers of docs/performance.md; it fails only when gRPC is not faster.
func TestJaegerGRPCPullBenchmark(t *testing.T) {
	jbin := needBin(t, "PIPELINE_ANALYZE_JAEGER_BIN")
	n, _ := strconv.Atoi(os.Getenv("PIPELINE_ANALYZE_GRPC_BENCH_SPANS"))
	if n <= 0 {
		t.Skip("PIPELINE_ANALYZE_GRPC_BENCH_SPANS not set (e.g. 1000000)")
	}
	// Each trace is one service's (its searches are disjoint, so each span
	// crosses the wire once per pull, as in a sample of a large system).
	const perTrace, services = 100, 5
	work := t.TempDir()
	ports := startJaegerPorts(t, jbin, work)
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	var spans []ingest.Span
	traces := n / perTrace
	for i := range traces {
		start := t0.Add(time.Duration(i) * 10 * time.Minute / time.Duration(traces))
		for j := range perTrace {
			s := ingest.Span{TraceID: ingest.TraceID{High: 1, Low: uint64(i + 1)}, SpanID: ingest.SpanID(uint64(i)*perTrace + uint64(j) + 1),
				Start: ingest.FromTime(start.Add(time.Duration(j) * time.Millisecond)), Duration: time.Duration(5+j%7) * time.Millisecond,
				Service: ingest.Intern(fmt.Sprintf("svc-%d", i%services)), Operation: ingest.Intern(fmt.Sprintf("op-%d", j%3)), Kind: ingest.SpanServer}
			if j > 0 {
				s.ParentID = ingest.SpanID(uint64(i)*perTrace + 1)
			}
			spans = append(spans, s)
		}
	}
	slices.SortStableFunc(spans, func(a, b ingest.Span) int { return strings.Compare(a.Service.String(), b.Service.String()) })
	tl := time.Now()
	pushOTLP(t, ports.otlp, otlpOf(spans), 20000)
	for s := range services {
		waitSpans(t, ports.query, fmt.Sprintf("svc-%d", s), t0, t0.Add(11*time.Minute), n/services)
	}
	t.Logf("loaded %d spans (%d traces) into Jaeger in %v", n, traces, time.Since(tl).Round(time.Millisecond))
	pull := func(url, api string) (time.Duration, int, int) {
		opt := live.Options{JaegerURL: url, JaegerGRPCAPI: api, Start: t0, End: t0.Add(11 * time.Minute), WindowStart: t0.Add(10 * time.Minute), WindowEnd: t0.Add(11 * time.Minute),
			MaxTraces: 10 * traces, Concurrency: 4, FetchTimeout: 30 * time.Minute, MaxFetchBytes: 16 << 30,
			Transport: live.TransportOptions{MaxBody: 2 << 30, Timeout: 20 * time.Minute}}
		start := time.Now()
		_, files, err := live.Fetch(context.Background(), opt)
		d := time.Since(start)
		if err != nil || len(files) != 1 {
			t.Fatalf("%s: %v (%d files)", url, err, len(files))
		}
		p := filepath.Join(work, filepath.Base(files[0].Path))
		os.WriteFile(p, files[0].Data, 0o644)
		b, err := ingest.ReadFile(p, nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		return d, len(b.Spans), len(files[0].Data)
	}
	var best [3]time.Duration
	variants := []struct{ url, api string }{{ports.query, ""}, {"grpc://" + ports.grpc, "v3"}, {"grpc://" + ports.grpc, "v2"}}
	for round := range 2 {
		for i, v := range variants {
			d, got, size := pull(v.url, v.api)
			t.Logf("round %d %-28s %-2s %d spans, %d MiB saved, %v (%.0f spans/s)", round+1, v.url, v.api, got, size>>20, d.Round(time.Millisecond), float64(got)/d.Seconds())
			if got != n {
				t.Errorf("%s %s pulled %d spans, want %d", v.url, v.api, got, n)
			}
			if best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	t.Logf("best of 2: gRPC api_v2 (the span model) %v: %.2fx the HTTP time", best[2].Round(time.Millisecond), best[2].Seconds()/best[0].Seconds())
	ratio := best[0].Seconds() / best[1].Seconds()
	t.Logf("best of 2: HTTP api_v3 JSON %v, gRPC api_v3 %v: gRPC %.2fx faster", best[0].Round(time.Millisecond), best[1].Round(time.Millisecond), ratio)
	if ratio < 1 {
		t.Errorf("gRPC (%v) is not faster than HTTP (%v)", best[1], best[0])
	}
}
