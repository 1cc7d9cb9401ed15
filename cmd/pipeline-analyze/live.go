package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/live"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"github.com/spf13/pflag"
)

// liveFlags fetch the incident from a running Jaeger, Prometheus, Loki and
// VictoriaLogs.
type liveFlags struct {
	jaegerURL     string
	promURL       string
	queries       []string
	selector      string
	packs         string
	listQueries   bool
	tokenFile     string
	tokenEnv      string
	basicAuthFile string
	caFile        string
	insecure      bool
	timeout       time.Duration
	retries       int
	maxTraces     int
	saveBundle    string
	concurrency   int
	lokiURL       string
	vlogsURL      string
	logSelector   string
	logPage       int
	maxLogRecords int
	fetchTimeout  time.Duration
	maxResponse   int64
	maxServices   int
	maxRequests   int
	maxFetch      int64
}

// liveFlagNames are the flags that only steer the fetch; they are dropped
// from the rerun command recorded in the scorecard (the rerun reads the
// saved bundle instead).
var liveFlagNames = map[string]bool{
	"jaeger-url": true, "prometheus-url": true, "query": true, "selector": true, "packs": true, "list-queries": true,
	"token-file": true, "token-env": true, "basic-auth-file": true, "ca-file": true, "insecure-skip-verify": true,
	"timeout": true, "retries": true, "max-traces": true, "save-bundle": true, "concurrency": true,
	"loki-url": true, "victorialogs-url": true, "log-selector": true, "log-page": true, "max-log-records": true,
	"fetch-timeout": true, "max-response-size": true, "max-services": true, "max-requests": true, "max-fetch-size": true,
}

func (l *liveFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.jaegerURL, "jaeger-url", "", "fetch traces from this Jaeger (api_v3, falling back to the v1 search API)")
	fs.StringVar(&l.promURL, "prometheus-url", "", "fetch metrics from this Prometheus (query_range over baseline + window)")
	fs.StringArrayVar(&l.queries, "query", nil, "an extra PromQL query to fetch (repeatable)")
	fs.StringVar(&l.selector, "selector", "", `label matchers added to every pack query, e.g. '{namespace="llm"}'`)
	fs.StringVar(&l.packs, "packs", "all", "query packs to run: all, none or a comma list (see --list-queries)")
	fs.BoolVar(&l.listQueries, "list-queries", false, "print the built-in Prometheus queries (with --selector applied) and exit")
	fs.StringVar(&l.tokenFile, "token-file", "", "bearer token for Jaeger and Prometheus, read from FILE")
	fs.StringVar(&l.tokenEnv, "token-env", "PIPELINE_ANALYZE_TOKEN", "environment variable holding the bearer token (when --token-file is not given)")
	fs.StringVar(&l.basicAuthFile, "basic-auth-file", "", "basic auth as user:password, read from FILE (never from the command line)")
	fs.StringVar(&l.caFile, "ca-file", "", "PEM file of extra CA certificates for HTTPS endpoints")
	fs.BoolVar(&l.insecure, "insecure-skip-verify", false, "do not verify HTTPS certificates (unsafe)")
	fs.DurationVar(&l.timeout, "timeout", 30*time.Second, "timeout of each HTTP request")
	fs.IntVar(&l.retries, "retries", 2, "retries of a failed request (network error, 429, 5xx), with exponential backoff")
	fs.IntVar(&l.maxTraces, "max-traces", 1000, "most traces fetched per service (a time-sliced baseline sample plus the window's slow traces)")
	fs.StringVar(&l.saveBundle, "save-bundle", "", "save what was fetched (and a manifest) to DIR; pipeline-analyze DIR reruns the analysis")
	fs.IntVar(&l.concurrency, "concurrency", 4, "HTTP requests in flight at once")
	fs.StringVar(&l.lokiURL, "loki-url", "", "fetch logs from this Grafana Loki (query_range over baseline + window, paged)")
	fs.StringVar(&l.vlogsURL, "victorialogs-url", "", "fetch logs from this VictoriaLogs (/select/logsql/query over baseline + window, paged)")
	fs.StringVar(&l.logSelector, "log-selector", "", `stream selector of the log queries, e.g. '{namespace="shop"}' (default: the traced services by service_name)`)
	fs.IntVar(&l.logPage, "log-page", live.DefaultLogPage, "log entries per request")
	fs.IntVar(&l.maxLogRecords, "max-log-records", live.DefaultLogMax, "most log records fetched per log source")
	fs.DurationVar(&l.fetchTimeout, "fetch-timeout", live.DefaultFetchTimeout, "deadline of the whole live fetch: what arrived by then is analysed, and each source says what is missing")
	fs.Int64Var(&l.maxResponse, "max-response-size", live.DefaultMaxBody, "largest HTTP response in bytes, after decompression")
	fs.IntVar(&l.maxServices, "max-services", live.DefaultMaxServices, "most Jaeger services sampled (those whose request aggregates moved first, else the first by name)")
	fs.IntVar(&l.maxRequests, "max-requests", live.DefaultMaxRequests, "most Jaeger requests (listings and trace searches)")
	fs.Int64Var(&l.maxFetch, "max-fetch-size", live.DefaultMaxFetchBytes, "most bytes of traces and query results the fetch keeps in memory")
	for name := range liveFlagNames {
		setGroup(fs, groupLive, name)
	}
}

