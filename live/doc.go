// Package live fetches an incident from the systems that hold it — a running
// Jaeger (HTTP or gRPC), Grafana Tempo, Prometheus, Grafana Loki or
// VictoriaLogs — and writes what it
// fetched as files in the
// formats package ingest already reads, plus a manifest. Reading those files
// is the only way live data enters the analysis, so a saved bundle reproduces
// the scorecard of the run that fetched it.
//
// It owns the fetchers, their bounds and the bundle directory format (the
// files and the manifest). It must not analyse or decode: what it fetched
// enters the analysis only by being read back through package ingest.
//
// The pieces:
//
//   - transport.go: one HTTP client per endpoint with bearer or basic auth,
//     a custom CA or InsecureSkipVerify, the proxy from the environment
//     (http.ProxyFromEnvironment), a per-request timeout and retries with
//     exponential backoff on network errors, 429 and 5xx. Secrets live only
//     in request headers; every error and URL that leaves this package is
//     redacted (userinfo removed, token never in a URL).
//   - jaeger.go: api_v3 (/api/v3/services, /api/v3/operations,
//     /api/v3/traces with RFC3339 query.start_time_min/max and
//     query.num_traces > 0), falling back to the v1 search (/api/services,
//     /api/traces) when api_v3 is absent. Sampling is bounded and stated:
//     per service, the range is cut into time slices with an equal share of
//     the budget each (the baseline sample, which keeps derived rates
//     comparable over time), then per operation the window's slow traces
//     (duration at or above the sample's p90) and, where the server can
//     filter (v1 tags), its error traces are added.
//   - jaegergrpc.go, jaegersource.go: Jaeger's gRPC query API (api_v3,
//     else api_v2 on jaeger-idl's span model) under the same sampler, with
//     raw FindTraces frames kept as they came and a fallback to HTTP when
//     the gRPC endpoint refuses.
//   - tempo.go: Grafana Tempo, the same sampling plan as TraceQL searches
//     (a full page searched again in halves of its range), then the traces
//     by ID in parallel under the request bound and byte budget (hydrate).
//   - prometheus.go and querypacks.go: query_range for the whole range
//     (baseline + window) at one step, for the built-in packs (vLLM old and
//     new names, DCGM old and new field names, cAdvisor/kubelet,
//     node-exporter, Istio, service graph) and the user's own queries, with a
//     --selector narrowing every pack query and a concurrency limit.
//   - logs.go: Loki query_range (direction=forward) and VictoriaLogs
//     /select/logsql/query (the selector "| sort by (_time)"), paged forward
//     by the newest entry of each full page, bounded by a record cap; the
//     selector defaults to the traced services ({service_name=~"a|b"}); each
//     page is saved as it came (logs/loki_NNN.json,
//     logs/victorialogs_NNN.jsonl).
//   - savebundle.go: the files (traces.v3.otlp.json, traces.v1.jaeger.json,
//     traces.grpc-v3.otlp.binpb, traces.grpc-v2.jaeger.pb,
//     traces.tempo.otlp.binpb,
//     prometheus/qr_<name>.json) and manifest.json (key
//     "pipeline_analyze_manifest", skipped by ingest's sniffer) recording the
//     range, the sampling, every query and the warnings of the fetch.
//
// Partial failure (a query errors, Jaeger is down) is a warning naming what
// is missing; only when nothing at all arrives is Fetch an error. Nothing
// here reads the wall clock: the caller passes the range.
package live
