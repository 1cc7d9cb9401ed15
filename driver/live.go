package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/live"
	"github.com/spf13/pflag"
)

// liveFlags fetch the incident from a running Jaeger, Prometheus, Loki and
// VictoriaLogs. Each tagged field is a flag (see flags.go): its default is
// in defaultLiveFlags, its help in liveHelp.
type liveFlags struct {
	JaegerURL     string        `flag:"jaeger-url"`
	JaegerGRPC    string        `flag:"jaeger-grpc"`
	JaegerGRPCAPI string        `flag:"jaeger-grpc-api"`
	TempoURL      string        `flag:"tempo-url"`
	OrgID         string        `flag:"org-id"`
	PromURL       string        `flag:"prometheus-url"`
	Queries       []string      `flag:"query"`
	Selector      string        `flag:"selector"`
	Packs         string        `flag:"packs"`
	ListQueries   bool          `flag:"list-queries"`
	TokenFile     string        `flag:"token-file"`
	TokenEnv      string        `flag:"token-env"`
	BasicAuthFile string        `flag:"basic-auth-file"`
	CaFile        string        `flag:"ca-file"`
	Insecure      bool          `flag:"insecure-skip-verify"`
	Timeout       time.Duration `flag:"timeout"`
	Retries       int           `flag:"retries"`
	MaxTraces     int           `flag:"max-traces"`
	SaveBundle    string        `flag:"save-bundle"`
	Concurrency   int           `flag:"concurrency"`
	LokiURL       string        `flag:"loki-url"`
	VlogsURL      string        `flag:"victorialogs-url"`
	LogSelector   string        `flag:"log-selector"`
	LogPage       int           `flag:"log-page"`
	MaxLogRecords int           `flag:"max-log-records"`
	FetchTimeout  time.Duration `flag:"fetch-timeout"`
	MaxResponse   int64         `flag:"max-response-size"`
	MaxServices   int           `flag:"max-services"`
	MaxRequests   int           `flag:"max-requests"`
	MaxFetch      int64         `flag:"max-fetch-size"`
}

// defaultLiveFlags are the live defaults (the fetch bounds are the live
// package's).
func defaultLiveFlags() liveFlags {
	return liveFlags{
		JaegerGRPCAPI: "auto", Packs: "all", TokenEnv: "PIPELINE_ANALYZE_TOKEN", Timeout: live.DefaultTimeout, Retries: 2, MaxTraces: live.DefaultMaxTraces, Concurrency: live.DefaultConcurrency,
		LogPage: live.DefaultLogPage, MaxLogRecords: live.DefaultLogMax, FetchTimeout: live.DefaultFetchTimeout,
		MaxResponse: live.DefaultMaxBody, MaxServices: live.DefaultMaxServices, MaxRequests: live.DefaultMaxRequests,
		MaxFetch: live.DefaultMaxFetchBytes,
	}
}

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

// liveFlagNames are the flags that only steer the fetch, each with whether
// it is boolean; they are dropped from the rerun command recorded in the
// scorecard (the rerun reads the saved bundle instead).
var liveFlagNames = flagKinds(&liveFlags{})

// register fills l with the defaults and defines its flags.
func (l *liveFlags) register(fs *pflag.FlagSet) {
	*l = defaultLiveFlags()
	registerFields(fs, l, liveHelp, clihelp.GroupLive)
}

// active reports whether a live source was given.
func (l *liveFlags) active() bool {
	return l.JaegerURL != "" || l.JaegerGRPC != "" || l.TempoURL != "" || l.PromURL != "" || l.LokiURL != "" || l.VlogsURL != ""
}

// list prints the queries --prometheus-url would run.
func (l *liveFlags) list(stdout, stderr io.Writer, step time.Duration) int {
	sel, err := live.ParseSelector(l.Selector)
	if err != nil {
		return usageError(stderr, err)
	}
	qs, err := live.Queries(l.Packs, sel, live.EffectiveStep(time.Time{}, time.Time{}, step), l.Queries)
	if err != nil {
		return usageError(stderr, err)
	}
	if err := live.WriteQueries(stdout, qs); err != nil {
		cliio.SayErr(stderr, "", err)
		return 1
	}
	return 0
}

