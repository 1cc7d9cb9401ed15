package live

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/jaegertracing/jaeger-idl/proto-gen/api_v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// Jaeger's gRPC query API (port 16685): api_v3.QueryService (whose
// FindTraces streams OTLP TracesData; jaeger-idl ships its proto but no Go
// code, so its few request fields are written with protowire), else
// api_v2.QueryService on jaeger-idl's span model (the generated messages
// for the listings; FindTraces read as raw SpansResponseChunk frames).
// api_v3 comes first because Jaeger v2 stores OTLP and streams it as is,
// while its api_v2 converts every span to the model and sends chunks of 10
// spans: measured on Jaeger v1.76 (docs/performance.md), api_v2 is slower
// than even the HTTP JSON API. --jaeger-grpc-api picks one. Both plug into the
// HTTP path's sampler (FetchJaeger: the same services, operations, trace
// budget, request bound and deadline), and a refused gRPC endpoint falls
// back to HTTP. What is saved is what the server sent: the spans' own bytes,
// as an api_v2 chunk stream (traces.grpc-v2.jaeger.pb) or an OTLP
// TracesData (traces.grpc-v3.otlp.binpb), which ingest reads by content.

// errFallback marks a listing error after which the next API in the chain
// is tried (an API the server lacks, a gRPC endpoint that refuses).
var errFallback = errors.New("try the next API")

// DefaultJaegerGRPCPort and DefaultJaegerHTTPPort are Jaeger's query ports:
// a grpc:// URL without a port gets the first; falling back to HTTP from a
// grpc:// URL alone goes to the second on the same host.
const (
	DefaultJaegerGRPCPort = "16685"
	DefaultJaegerHTTPPort = "16686"
)

// JaegerGRPCTarget parses a gRPC endpoint: grpc://host[:port],
// grpcs://host[:port] (TLS) or a bare host:port. It returns the dial target,
// whether TLS is on, and the HTTP URL a refused endpoint falls back to
// (Jaeger's HTTP port on the same host) when no other is given.
func JaegerGRPCTarget(s string) (target string, useTLS bool, httpURL string, err error) {
	raw := strings.TrimSpace(s)
	scheme := "grpc"
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, raw = strings.ToLower(raw[:i]), raw[i+3:]
	}
	if scheme != "grpc" && scheme != "grpcs" {
		return "", false, "", fmt.Errorf("jaeger gRPC endpoint %q: want grpc://host[:port], grpcs://host[:port] or host:port", redactRaw(s))
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		return "", false, "", fmt.Errorf("jaeger gRPC endpoint %q: credentials go in --token-file or --basic-auth-file, not the URL", redactRaw(s))
	}
	raw = strings.TrimRight(raw, "/")
	host, port, perr := net.SplitHostPort(raw)
	if perr != nil {
		host, port = raw, DefaultJaegerGRPCPort
	}
	if host == "" || strings.ContainsAny(host, "/?#") {
		return "", false, "", fmt.Errorf("jaeger gRPC endpoint %q: want grpc://host[:port]", redactRaw(s))
	}
	useTLS = scheme == "grpcs"
	hs := "http"
	if useTLS {
		hs = "https"
	}
	return net.JoinHostPort(host, port), useTLS, hs + "://" + net.JoinHostPort(host, DefaultJaegerHTTPPort), nil
}

// IsGRPCURL reports whether a --jaeger-url names a gRPC endpoint.
func IsGRPCURL(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(l, "grpc://") || strings.HasPrefix(l, "grpcs://")
}

// rawCodec passes frames through as bytes (FindTraces, api_v3) and uses
// gogo's generated Marshal/Unmarshal for jaeger-idl's messages, which the
// default codec could only reach through slow reflection. It keeps the
// name "proto": the wire content type does not change.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case []byte:
		return mem.BufferSlice{mem.SliceBuffer(m)}, nil
	case interface{ Marshal() ([]byte, error) }:
		b, err := m.Marshal()
		return mem.BufferSlice{mem.SliceBuffer(b)}, err
	}
	return nil, fmt.Errorf("grpc codec: cannot marshal %T", v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *[]byte:
		*m = data.Materialize()
		return nil
	case interface{ Unmarshal([]byte) error }:
		return m.Unmarshal(data.Materialize())
	}
	return fmt.Errorf("grpc codec: cannot unmarshal into %T", v)
}

