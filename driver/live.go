package driver

import (
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/spf13/pflag"
)

// liveFlags fetch the incident from a running Jaeger, Prometheus, Loki and
// VictoriaLogs (cmdrun.Live): each tagged field is a flag (see flags.go),
// its default in cmdrun.DefaultLive, its help in liveHelp.
type liveFlags = cmdrun.Live

// liveHelp is the help of each live flag.
var liveHelp = map[string]string{
	"jaeger-url":           "fetch traces from this Jaeger: http(s)://host:16686 (api_v3, falling back to the v1 search API), or grpc(s)://host:16685 (the gRPC query API, as --jaeger-grpc)",
	"jaeger-grpc":          "Jaeger's gRPC query endpoint, e.g. jaeger:16685 or grpcs://jaeger:16685 (api_v2, else api_v3); when it is refused, traces come over HTTP from --jaeger-url, else the host's port 16686",
	"jaeger-grpc-api":      "the gRPC API: auto (api_v3, else api_v2), v3 (OTLP) or v2 (the Jaeger span model)",
	"tempo-url":            "fetch traces from this Grafana Tempo (e.g. http://tempo:3200): TraceQL searches of the services over baseline + window (/api/search), then the traces by ID; Grafana Cloud: https://INSTANCE_ID@host with the token from --token-file/--token-env",
	"org-id":               "tenant sent as X-Scope-OrgID to every endpoint (Grafana Tempo, Loki, Mimir), e.g. --org-id team-a",
	"prometheus-url":       "fetch metrics from this Prometheus (query_range over baseline + window)",
	"query":                "an extra PromQL query to fetch (repeatable)",
	"selector":             `label matchers added to every pack query, e.g. '{namespace="llm"}'`,
	"packs":                "query packs to run: all, none or a comma list (see --list-queries)",
	"list-queries":         "print the built-in Prometheus queries (with --selector applied) and exit",
	"token-file":           "bearer token for Jaeger and Prometheus, read from FILE",
	"token-env":            "environment variable holding the bearer token (when --token-file is not given)",
	"basic-auth-file":      "basic auth as user:password, read from FILE (never from the command line)",
	"ca-file":              "PEM file of extra CA certificates for HTTPS endpoints",
	"insecure-skip-verify": "do not verify HTTPS certificates (unsafe)",
	"timeout":              "timeout of each HTTP request",
	"retries":              "retries of a failed request (network error, 429, 5xx), with exponential backoff",
	"max-traces":           "most traces fetched per service (a time-sliced baseline sample plus the window's slow traces)",
	"save-bundle":          "save what was fetched (and a manifest) to DIR; pipeline-analyze DIR reruns the analysis",
	"concurrency":          "HTTP requests in flight at once",
	"loki-url":             "fetch logs from this Grafana Loki (query_range over baseline + window, paged)",
	"victorialogs-url":     "fetch logs from this VictoriaLogs (/select/logsql/query over baseline + window, paged)",
	"log-selector":         `stream selector of the log queries, e.g. '{namespace="shop"}' (default: the traced services by service_name)`,
	"log-page":             "log entries per request",
	"max-log-records":      "most log records fetched per log source",
	"fetch-timeout":        "deadline of the whole live fetch: what arrived by then is analysed, and each source says what is missing",
	"max-response-size":    "largest HTTP response in bytes, after decompression",
	"max-services":         "most Jaeger services sampled (those whose request aggregates moved first, else the first by name)",
	"max-requests":         "most Jaeger requests (listings and trace searches)",
	"max-fetch-size":       "most bytes of traces and query results the fetch keeps in memory",
}

// register fills l with the defaults and defines its flags.
func registerLiveFlags(fs *pflag.FlagSet, l *liveFlags) {
	*l = cmdrun.DefaultLive()
	registerFields(fs, l, liveHelp, clihelp.GroupLive)
}