// active reports whether a live source was given.
func (l *liveFlags) active() bool {
	return l.jaegerURL != "" || l.promURL != "" || l.lokiURL != "" || l.vlogsURL != ""
}

// list prints the queries --prometheus-url would run.
func (l *liveFlags) list(stdout, stderr io.Writer, step time.Duration) int {
	sel, err := live.ParseSelector(l.selector)
	if err != nil {
		return usageError(stderr, err)
	}
	qs, err := live.Queries(l.packs, sel, live.EffectiveStep(time.Time{}, time.Time{}, step), l.queries)
	if err != nil {
		return usageError(stderr, err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACK\tNAME\tQUERY")
	for _, q := range qs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", q.Pack, q.Name, q.Expr)
	}
	if err := tw.Flush(); err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	return 0
}

// liveRun is what the live flags did before the inputs are read.
type liveRun struct {
	paths    []string         // the inputs to read (the fetched bundle appended)
	args     []string         // the rerun arguments recorded in the scorecard
	warnings []ingest.Warning // the fetch's notes, for the bundle
	sampling string           // how the traces were sampled, for the scorecard
	cleanup  func()
	tempDir  string // the fetched bundle's temporary directory (no --save-bundle), shown as live/<file>
}

// prepare fetches the live sources into a bundle directory, or, without
// live sources, restores the notes and incident time recorded in any saved
// bundle among paths, so that `pipeline-analyze DIR` reproduces the
// scorecard of the run that saved DIR. It may change at and spec: with live
// sources, a relative --at is resolved against the wall clock at fetch time
// (the only place the wall clock is read) and said so in spec.AtSource.
//
// work is the run's temporary directory (a fetch without --save-bundle goes
// there); red receives the secrets of the flags, so that they are redacted
// from everything the run writes.
func (l *liveFlags) prepare(ctx context.Context, args, paths []string, af *analysisFlags, at *timeSpec, spec *tcg.IncidentSpec,
	work string, red *redactor, progress func(string, ...any)) (*liveRun, error) {
	lr := &liveRun{paths: paths, args: args, cleanup: func() {}}
	if !l.active() {
		for _, p := range paths {
			m, ok, err := live.LoadManifest(p)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			lr.warnings = append(lr.warnings, noteWarnings(m.Notes)...)
			lr.addSampling(m)
			if !at.present && m.At != "" {
				t, err := time.Parse(time.RFC3339Nano, m.At)
				if err != nil {
					return nil, fmt.Errorf("%s: at %q: %w", p, m.At, err)
				}
				*at = timeSpec{abs: ingest.FromTime(t), raw: m.At, present: true}
				spec.AtSource = m.AtChosenBy
			}
		}
		return lr, nil
	}
	opt, err := l.options(af)
	if err != nil {
		return nil, err
	}
	red.add(opt.Transport.BearerToken)
	red.addBasic(opt.Transport.BasicUser, opt.Transport.BasicPassword)
	for _, u := range []string{l.jaegerURL, l.promURL} { // credentials in a URL are secrets too
		if pu, err := url.Parse(u); err == nil && pu.User != nil {
			p, _ := pu.User.Password()
			red.addBasic(pu.User.Username(), p)
		}
	}
	opt.Transport.Secrets = red.secrets()
	if l.saveBundle != "" {
		if err := live.CheckBundleDir(l.saveBundle); err != nil { // before fetching anything
			return nil, fmt.Errorf("%w: --save-bundle: %v", errUsage, err)
		}
	}
	now := time.Now().UTC().Truncate(time.Second) // the wall clock: live sources only
	win := af.window
	var wStart, wEnd time.Time
	if at.present {
		a := at.abs.Std()
		if at.isRel {
			a = now.Add(at.rel)
			spec.AtSource = fmt.Sprintf("--at %s (now = wall clock at fetch, %s)", at.raw, now.Format(time.RFC3339))
			*at = timeSpec{abs: ingest.FromTime(a), raw: a.Format(time.RFC3339Nano), present: true}
		}
		wStart, wEnd = a.Add(-win/2), a.Add(win/2)
	} else {
		wStart, wEnd = now.Add(-win), now
	}
	base := af.baseline
	if base <= 0 {
		base = max(6*win, 30*time.Minute)
	}
	opt.Start, opt.End, opt.WindowStart, opt.WindowEnd = wStart.Add(-base), wEnd, wStart, wEnd
	opt.Step = af.step
	opt.Progress = progress
	if l.promURL != "" {
		sel, err := live.ParseSelector(l.selector)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		opt.Queries, err = live.Queries(l.packs, sel, live.EffectiveStep(opt.Start, opt.End, opt.Step), l.queries)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	dir := l.saveBundle
	if dir == "" {
		dir, err = os.MkdirTemp(work, "pipeline-analyze-live-*")
		if err != nil {
			return nil, fmt.Errorf("live: %w", err)
		}
		lr.cleanup = func() { os.RemoveAll(dir) }
		lr.tempDir = dir
	}
	t0 := time.Now()
	progress("live: fetching %s..%s (window %s..%s)", opt.Start.Format(time.RFC3339), opt.End.Format(time.RFC3339),
		wStart.Format(time.RFC3339), wEnd.Format(time.RFC3339))
	m, files, err := live.Fetch(ctx, opt)
	if err != nil {
		lr.cleanup()
		return nil, fmt.Errorf("live: %w", err)
	}
	m.Tool = "pipeline-analyze " + version
	m.FetchedAt = now.Format(time.RFC3339)
	if at.present {
		m.At = at.abs.Std().Format(time.RFC3339Nano)
		m.AtChosenBy = spec.AtSource
	}
	if err := (&live.Saver{Track: trackTemp}).Save(dir, m, files); err != nil {
		lr.cleanup()
		return nil, err
	}
	progress("live: fetched %d files in %v into %s", len(files), time.Since(t0).Round(time.Millisecond), dir)
	lr.paths = append(append([]string{}, paths...), dir)
	lr.args = append(rerunArgs(args), dir)
	lr.warnings = noteWarnings(m.Notes)
	lr.addSampling(m)
	return lr, nil
}

func (lr *liveRun) addSampling(m *live.Manifest) {
	if m.Jaeger != nil && m.Jaeger.Sampling != "" {
		lr.sampling = strings.TrimPrefix(lr.sampling+"; "+m.Jaeger.Sampling, "; ")
	}
}

// annotate states the trace sampling of the fetch in the card.
func (lr *liveRun) annotate(c *scorecard.Card) {
	if lr.sampling != "" {
		c.Sampling = strings.TrimPrefix(c.Sampling+"; "+lr.sampling, "; ")
	}
}

// options builds the transport from the flags and the secret files.
func (l *liveFlags) options(af *analysisFlags) (live.Options, error) {
	var opt live.Options
	tr := live.TransportOptions{CAFile: l.caFile, InsecureSkipVerify: l.insecure, Timeout: l.timeout, Retries: l.retries,
		UserAgent: "pipeline-analyze/" + version}
	switch {
	case l.tokenFile != "":
		data, err := os.ReadFile(l.tokenFile)
		if err != nil {
			return opt, fmt.Errorf("--token-file: %w", err)
		}
		tr.BearerToken = strings.TrimSpace(string(data))
		if tr.BearerToken == "" {
			return opt, fmt.Errorf("--token-file %s: empty", l.tokenFile)
		}
	case l.tokenEnv != "":
		tr.BearerToken = strings.TrimSpace(os.Getenv(l.tokenEnv))
	}
	if l.basicAuthFile != "" {
		data, err := os.ReadFile(l.basicAuthFile)
		if err != nil {
			return opt, fmt.Errorf("--basic-auth-file: %w", err)
		}
		user, pass, ok := strings.Cut(strings.TrimSpace(string(data)), ":")
		if !ok || user == "" {
			return opt, fmt.Errorf("--basic-auth-file %s: want one line user:password", l.basicAuthFile)
		}
		tr.BasicUser, tr.BasicPassword = user, pass
		if l.tokenFile == "" {
			tr.BearerToken = "" // an explicit basic auth file beats a token from the environment
		}
	}
	if l.concurrency <= 0 || l.maxTraces <= 0 || l.retries < 0 || l.timeout <= 0 || l.fetchTimeout <= 0 || l.maxResponse <= 0 ||
		l.maxServices <= 0 || l.maxRequests <= 0 || l.maxFetch <= 0 || l.logPage <= 0 || l.maxLogRecords <= 0 {
		return opt, fmt.Errorf("%w: --concurrency, --max-traces, --timeout, --fetch-timeout, --log-page, --max-log-records and the --max-* fetch bounds must be positive, --retries not negative", errUsage)
	}
	if sel := strings.TrimSpace(l.logSelector); sel != "" && !(strings.HasPrefix(sel, "{") && strings.HasSuffix(sel, "}")) {
		return opt, fmt.Errorf("%w: --log-selector %q: want a stream selector {label=\"value\",...}", errUsage, sel)
	}
	opt.LokiURL, opt.VictoriaLogsURL, opt.LogSelector = l.lokiURL, l.vlogsURL, l.logSelector
	opt.LogPage, opt.MaxLogRecords = l.logPage, l.maxLogRecords
	tr.MaxBody = l.maxResponse
	opt.JaegerURL, opt.PrometheusURL = l.jaegerURL, l.promURL
	opt.Transport, opt.MaxTraces, opt.Concurrency = tr, l.maxTraces, l.concurrency
	opt.FetchTimeout, opt.MaxServices, opt.MaxRequests, opt.MaxFetchBytes = l.fetchTimeout, l.maxServices, l.maxRequests, l.maxFetch
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
		if !strings.HasPrefix(a, "--") || !(liveFlagNames[name] || name == "at") {
			out = append(out, a)
			continue
		}
		if !hasValue && name != "list-queries" && name != "insecure-skip-verify" && i+1 < len(args) {
			i++ // the flag's value
		}
	}
	return out
}

// noteWarnings turns the fetch's notes into scorecard warnings.
func noteWarnings(notes []live.Note) []ingest.Warning {
	var ws []ingest.Warning
	for _, n := range notes {
		kind := ingest.ErrPartialInput
		switch n.Kind {
		case live.NoteLimit:
			kind = ingest.ErrLimit
		}
		ws = append(ws, ingest.Warning{Kind: kind, Source: "live " + n.Source, Count: 1, Message: n.Message})
	}
	return ws
}

// liveExit is the exit status of a prepare error: 2 for usage, else 1.
// When no source delivered anything, each source's cause gets its own line
// (one line for all would be cut at maxErrLine), even with --quiet.
func liveExit(stderr io.Writer, err error) int {
	if errors.Is(err, errUsage) {
		return usageError(stderr, err)
	}
	var nf *live.NothingFetchedError
	if errors.As(err, &nf) {
		for _, f := range nf.Failures {
			fmt.Fprintf(stderr, "pipeline-analyze: live: %s\n", oneLine(f))
		}
		fmt.Fprintln(stderr, "pipeline-analyze: live: nothing fetched")
		return 1
	}
	sayErr(stderr, "", err)
	return 1
}