// grpcConn is one gRPC endpoint with the transport's options.
type grpcConn struct {
	conn   *grpc.ClientConn
	target string
	opt    TransportOptions
	redact func(string) string
}

// dialJaegerGRPC opens (lazily: nothing is sent before the first call) a
// connection to target with the transport's TLS, credentials, message bound
// and user agent. Credentials ride as metadata, also over plaintext (the
// user chose grpc://, as with an http:// URL).
func dialJaegerGRPC(target string, useTLS bool, opt TransportOptions, redact func(string) string) (*grpcConn, error) {
	creds := insecure.NewCredentials()
	if useTLS {
		cfg, err := tlsConfig(opt)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(cfg)
	}
	maxBody := opt.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	var auth string
	switch {
	case opt.BearerToken != "":
		auth = "Bearer " + opt.BearerToken
	case opt.BasicUser != "":
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(opt.BasicUser+":"+opt.BasicPassword))
	}
	withAuth := func(ctx context.Context) context.Context {
		if auth == "" {
			return ctx
		}
		return metadata.AppendToOutgoingContext(ctx, "authorization", auth)
	}
	ua := opt.UserAgent
	if ua == "" {
		ua = "pipeline-analyze"
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(creds),
		grpc.WithUserAgent(ua),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallRecvMsgSize(int(min(maxBody, 1<<31-1)))),
		grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(withAuth(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(withAuth(ctx), desc, cc, method, opts...)
		}))
	if err != nil {
		return nil, fmt.Errorf("jaeger gRPC %s: %w", target, err)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	return &grpcConn{conn: conn, target: target, opt: opt, redact: redact}, nil
}

// refused reports a gRPC error that means "no gRPC query API here": the
// connection failed, the server speaks another protocol, or lacks the
// service.
func refused(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.Unimplemented, codes.Unknown, codes.Internal:
		return true
	}
	return false
}

// callErr words a gRPC error (secrets redacted) and marks the listing
// errors after which the chain moves on.
func (g *grpcConn) callErr(api, what string, err error, listing bool) error {
	st, _ := status.FromError(err)
	msg := fmt.Errorf("jaeger gRPC %s %s %s: %s: %s", g.target, api, what, st.Code(), g.redact(st.Message()))
	if listing && refused(err) {
		return fmt.Errorf("%w: %w", errFallback, msg)
	}
	return msg
}

// retry runs call up to 1+Retries times while it fails with a transient
// code (Unavailable, ResourceExhausted, Aborted), backing off as HTTP does.
func (g *grpcConn) retry(ctx context.Context, call func(ctx context.Context) error) error {
	delay := g.opt.Backoff
	if delay <= 0 {
		delay = 250 * time.Millisecond
	}
	var err error
	for attempt := 0; attempt <= max(g.opt.Retries, 0); attempt++ {
		if attempt > 0 {
			if serr := sleepCtx(ctx, delay); serr != nil {
				return err
			}
			delay *= 2
		}
		cctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
		err = call(cctx)
		cancel()
		switch status.Code(err) {
		case codes.Unavailable, codes.ResourceExhausted, codes.Aborted:
			continue
		}
		return err
	}
	return err
}

// readStream reads a server stream's frames into fn, bounding their total
// by MaxBody (as one HTTP response is bounded).
func (g *grpcConn) readStream(ctx context.Context, method string, req []byte, fn func(frame []byte) error) error {
	ctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
	defer cancel()
	st, err := g.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, method)
	if err != nil {
		return err
	}
	if err := st.SendMsg(req); err != nil {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	total := int64(0)
	for {
		var frame []byte
		err := st.RecvMsg(&frame)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		total += int64(len(frame))
		if total > g.opt.MaxBody {
			return status.Errorf(codes.ResourceExhausted, "stream larger than %d MiB (--max-response-size)", g.opt.MaxBody>>20)
		}
		if err := fn(frame); err != nil {
			return err
		}
	}
}

// ---- api_v2 over gRPC ----

