package live

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"

	jmodel "github.com/jaegertracing/jaeger-idl/model/v1"
	"github.com/jaegertracing/jaeger-idl/proto-gen/api_v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeQuery serves api_v2.QueryService over gRPC from the fake spans, as
// Jaeger does (one SpansResponseChunk per trace, search_depth traces at
// most, the error tag filter), recording each request's authorization.
type fakeQuery struct {
	api_v2.UnimplementedQueryServiceServer
	spans []fakeSpan
	auth  atomic.Value
	finds atomic.Int32
}

func (f *fakeQuery) seen(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.auth.Store(strings.Join(md.Get("authorization"), ","))
}

func (f *fakeQuery) GetServices(ctx context.Context, _ *api_v2.GetServicesRequest) (*api_v2.GetServicesResponse, error) {
	f.seen(ctx)
	var out []string
	for _, s := range f.spans {
		if !slices.Contains(out, s.svc) {
			out = append(out, s.svc)
		}
	}
	return &api_v2.GetServicesResponse{Services: out}, nil
}

func (f *fakeQuery) GetOperations(ctx context.Context, r *api_v2.GetOperationsRequest) (*api_v2.GetOperationsResponse, error) {
	var ops []*api_v2.Operation
	for _, s := range f.spans {
		if s.svc == r.Service && !slices.ContainsFunc(ops, func(o *api_v2.Operation) bool { return o.Name == s.op }) {
			ops = append(ops, &api_v2.Operation{Name: s.op})
		}
	}
	return &api_v2.GetOperationsResponse{Operations: ops}, nil
}

func (f *fakeQuery) FindTraces(r *api_v2.FindTracesRequest, st api_v2.QueryService_FindTracesServer) error {
	f.finds.Add(1)
	q := r.Query
	n := 0
	for _, s := range f.spans {
		if n >= int(q.SearchDepth) {
			break
		}
		if s.svc != q.ServiceName || (q.OperationName != "" && s.op != q.OperationName) || s.start.Before(q.StartTimeMin) ||
			s.start.After(q.StartTimeMax) || s.dur < q.DurationMin || (q.Tags["error"] == "true" && !s.err) {
			continue
		}
		tid, _ := jmodel.TraceIDFromString(s.trace)
		sid, _ := jmodel.SpanIDFromString(s.span)
		sp := jmodel.Span{TraceID: tid, SpanID: sid, OperationName: s.op, StartTime: s.start, Duration: s.dur,
			Tags: []jmodel.KeyValue{jmodel.String("span.kind", "server")}, Process: &jmodel.Process{ServiceName: s.svc}}
		if s.err {
			sp.Tags = append(sp.Tags, jmodel.Bool("error", true))
		}
		if err := st.Send(&api_v2.SpansResponseChunk{Spans: []jmodel.Span{sp}}); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return status.Error(codes.NotFound, "trace not found")
	}
	return nil
}

// startGRPC serves the fake query service (api_v2 unless v2 is false: then
// the server has no api_v2, as a Jaeger without it would) on loopback.
func startGRPC(t *testing.T, f *fakeQuery, v2 bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}))
	if v2 {
		api_v2.RegisterQueryServiceServer(s, f)
	}
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

// traceIDs are the trace IDs of a saved trace file, read back by ingest.
func traceIDs(t *testing.T, name string, body []byte) (ids []string, spans int, format ingest.Format) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("read back %s: %v", name, err)
	}
	set := map[string]bool{}
	for _, s := range b.Spans {
		set[s.TraceID.String()] = true
	}
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, len(b.Spans), b.Inputs[0].Format
}

// TestFetchJaegerGRPC: the gRPC path runs the HTTP path's sampling plan
// (same services, operations, slices, slow searches) and keeps the same
// traces, plus the error traces api_v2 can filter; its file reads back as
// Jaeger protobuf. The bearer token rides as metadata.
func TestFetchJaegerGRPC(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	spans := testSpans(t0)
	fq := &fakeQuery{spans: spans}
	addr := startGRPC(t, fq, true)
	var calls atomic.Int32
	httpSrv := fakeJaeger(t, spans, true, &calls)
	defer httpSrv.Close()
	opt := JaegerOptions{Start: t0, End: t0.Add(30 * time.Minute), WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 40}
	tr := TransportOptions{BearerToken: secret}
	c := newTestClient(t, httpSrv.URL, tr)
	g, err := dialJaegerGRPC(addr, false, tr, c.Redact)
	if err != nil {
		t.Fatal(err)
	}
	defer g.conn.Close()
	res, err := fetchJaeger(context.Background(), opt, []backend{grpcV3{g}, grpcV2{g}, v3{c}, v1{c}}, addr)
	if err != nil {
		t.Fatal(err)
	}
	// The fake serves api_v2 only: api_v3's Unimplemented moves to it.
	if res.API != "grpc-v2" || res.FileName != "traces.grpc-v2.jaeger.pb" || len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], "Unimplemented") || len(res.Missing) != 0 {
		t.Fatalf("api %s file %s fallbacks %v missing %v", res.API, res.FileName, res.Fallbacks, res.Missing)
	}
	if got := fq.auth.Load(); got != "Bearer "+secret {
		t.Errorf("authorization metadata %q", got)
	}
	httpRes, err := FetchJaeger(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	gIDs, gSpans, gFormat := traceIDs(t, res.FileName, res.Body)
	hIDs, _, _ := traceIDs(t, httpRes.FileName, httpRes.Body)
	if gFormat != ingest.FormatJaegerProto || gSpans != res.Traces {
		t.Errorf("saved file read as %v with %d spans, want %v and %d", gFormat, gSpans, ingest.FormatJaegerProto, res.Traces)
	}
	for _, id := range hIDs {
		if !slices.Contains(gIDs, id) {
			t.Errorf("trace %s fetched over HTTP but not over gRPC", id)
		}
	}
	if res.Errors < httpRes.Errors || !strings.Contains(res.Sampling, "jaeger api grpc-v2 sampling") || !strings.Contains(res.Sampling, "error=true") {
		t.Errorf("errors %d (HTTP %d), sampling %q", res.Errors, httpRes.Errors, res.Sampling)
	}
	again, err := fetchJaeger(context.Background(), opt, []backend{grpcV2{g}}, addr)
	if err != nil || !bytes.Equal(again.Body, res.Body) {
		t.Error("two gRPC fetches of the same data differ")
	}
}

