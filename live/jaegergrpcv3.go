package live

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// Jaeger's api_v3.QueryService over gRPC: jaeger-idl ships its proto
// (query_service.proto) but no Go code, so the requests' few fields are
// written with protowire and the answers read field by field, the traces
// (OTLP TracesData) by pdata.

type grpcV3 struct{ g *grpcConn }

func (grpcV3) name() string { return "grpc-v3" }

func (b grpcV3) services(ctx context.Context) ([]string, error) {
	var out []byte
	err := b.g.retry(ctx, func(ctx context.Context) error {
		return b.g.conn.Invoke(ctx, "/jaeger.api_v3.QueryService/GetServices", []byte{}, &out)
	})
	if err != nil {
		return nil, b.g.callErr("api_v3", "GetServices", err, true)
	}
	return repeatedStrings(out, 1, 0), nil
}

func (b grpcV3) operations(ctx context.Context, svc string) ([]string, error) {
	req := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), svc)
	var out []byte
	err := b.g.retry(ctx, func(ctx context.Context) error {
		return b.g.conn.Invoke(ctx, "/jaeger.api_v3.QueryService/GetOperations", req, &out)
	})
	if err != nil {
		return nil, b.g.callErr("api_v3", "GetOperations", err, false)
	}
	return sortedSet(repeatedStrings(out, 1, 1)), nil
}

// repeatedStrings returns the strings of repeated field num; sub > 0 reads
// each element's string field sub instead (Operation.name).
func repeatedStrings(b []byte, num, sub protowire.Number) []string {
	var out []string
	for len(b) > 0 {
		n2, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(n2, typ, b)
		if m < 0 {
			break
		}
		if n2 == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			if sub > 0 {
				out = append(out, firstString(v, sub))
			} else {
				out = append(out, string(v))
			}
		}
		b = b[m:]
	}
	return out
}

// v3Query writes an api_v3 FindTracesRequest.
func v3Query(p findParams) []byte {
	ts := func(t time.Time) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(t.Unix()))
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(t.Nanosecond()))
	}
	var q []byte
	q = protowire.AppendString(protowire.AppendTag(q, 1, protowire.BytesType), p.service)
	if p.operation != "" {
		q = protowire.AppendString(protowire.AppendTag(q, 2, protowire.BytesType), p.operation)
	}
	q = protowire.AppendBytes(protowire.AppendTag(q, 4, protowire.BytesType), ts(p.start))
	q = protowire.AppendBytes(protowire.AppendTag(q, 5, protowire.BytesType), ts(p.end))
	if p.minDuration > 0 {
		d := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(p.minDuration/time.Second))
		d = protowire.AppendVarint(protowire.AppendTag(d, 2, protowire.VarintType), uint64(p.minDuration%time.Second))
		q = protowire.AppendBytes(protowire.AppendTag(q, 6, protowire.BytesType), d)
	}
	q = protowire.AppendVarint(protowire.AppendTag(q, 8, protowire.VarintType), uint64(min(max(p.limit, 1), 1<<30)))
	q = protowire.AppendVarint(protowire.AppendTag(q, 9, protowire.VarintType), 1) // raw_traces: see rawTraces
	return protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), q)
}

func (b grpcV3) find(ctx context.Context, p findParams) ([]*trace, error) {
	req := v3Query(p)
	var frames [][]byte
	err := b.g.retry(ctx, func(ctx context.Context) error {
		frames = frames[:0]
		return b.g.readStream(ctx, "/jaeger.api_v3.QueryService/FindTraces", req, func(f []byte) error {
			frames = append(frames, f)
			return nil
		})
	})
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, b.g.callErr("api_v3", "FindTraces", err, false)
	}
	return splitTracesData(frames)
}

// splitTracesData groups OTLP TracesData frames by trace: each trace's part
// is a TracesData of its spans under their resource and scope (pdata
// unmarshals and marshals; the spans are not interpreted).
func splitTracesData(frames [][]byte) ([]*trace, error) {
	var um ptrace.ProtoUnmarshaler
	var m ptrace.ProtoMarshaler
	byID := map[string]*trace{}
	var order []string
	for _, f := range frames {
		td, err := um.UnmarshalTraces(f)
		if err != nil {
			return nil, fmt.Errorf("decode api_v3 TracesData: %w", err)
		}
		rss := td.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			rs := rss.At(i)
			svc := ""
			if v, ok := rs.Resource().Attributes().Get("service.name"); ok {
				svc = v.AsString()
			}
			sss := rs.ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				ss := sss.At(j)
				group := map[string]ptrace.Traces{}
				var ids []string
				spans := ss.Spans()
				for k := 0; k < spans.Len(); k++ {
					sp := spans.At(k)
					id := sp.TraceID().String()
					t := byID[id]
					if t == nil {
						t = &trace{id: id, durs: map[string][]time.Duration{}}
						byID[id] = t
						order = append(order, id)
					}
					part, ok := group[id]
					if !ok {
						part = ptrace.NewTraces()
						prs := part.ResourceSpans().AppendEmpty()
						rs.Resource().CopyTo(prs.Resource())
						prs.SetSchemaUrl(rs.SchemaUrl())
						pss := prs.ScopeSpans().AppendEmpty()
						ss.Scope().CopyTo(pss.Scope())
						pss.SetSchemaUrl(ss.SchemaUrl())
						group[id] = part
						ids = append(ids, id)
					}
					sp.CopyTo(part.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty())
					if e, s := sp.EndTimestamp(), sp.StartTimestamp(); e > s {
						t.durs[svc] = append(t.durs[svc], time.Duration(e-s))
					}
					if sp.Status().Code() == ptrace.StatusCodeError {
						t.errors = true
					}
				}
				for _, id := range ids {
					b, err := m.MarshalTraces(group[id])
					if err != nil {
						return nil, err
					}
					byID[id].parts = append(byID[id].parts, b)
				}
			}
		}
	}
	out := make([]*trace, 0, len(order))
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out, nil
}

// encode concatenates the traces' TracesData messages: protobuf reads the
// concatenation as one TracesData holding every ResourceSpans.
func (grpcV3) encode(ts []*trace) ([]byte, error) {
	var out []byte
	for _, t := range ts {
		for _, p := range t.parts {
			out = append(out, p...)
		}
	}
	return out, nil
}