type grpcV2 struct{ g *grpcConn }

func (grpcV2) name() string { return "grpc-v2" }

func (b grpcV2) services(ctx context.Context) ([]string, error) {
	var out api_v2.GetServicesResponse
	err := b.g.retry(ctx, func(ctx context.Context) error {
		return b.g.conn.Invoke(ctx, "/jaeger.api_v2.QueryService/GetServices", &api_v2.GetServicesRequest{}, &out)
	})
	if err != nil {
		return nil, b.g.callErr("api_v2", "GetServices", err, true)
	}
	return out.Services, nil
}

func (b grpcV2) operations(ctx context.Context, svc string) ([]string, error) {
	var out api_v2.GetOperationsResponse
	err := b.g.retry(ctx, func(ctx context.Context) error {
		return b.g.conn.Invoke(ctx, "/jaeger.api_v2.QueryService/GetOperations", &api_v2.GetOperationsRequest{Service: svc}, &out)
	})
	if err != nil {
		return nil, b.g.callErr("api_v2", "GetOperations", err, false)
	}
	names := append([]string(nil), out.OperationNames...)
	for _, o := range out.Operations {
		if o != nil {
			names = append(names, o.Name)
		}
	}
	return sortedSet(names), nil
}

func (b grpcV2) find(ctx context.Context, p findParams) ([]*trace, error) {
	q := &api_v2.TraceQueryParameters{ServiceName: p.service, OperationName: p.operation,
		StartTimeMin: p.start.UTC(), StartTimeMax: p.end.UTC(), DurationMin: p.minDuration, SearchDepth: int32(min(max(p.limit, 1), 1<<30)),
		RawTraces: rawTraces}
	if p.errorsOnly {
		q.Tags = map[string]string{"error": "true"}
	}
	req, err := (&api_v2.FindTracesRequest{Query: q}).Marshal()
	if err != nil {
		return nil, err
	}
	g := newGrouper()
	err = b.g.retry(ctx, func(ctx context.Context) error {
		g.reset()
		return b.g.readStream(ctx, "/jaeger.api_v2.QueryService/FindTraces", req, g.chunk)
	})
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, b.g.callErr("api_v2", "FindTraces", err, false)
	}
	return g.traces(), nil
}

// encode writes the kept spans as one SpansResponseChunk (each span as
// field 1, as the server framed it): the raw payloads of the streams,
// concatenated.
func (grpcV2) encode(ts []*trace) ([]byte, error) {
	n := 0
	for _, t := range ts {
		for _, p := range t.parts {
			n += len(p) + 6
		}
	}
	out := make([]byte, 0, n)
	for _, t := range ts {
		for _, p := range t.parts {
			out = protowire.AppendTag(out, 1, protowire.BytesType)
			out = protowire.AppendBytes(out, p)
		}
	}
	return out, nil
}

// grouper splits SpansResponseChunk frames into traces by reading only the
// few fields the sampler needs from each span's wire bytes: its trace ID,
// duration, service and error tag. The span's bytes are kept as they came.
type grouper struct {
	byID  map[[16]byte]*trace
	order [][16]byte
}

func newGrouper() *grouper { return &grouper{byID: map[[16]byte]*trace{}} }

func (g *grouper) reset() { clear(g.byID); g.order = g.order[:0] }

func (g *grouper) chunk(frame []byte) error {
	for len(frame) > 0 {
		num, typ, n := protowire.ConsumeTag(frame)
		if n < 0 {
			return status.Error(codes.DataLoss, "bad SpansResponseChunk")
		}
		frame = frame[n:]
		if typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, frame)
			if m < 0 {
				return status.Error(codes.DataLoss, "bad SpansResponseChunk")
			}
			frame = frame[m:]
			continue
		}
		v, m := protowire.ConsumeBytes(frame)
		if m < 0 {
			return status.Error(codes.DataLoss, "SpansResponseChunk cut short")
		}
		frame = frame[m:]
		if num != 1 {
			continue
		}
		h, ok := spanHead(v)
		if !ok {
			continue
		}
		t := g.byID[h.trace]
		if t == nil {
			t = &trace{id: h.hexID(), durs: map[string][]time.Duration{}}
			g.byID[h.trace] = t
			g.order = append(g.order, h.trace)
		}
		t.parts = append(t.parts, v)
		t.durs[h.service] = append(t.durs[h.service], h.dur)
		t.errors = t.errors || h.err
	}
	return nil
}