// TestJaegerGRPCFallbacks: a server without api_v2 gets api_v3 tried; a
// refused gRPC endpoint falls back to HTTP, saying so; every error is
// redacted.
func TestJaegerGRPCFallbacks(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	spans := testSpans(t0)
	var calls atomic.Int32
	httpSrv := fakeJaeger(t, spans, true, &calls)
	defer httpSrv.Close()
	opt := JaegerOptions{Start: t0, End: t0.Add(30 * time.Minute), WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 40}
	tr := TransportOptions{BearerToken: secret, Retries: -1}
	c := newTestClient(t, httpSrv.URL, tr)

	t.Run("no api_v2", func(t *testing.T) {
		addr := startGRPC(t, &fakeQuery{spans: spans}, false)
		g, _ := dialJaegerGRPC(addr, false, tr, c.Redact)
		defer g.conn.Close()
		res, err := fetchJaeger(context.Background(), opt, []backend{grpcV3{g}, grpcV2{g}, v3{c}, v1{c}}, addr)
		if err != nil {
			t.Fatal(err)
		}
		// Neither gRPC API answers: both are named, and HTTP api_v3 served.
		if res.API != "v3" || len(res.Fallbacks) != 2 || !strings.Contains(res.Fallbacks[0], "Unimplemented") {
			t.Errorf("api %s fallbacks %q", res.API, res.Fallbacks)
		}
	})
	t.Run("refused", func(t *testing.T) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		m := &ManifestJaeger{}
		cl, res, err := fetchJaegerAPIs(context.Background(), Options{JaegerURL: httpSrv.URL, JaegerGRPC: "grpc://" + addr, Transport: tr}, opt, m)
		if err != nil || cl == nil {
			t.Fatal(err)
		}
		if res.API != "v3" || m.URL != httpSrv.URL || len(res.Fallbacks) != 2 || !strings.Contains(res.Fallbacks[0], "Unavailable") {
			t.Errorf("api %s url %s fallbacks %q", res.API, m.URL, res.Fallbacks)
		}
		for _, f := range res.Fallbacks {
			if strings.Contains(f, secret) {
				t.Errorf("secret in %q", f)
			}
		}
	})
	t.Run("bad endpoint", func(t *testing.T) {
		for _, ep := range []string{"http://x:1", "grpc://user:pw@x:1", "grpc:///nohost"} {
			if _, _, _, err := JaegerGRPCTarget(ep); err == nil || strings.Contains(err.Error(), "pw@") {
				t.Errorf("%s: %v", ep, err)
			}
		}
		target, useTLS, fallback, err := JaegerGRPCTarget("grpcs://jaeger.example")
		if err != nil || target != "jaeger.example:16685" || !useTLS || fallback != "https://jaeger.example:16686" {
			t.Errorf("grpcs://jaeger.example: %s %v %s %v", target, useTLS, fallback, err)
		}
	})
}

// TestJaegerGRPCBounds: a stream larger than --max-response-size fails its
// search (named in Missing), not the process.
func TestJaegerGRPCBounds(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	fq := &fakeQuery{spans: testSpans(t0)}
	addr := startGRPC(t, fq, true)
	g, err := dialJaegerGRPC(addr, false, TransportOptions{MaxBody: 200, Retries: -1}, func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	defer g.conn.Close()
	_, err = grpcV2{g}.find(context.Background(), findParams{service: "api", start: t0, end: t0.Add(time.Hour), limit: 50})
	if err == nil || !strings.Contains(err.Error(), "max-response-size") {
		t.Errorf("oversized stream: %v", err)
	}
	if errors.Is(err, errFallback) {
		t.Error("a search error must not switch APIs")
	}
}
