package cmdrun

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// Live are the live sources' settings: fetch the incident from a running
// Jaeger, Tempo, Prometheus, Loki and VictoriaLogs. Each tagged field is
// the command line's flag --NAME (driver generates the flags from the
// tags); the defaults are DefaultLive's.
type Live struct {
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

// DefaultLive are the live defaults (the fetch bounds are the live
// package's).
func DefaultLive() Live {
	return Live{
		JaegerGRPCAPI: "auto", Packs: "all", TokenEnv: "PIPELINE_ANALYZE_TOKEN", Timeout: live.DefaultTimeout, Retries: 2, MaxTraces: live.DefaultMaxTraces, Concurrency: live.DefaultConcurrency,
		LogPage: live.DefaultLogPage, MaxLogRecords: live.DefaultLogMax, FetchTimeout: live.DefaultFetchTimeout,
		MaxResponse: live.DefaultMaxBody, MaxServices: live.DefaultMaxServices, MaxRequests: live.DefaultMaxRequests,
		MaxFetch: live.DefaultMaxFetchBytes,
	}
}

// liveFlagNames are the flags of Live (the fetch's only), each with
// whether it is boolean; they are dropped from the rerun command recorded
// in the scorecard (the rerun reads the saved bundle instead).
var liveFlagNames = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Live]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("flag"); name != "" {
			m[name] = t.Field(i).Type.Kind() == reflect.Bool
		}
	}
	return m
}()

// maxSecretBytes bounds a --token-file or --basic-auth-file: a token or a
// user:password line, never megabytes (files a flag names are read with
// internal/boundedfile: regular files only, size-limited).
const maxSecretBytes = 64 << 10

// Active reports whether a live source was given.
func (l *Live) Active() bool {
	return l.JaegerURL != "" || l.JaegerGRPC != "" || l.TempoURL != "" || l.PromURL != "" || l.LokiURL != "" || l.VlogsURL != ""
}

// List writes the queries --prometheus-url would run (--list-queries) to
// stdout; a failure is an *Error, success an *Error of status 0 with no
// lines (nothing further to report).
func (l *Live) List(stdout io.Writer, step time.Duration) *Error {
	sel, err := live.ParseSelector(l.Selector)
	if err != nil {
		return Usage("", err)
	}
	qs, err := live.Queries(l.Packs, sel, live.EffectiveStep(time.Time{}, time.Time{}, step), l.Queries)
	if err != nil {
		return Usage("", err)
	}
	if err := live.WriteQueries(stdout, qs); err != nil {
		return Failed("", err)
	}
	return &Error{}
}

// Options builds the live fetch's options from the settings and the
// secret files; version is the User-Agent's. An error of a setting wraps
// analysis.ErrUsage.
func (l *Live) Options(version string) (live.Options, error) {
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
		return opt, fmt.Errorf("%w: --concurrency, --max-traces, --timeout, --fetch-timeout, --log-page, --max-log-records and the --max-* fetch bounds must be positive, --retries not negative", analysis.ErrUsage)
	}
	if sel := strings.TrimSpace(l.LogSelector); sel != "" && !(strings.HasPrefix(sel, "{") && strings.HasSuffix(sel, "}")) {
		return opt, fmt.Errorf("%w: --log-selector %q: want a stream selector {label=\"value\",...}", analysis.ErrUsage, sel)
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
		return opt, fmt.Errorf("%w: --jaeger-grpc-api %q: want auto, v3 or v2", analysis.ErrUsage, l.JaegerGRPCAPI)
	}
	tr.OrgID = strings.TrimSpace(l.OrgID)
	if ep := l.JaegerGRPC; ep != "" || live.IsGRPCURL(l.JaegerURL) {
		if ep == "" {
			ep = l.JaegerURL
		}
		if _, _, _, err := live.JaegerGRPCTarget(ep); err != nil {
			return opt, fmt.Errorf("%w: %v", analysis.ErrUsage, err)
		}
	}
	opt.Transport, opt.MaxTraces, opt.Concurrency = tr, l.MaxTraces, l.Concurrency
	opt.FetchTimeout, opt.MaxServices, opt.MaxRequests, opt.MaxFetchBytes = l.FetchTimeout, l.MaxServices, l.MaxRequests, l.MaxFetch
	return opt, nil
}

// RerunArgs drops the live flags and --at (the saved manifest carries the
// incident time) from args, leaving the analysis flags and paths.
func RerunArgs(args []string) []string {
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

// NewSource picks the source of an analysis (analysis.Source): the live
// one when a live endpoint was given, its fetch built from the settings
// (the secret files read, the secrets given to red), else the local one.
// An error is a setting's (analysis.ErrUsage) or a secret file's.
func NewSource(l *Live, s *analysis.Settings, version, work string, red *cliio.Redactor, progress func(string, ...any)) (analysis.Source, error) {
	if !l.Active() {
		return analysis.LocalSource{}, nil
	}
	src, err := NewLiveSource(l, s, version, red, progress)
	if err != nil {
		return nil, err
	}
	src.Fetch.WorkDir = work
	return src, nil
}

// NewLiveSource is the live source of the settings: the transport from
// the settings and the secret files (Options), the secrets given to red,
// the incident's window and the queries.
func NewLiveSource(l *Live, s *analysis.Settings, version string, red *cliio.Redactor, progress func(string, ...any)) (*analysis.LiveSource, error) {
	opt, err := l.Options(version)
	if err != nil {
		return nil, err
	}
	red.Add(opt.Transport.BearerToken)
	red.AddBasic(opt.Transport.BasicUser, opt.Transport.BasicPassword)
	for _, u := range []string{l.JaegerURL, l.PromURL, l.TempoURL, l.LokiURL, l.VlogsURL} { // credentials in a URL are secrets too
		if pu, err := url.Parse(u); err == nil && pu.User != nil {
			p, _ := pu.User.Password()
			red.AddBasic(pu.User.Username(), p)
		}
	}
	opt.Transport.Secrets = red.Secrets()
	return &analysis.LiveSource{Fetch: analysis.LiveFetch{Options: opt, Window: s.Window, Baseline: s.Baseline, Step: s.Step,
		Selector: l.Selector, Packs: l.Packs, Queries: l.Queries, SaveBundle: l.SaveBundle, Version: version,
		Track: cliio.TrackTemp, Progress: progress}, Rerun: RerunArgs}, nil
}