func (g *grouper) traces() []*trace {
	out := make([]*trace, 0, len(g.order))
	for _, id := range g.order {
		out = append(out, g.byID[id])
	}
	return out
}

// head is what the sampler reads of a model.Span.
type head struct {
	trace   [16]byte
	dur     time.Duration
	service string
	err     bool
}

// hexID renders the trace ID as the JSON API does (16 hex digits when the
// high half is zero).
func (h head) hexID() string {
	const digits = "0123456789abcdef"
	var b [32]byte
	for i, c := range h.trace {
		b[2*i], b[2*i+1] = digits[c>>4], digits[c&15]
	}
	if bytes.Equal(h.trace[:8], make([]byte, 8)) {
		return string(b[16:])
	}
	return string(b[:])
}

// spanHead reads a model.Span's trace_id (1), duration (7: Duration
// seconds 1, nanos 2), process.service_name (10 → 1) and an error=true tag
// (8: KeyValue key 1, v_str 3, v_bool 4).
func spanHead(b []byte) (head, bool) {
	var h head
	gotID := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return h, false
		}
		b = b[n:]
		if typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return h, false
			}
			b = b[m:]
			continue
		}
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return h, false
		}
		b = b[m:]
		switch num {
		case 1:
			if len(v) == 16 {
				copy(h.trace[:], v)
				gotID = true
			}
		case 7:
			s, ns := varintFields(v)
			h.dur = time.Duration(s)*time.Second + time.Duration(ns)
		case 8:
			if kvIsError(v) {
				h.err = true
			}
		case 10:
			h.service = firstString(v, 1)
		}
	}
	return h, gotID
}

// varintFields returns the varint fields 1 and 2 of a Timestamp or Duration.
func varintFields(b []byte) (a, c int64) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return
		}
		b = b[n:]
		if typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return
			}
			switch num {
			case 1:
				a = int64(v)
			case 2:
				c = int64(int32(v))
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return
		}
		b = b[m:]
	}
	return
}

// firstString returns the string field num of a message.
func firstString(b []byte, want protowire.Number) string {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return ""
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return ""
		}
		if num == want && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			return string(v)
		}
		b = b[m:]
	}
	return ""
}

// kvIsError reports an "error" KeyValue that is true (bool or "true").
func kvIsError(b []byte) bool {
	key, str, boolean := "", "", false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			key, b = string(v), b[m:]
			continue
		case num == 3 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			str, b = string(v), b[m:]
			continue
		case num == 4 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return false
			}
			boolean, b = v != 0, b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return false
		}
		b = b[m:]
	}
	return key == "error" && (boolean || strings.EqualFold(str, "true"))
}

// rawTraces asks the gRPC searches for the traces as stored (raw_traces):
// Jaeger v1.76 adjusts a found trace (clock skew, its "@jaeger@warnings")
// in place, in the memory store's copy that concurrent searches share, and
// crashed in pdata's marshalling when two searches met (seen in
// TestLiveJaegerGRPC: "slice bounds out of range" in AnyValue.MarshalProto).
// The spans' IDs, durations and attributes are the same either way; their
// start times are the instrumented ones, without the skew correction.
const rawTraces = true

// grpcFileNames are the saved file of each gRPC API.
var grpcFileNames = map[string]string{"grpc-v2": "traces.grpc-v2.jaeger.pb", "grpc-v3": "traces.grpc-v3.otlp.binpb"}

// sortedSet sorts and deduplicates names.
func sortedSet(names []string) []string {
	set := map[string]bool{}
	var out []string
	for _, n := range names {
		if !set[n] {
			set[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// grpcOrigin names a gRPC endpoint for notes and the manifest.
func grpcOrigin(target string, useTLS bool) string {
	s := "grpc"
	if useTLS {
		s = "grpcs"
	}
	return (&url.URL{Scheme: s, Host: target}).String()
}