// options builds the transport from the flags and the secret files.
func (l *liveFlags) options(af *analysisFlags) (live.Options, error) {
	var opt live.Options
	tr := live.TransportOptions{CAFile: l.CaFile, InsecureSkipVerify: l.Insecure, Timeout: l.Timeout, Retries: l.Retries,
		UserAgent: "pipeline-analyze/" + version}
	switch {
	case l.TokenFile != "":
		data, err := boundedfile.ReadFile(l.TokenFile, maxSecretBytes, "")
		if err != nil {
			return opt, fmt.Errorf("--token-file: %w", err)
		}
		tr.BearerToken = strings.TrimSpace(string(data))
		if tr.BearerToken == "" {
			return opt, fmt.Errorf("--token-file %s: empty", l.TokenFile)
		}
	case l.TokenEnv != "":
		tr.BearerToken = strings.TrimSpace(os.Getenv(l.TokenEnv))
	}
	if l.BasicAuthFile != "" {
		data, err := boundedfile.ReadFile(l.BasicAuthFile, maxSecretBytes, "")
		if err != nil {
			return opt, fmt.Errorf("--basic-auth-file: %w", err)
		}
		user, pass, ok := strings.Cut(strings.TrimSpace(string(data)), ":")
		if !ok || user == "" {
			return opt, fmt.Errorf("--basic-auth-file %s: want one line user:password", l.BasicAuthFile)
		}
		tr.BasicUser, tr.BasicPassword = user, pass
		if l.TokenFile == "" {
			tr.BearerToken = "" // an explicit basic auth file beats a token from the environment
		}
	}
	if l.Concurrency <= 0 || l.MaxTraces <= 0 || l.Retries < 0 || l.Timeout <= 0 || l.FetchTimeout <= 0 || l.MaxResponse <= 0 ||
		l.MaxServices <= 0 || l.MaxRequests <= 0 || l.MaxFetch <= 0 || l.LogPage <= 0 || l.MaxLogRecords <= 0 {
		return opt, fmt.Errorf("%w: --concurrency, --max-traces, --timeout, --fetch-timeout, --log-page, --max-log-records and the --max-* fetch bounds must be positive, --retries not negative", errUsage)
	}
	if sel := strings.TrimSpace(l.LogSelector); sel != "" && !(strings.HasPrefix(sel, "{") && strings.HasSuffix(sel, "}")) {
		return opt, fmt.Errorf("%w: --log-selector %q: want a stream selector {label=\"value\",...}", errUsage, sel)
	}
	opt.LokiURL, opt.VictoriaLogsURL, opt.LogSelector = l.LokiURL, l.VlogsURL, l.LogSelector
	opt.LogPage, opt.MaxLogRecords = l.LogPage, l.MaxLogRecords
	tr.MaxBody = l.MaxResponse
	opt.JaegerURL, opt.PrometheusURL, opt.JaegerGRPC, opt.TempoURL = l.JaegerURL, l.PromURL, l.JaegerGRPC, l.TempoURL
	switch l.JaegerGRPCAPI {
	case "auto", "":
	case "v2", "v3":
		opt.JaegerGRPCAPI = l.JaegerGRPCAPI
	default:
		return opt, fmt.Errorf("%w: --jaeger-grpc-api %q: want auto, v3 or v2", errUsage, l.JaegerGRPCAPI)
	}
	tr.OrgID = strings.TrimSpace(l.OrgID)
	if ep := l.JaegerGRPC; ep != "" || live.IsGRPCURL(l.JaegerURL) {
		if ep == "" {
			ep = l.JaegerURL
		}
		if _, _, _, err := live.JaegerGRPCTarget(ep); err != nil {
			return opt, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	opt.Transport, opt.MaxTraces, opt.Concurrency = tr, l.MaxTraces, l.Concurrency
	opt.FetchTimeout, opt.MaxServices, opt.MaxRequests, opt.MaxFetchBytes = l.FetchTimeout, l.MaxServices, l.MaxRequests, l.MaxFetch
	return opt, nil
}

// rerunArgs drops the live flags and --at (the saved manifest carries the
// incident time) from args, leaving the analysis flags and paths.
func rerunArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		isBool, isLive := liveFlagNames[name]
		if !strings.HasPrefix(a, "--") || !(isLive || name == "at") {
			out = append(out, a)
			continue
		}
		if !hasValue && !isBool && i+1 < len(args) {
			i++ // the flag's value
		}
	}
	return out
}

// liveExit is the exit status of a source's open error: 2 for usage, else 1.
// When no source delivered anything, each source's cause gets its own line
// (one line for all would be cut at cliio.MaxErrLine), even with --quiet.
func liveExit(stderr io.Writer, err error) int {
	if errors.Is(err, errUsage) {
		return usageError(stderr, err)
	}
	var nf *live.NothingFetchedError
	if errors.As(err, &nf) {
		for _, f := range nf.Failures {
			fmt.Fprintf(stderr, "pipeline-analyze: live: %s\n", cliio.OneLine(f))
		}
		fmt.Fprintln(stderr, "pipeline-analyze: live: nothing fetched")
		return 1
	}
	cliio.SayErr(stderr, "", err)
	return 1
}
