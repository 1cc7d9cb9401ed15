package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
)

// ManifestKey is the key that marks a manifest; ingest's sniffer skips files
// that carry it.
const ManifestKey = "pipeline_analyze_manifest"

// ManifestName is the manifest's file name inside a saved bundle.
const ManifestName = "manifest.json"

// Note kinds: what the caller turns into scorecard warnings.
const (
	NoteMissing = "missing" // something could not be fetched
	NoteLimit   = "limit"   // a bound was hit (the sample is thinner than the traffic)
)

// Note is one statement about the fetch that belongs in the scorecard.
type Note struct {
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Message string `json:"message"`
}

// Options configure one fetch of every source. Any URL may be empty.
type Options struct {
	JaegerURL, PrometheusURL string
	// JaegerGRPC is Jaeger's gRPC query endpoint (host:port, grpc:// or
	// grpcs://), tried before JaegerURL (the HTTP fallback); a grpc(s)://
	// JaegerURL alone means the same, falling back to Jaeger's HTTP port.
	JaegerGRPC string
	// JaegerGRPCAPI picks the gRPC API: "" (api_v3, else api_v2), "v3"
	// or "v2" (jaeger-idl's span model).
	JaegerGRPCAPI string
	// TempoURL is a Grafana Tempo to fetch traces from (TraceQL search,
	// then traces by ID), beside or instead of Jaeger.
	TempoURL               string
	Transport              TransportOptions
	Start, End             time.Time // the whole range
	WindowStart, WindowEnd time.Time // the incident window
	Step                   time.Duration
	Queries                []Query
	MaxTraces              int
	Concurrency            int
	// FetchTimeout bounds the whole fetch (0 = DefaultFetchTimeout): at the
	// deadline every source returns what arrived, with a note saying what
	// is missing.
	FetchTimeout time.Duration
	// MaxServices and MaxRequests bound the trace fetch (see JaegerOptions);
	// MaxFetchBytes bounds what the fetch keeps in memory over all sources
	// (0 = DefaultMaxFetchBytes).
	MaxServices, MaxRequests int
	MaxFetchBytes            int64
	Progress                 func(format string, args ...any)
	// Logs: Loki and VictoriaLogs, either may be empty. LogSelector is the
	// stream selector of both (empty: the traced services).
	LokiURL, VictoriaLogsURL string
	LogSelector              string
	LogPage, MaxLogRecords   int

	aggregates map[string]float64 // set by Fetch from the metrics (aggregates.go)
	share      time.Duration      // a source's share of FetchTimeout, 0 = all of it (fetchshares.go)
}

// Defaults of the fetch bounds.
const (
	DefaultFetchTimeout        = 90 * time.Second
	DefaultMaxFetchBytes int64 = 512 << 20
)

// File is one fetched file, path relative to the bundle directory.
type File struct {
	Path string
	Data []byte
}

// Manifest records what was fetched, how, and what went wrong; it is saved
// as manifest.json beside the data. It never holds credentials.
type Manifest struct {
	Version      int                 `json:"pipeline_analyze_manifest"`
	Tool         string              `json:"tool,omitempty"`
	FetchedAt    string              `json:"fetched_at,omitempty"` // wall clock, for people; never in the scorecard
	Range        ManifestRange       `json:"range"`
	At           string              `json:"at,omitempty"`           // the incident time the run used, RFC3339
	AtChosenBy   string              `json:"at_chosen_by,omitempty"` // how it was chosen
	Jaeger       *ManifestJaeger     `json:"jaeger,omitempty"`
	Tempo        *ManifestJaeger     `json:"tempo,omitempty"`
	Prometheus   *ManifestPrometheus `json:"prometheus,omitempty"`
	Loki         *ManifestLogs       `json:"loki,omitempty"`
	VictoriaLogs *ManifestLogs       `json:"victorialogs,omitempty"`
	Notes        []Note              `json:"notes"`
	Files        []string            `json:"files"`
}

// ManifestRange is the fetched range and window.
type ManifestRange struct {
	Start       string `json:"start"`
	End         string `json:"end"`
	WindowStart string `json:"window_start"`
	WindowEnd   string `json:"window_end"`
}

// ManifestJaeger describes the trace fetch.
type ManifestJaeger struct {
	URL      string   `json:"url"`
	API      string   `json:"api,omitempty"`
	Services []string `json:"services"`
	Traces   int      `json:"traces"`
	Errors   int      `json:"error_traces"`
	Requests int      `json:"requests"`
	Capped   int      `json:"capped_requests"`
	Sampling string   `json:"sampling,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Fallbacks say which APIs were tried first and why they were left
	// (a refused gRPC endpoint, a server without api_v3).
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// ManifestPrometheus describes the metric fetch.
type ManifestPrometheus struct {
	URL     string          `json:"url"`
	Step    string          `json:"step"`
	Queries []ManifestQuery `json:"queries"`
	Error   string          `json:"error,omitempty"`
}

// ManifestQuery is one query and what it returned.
type ManifestQuery struct {
	Pack   string `json:"pack"`
	Name   string `json:"name"`
	Expr   string `json:"expr"`
	File   string `json:"file,omitempty"`
	Series int    `json:"series"`
	Points int    `json:"points"`
	Error  string `json:"error,omitempty"`
}

// ManifestLogs describes a log fetch.
type ManifestLogs struct {
	URL      string   `json:"url"`
	Query    string   `json:"query"`
	Page     int      `json:"page"`
	Requests int      `json:"requests"`
	Records  int      `json:"records"`
	Files    []string `json:"files"`
	Capped   bool     `json:"capped,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// ErrNothingFetched is returned when no source delivered any data.
var ErrNothingFetched = errors.New("nothing fetched")

// NothingFetchedError is ErrNothingFetched with each source's cause
// (status, timeout, endpoint), one line per source.
type NothingFetchedError struct {
	Failures []string
}

func (e *NothingFetchedError) Error() string {
	return ErrNothingFetched.Error() + ": " + strings.Join(e.Failures, "; ")
}

// Unwrap makes errors.Is(err, ErrNothingFetched) hold.
func (e *NothingFetchedError) Unwrap() error { return ErrNothingFetched }

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Fetch pulls traces, metrics and logs for the range within
// opt.FetchTimeout, each source within its own share of it (see
// fetchSources: a hung source never starves the others). Partial failure becomes notes in the manifest
// (one per problem and source, each with its cause: status, timeout,
// endpoint); it errs (wrapping ErrNothingFetched, naming each source's
// cause) only when no configured source delivered anything, or when ctx
// itself ends.
func Fetch(ctx context.Context, opt Options) (*Manifest, []File, error) {
	progress := opt.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	if opt.FetchTimeout <= 0 {
		opt.FetchTimeout = DefaultFetchTimeout
	}
	if opt.MaxFetchBytes <= 0 {
		opt.MaxFetchBytes = DefaultMaxFetchBytes
	}
	if opt.JaegerURL == "" && opt.JaegerGRPC != "" { // a gRPC endpoint alone: Jaeger is configured
		opt.JaegerURL, opt.JaegerGRPC = opt.JaegerGRPC, ""
		if !IsGRPCURL(opt.JaegerURL) {
			opt.JaegerURL = "grpc://" + opt.JaegerURL
		}
	}
	budget := NewBudget(opt.MaxFetchBytes)
	dctx, cancel := context.WithTimeout(ctx, opt.FetchTimeout)
	defer cancel()
	m := &Manifest{Version: 1, Range: ManifestRange{Start: rfc(opt.Start), End: rfc(opt.End), WindowStart: rfc(opt.WindowStart), WindowEnd: rfc(opt.WindowEnd)}}
	jf, pf, lf := fetchSources(ctx, dctx, opt, m, budget, progress)
	if err := ctx.Err(); err != nil {
		return m, nil, err
	}
	m.Jaeger, m.Tempo, m.Prometheus = jf.jaeger, jf.tempo, pf.prom
	var files []File
	var failures []string
	for _, f := range []sourceFetch{jf, pf, lf} {
		m.Notes = append(m.Notes, f.notes...)
		files = append(files, f.files...)
		if f.failure != "" {
			failures = append(failures, f.failure)
		}
	}
	if len(files) == 0 {
		return m, nil, &NothingFetchedError{Failures: failures}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		m.Files = append(m.Files, f.Path)
	}
	return m, files, nil
}

// sourceFetch is what one source delivered.
type sourceFetch struct {
	jaeger  *ManifestJaeger
	tempo   *ManifestJaeger
	prom    *ManifestPrometheus
	results []QueryResult // Prometheus' answers (for AggregateScores)
	notes   []Note
	files   []File
	failure string // why it delivered nothing, "" when it delivered
}

// aggregatesSummary says which services the request aggregates showed
// moving (at most five named, highest deviation first).
func aggregatesSummary(scores map[string]float64) string {
	var moved []string
	for s, z := range scores {
		if z >= AggregateMinZ {
			moved = append(moved, s)
		}
	}
	sort.Slice(moved, func(i, j int) bool {
		if scores[moved[i]] != scores[moved[j]] {
			return scores[moved[i]] > scores[moved[j]]
		}
		return moved[i] < moved[j]
	})
	msg := fmt.Sprintf("request aggregates: %d of %d services moved (≥ %g robust scales)", len(moved), len(scores), AggregateMinZ)
	if len(moved) > 0 {
		named := moved[:min(len(moved), 5)]
		parts := make([]string, len(named))
		for i, s := range named {
			parts[i] = fmt.Sprintf("%s %.1f", s, scores[s])
		}
		msg += ": " + strings.Join(parts, ", ")
		if len(moved) > 5 {
			msg += ", …"
		}
	}
	return msg + "; the window's slow and error traces are searched only where they moved"
}

// deadlineNote says that the fetch deadline cut a source short.
func deadlineNote(opt Options, source, what string) Note {
	return Note{NoteMissing, source, fmt.Sprintf("%s was reached: %s", deadlineText(opt), what)}
}

// fetchTraceSource fetches the traces of one trace source: src "jaeger"
// (opt.JaegerURL, opt.JaegerGRPC) or "tempo" (opt.TempoURL).
func fetchTraceSource(ctx context.Context, opt Options, src string, budget *Budget, progress func(string, ...any)) sourceFetch {
	var f sourceFetch
	mj := &ManifestJaeger{URL: redactRaw(opt.JaegerURL)}
	f.jaeger = mj
	jopt := JaegerOptions{Start: opt.Start, End: opt.End, WindowStart: opt.WindowStart, WindowEnd: opt.WindowEnd,
		MaxTraces: opt.MaxTraces, Concurrency: opt.Concurrency, MaxServices: opt.MaxServices, MaxRequests: opt.MaxRequests,
		Budget: budget, Aggregates: opt.aggregates, Progress: progress}
	var (
		c   *Client
		res *JaegerResult
		err error
	)
	if src == "tempo" {
		f.jaeger, f.tempo = nil, mj
		mj.URL = redactRaw(opt.TempoURL)
		if c, err = NewClient(opt.TempoURL, opt.Transport); err == nil {
			mj.URL = c.URL()
			if res, err = FetchTempo(ctx, c, jopt, 0); err != nil {
				err = errors.New(c.Redact(err.Error()))
			}
		}
	} else {
		c, res, err = fetchJaegerAPIs(ctx, opt, jopt, mj)
	}
	if err != nil {
		if ctx.Err() != nil && !strings.Contains(err.Error(), "deadline") {
			err = fmt.Errorf("%v (%s was reached)", err, deadlineText(opt))
		}
		mj.Error = err.Error()
		f.failure = err.Error()
		if !strings.HasPrefix(f.failure, src) {
			f.failure = src + ": " + f.failure
		}
		f.notes = append(f.notes, Note{NoteMissing, src, fmt.Sprintf("no traces: %v", err)})
		return f
	}
	mj.API, mj.Services, mj.Traces, mj.Errors = res.API, res.Services, res.Traces, res.Errors
	mj.Fallbacks = res.Fallbacks
	mj.Requests, mj.Capped, mj.Sampling = res.Requests, res.Capped, res.Sampling
	if res.Listed > len(res.Services) {
		f.notes = append(f.notes, Note{NoteLimit, src, fmt.Sprintf("the server listed %d services; sampled the first %d by name (--max-services)", res.Listed, len(res.Services))})
	}
	if res.Capped > 0 {
		f.notes = append(f.notes, Note{NoteLimit, src, fmt.Sprintf(
			"%d of %d trace searches returned their limit: the traces are a sample, thinner than the traffic (see sampling)", res.Capped, res.Requests)})
	}
	if n := len(res.Missing); n > 0 {
		f.notes = append(f.notes, Note{NoteMissing, src, c.Redact(fmt.Sprintf("%d trace searches failed; first: %s", n, res.Missing[0]))})
	}
	switch {
	case res.Stopped != nil:
		f.notes = append(f.notes, deadlineNote(opt, src, fmt.Sprintf("kept %d traces from %d searches; %d requests not run", res.Traces, res.Requests, res.Skipped)))
	case res.Skipped > 0:
		bound := opt.MaxRequests
		if bound <= 0 {
			bound = DefaultMaxRequests
		}
		f.notes = append(f.notes, Note{NoteLimit, src, fmt.Sprintf("%d requests not run: the request bound (%d, --max-requests) was reached", res.Skipped, bound)})
	}
	if res.Partial > 0 {
		f.notes = append(f.notes, Note{NoteMissing, src, c.Redact(fmt.Sprintf("%d answers were partial; first: %s", res.Partial, res.FirstPartial))})
	}
	if res.Dropped > 0 {
		f.notes = append(f.notes, Note{NoteLimit, src, fmt.Sprintf("%d traces not kept: the fetch's memory budget (%d MiB, --max-fetch-size) was spent", res.Dropped, opt.MaxFetchBytes>>20)})
	}
	if res.Traces > 0 {
		f.files = append(f.files, File{Path: res.FileName, Data: res.Body})
		return f
	}
	why := "no traces in the range"
	if len(res.Missing) > 0 {
		why = c.Redact(fmt.Sprintf("no traces: %d searches failed; first: %s", len(res.Missing), res.Missing[0]))
	} else if res.Stopped != nil {
		why = "no traces before " + deadlineText(opt)
	}
	f.failure = src + " " + mj.URL + ": " + why
	f.notes = append(f.notes, Note{NoteMissing, src, why})
	return f
}

func fetchPromSource(ctx context.Context, opt Options, budget *Budget, progress func(string, ...any)) sourceFetch {
	var f sourceFetch
	step := EffectiveStep(opt.Start, opt.End, opt.Step)
	mp := &ManifestPrometheus{URL: redactRaw(opt.PrometheusURL), Step: step.String()}
	f.prom = mp
	c, err := NewClient(opt.PrometheusURL, opt.Transport)
	if err != nil {
		mp.Error = err.Error()
		f.failure = "prometheus: " + err.Error()
		f.notes = append(f.notes, Note{NoteMissing, "prometheus", fmt.Sprintf("no metrics: %v", err)})
		return f
	}
	mp.URL = c.URL()
	progress("prometheus: %d queries over %s..%s, step %v", len(opt.Queries), rfc(opt.Start), rfc(opt.End), step)
	rs, _ := FetchPrometheus(ctx, c, opt.Queries, PromOptions{Start: opt.Start, End: opt.End, Step: step, Concurrency: opt.Concurrency, Budget: budget, Progress: progress})
	f.results = rs
	var failed, empty []string
	notRun := 0
	got := 0
	for _, r := range rs {
		r.Err = c.Redact(r.Err)
		mq := ManifestQuery{Pack: r.Pack, Name: r.Name, Expr: r.Expr, Series: r.Series, Points: r.Points, Error: r.Err}
		switch {
		case strings.HasPrefix(r.Err, "not run:"):
			notRun++
		case r.Err != "":
			failed = append(failed, r.Name+" ("+r.Err+")")
		case r.Series == 0:
			empty = append(empty, r.Name)
		default:
			mq.File = "prometheus/qr_" + r.Name + ".json"
			f.files = append(f.files, File{Path: mq.File, Data: r.Body})
			got++
		}
		mp.Queries = append(mp.Queries, mq)
	}
	if len(failed) > 0 {
		f.notes = append(f.notes, Note{NoteMissing, "prometheus", fmt.Sprintf("%d of %d queries failed: %s", len(failed), len(rs), strings.Join(failed, "; "))})
	}
	if notRun > 0 {
		f.notes = append(f.notes, deadlineNote(opt, "prometheus", fmt.Sprintf("%d of %d queries not run or not finished", notRun, len(rs))))
	}
	progress("prometheus: %d queries with data, %d empty, %d failed, %d not run", got, len(empty), len(failed), notRun)
	if got == 0 {
		why := fmt.Sprintf("no query returned data (%d failed, %d empty, %d not run)", len(failed), len(empty), notRun)
		switch {
		case len(failed) > 0:
			why += "; first: " + failed[0]
		case notRun > 0:
			why += "; " + deadlineText(opt) + " was reached"
		}
		f.failure = "prometheus " + mp.URL + ": " + why
		if len(failed) < len(rs) {
			f.notes = append(f.notes, Note{NoteMissing, "prometheus", "no query returned data in the range"})
		}
	}
	return f
}

// Save writes the files and the manifest into dir, as Saver.Save does with
// no tracking.
func Save(dir string, m *Manifest, files []File) error {
	return (&Saver{}).Save(dir, m, files)
}

// Saver writes saved bundles.
type Saver struct {
	// Track, when set, is told the temporary directory a save writes into
	// (so that a signal handler can remove it); the function it returns is
	// called once the directory is renamed into place or removed.
	Track func(path string) (untrack func())
}

// CheckBundleDir reports whether dir may receive a saved bundle: it must
// not be a symlink (never followed) and, when it exists, be a directory that
// is empty or holds an earlier saved bundle (which the save replaces as a
// whole, so no leftover file of it is analysed with the new one).
func CheckBundleDir(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("save bundle: %w", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("save bundle %s: is a symlink; refusing to follow it", dir)
	case !st.IsDir():
		return fmt.Errorf("save bundle %s: exists and is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, ok, _ := LoadManifest(dir); ok {
		if lst, err := os.Lstat(filepath.Join(dir, ManifestName)); err == nil && lst.Mode().IsRegular() {
			return nil
		}
	}
	return fmt.Errorf("save bundle %s: the directory is not empty and is not a saved bundle (no %s); refusing to write into it", dir, ManifestName)
}

// Save writes the files and the manifest as a new directory dir,
// atomically: everything goes into a fresh temporary directory beside dir
// (created by Save, so nothing in it can be a planted symlink; files are
// created exclusively and synced), which is then renamed to dir. An earlier
// bundle in dir is replaced as a whole; any other non-empty dir, or a
// symlink, is refused (CheckBundleDir).
func (sv *Saver) Save(dir string, m *Manifest, files []File) error {
	if err := CheckBundleDir(dir); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	untrack := func() {}
	if sv.Track != nil {
		untrack = sv.Track(tmp)
	}
	defer untrack()
	fail := func(err error) error {
		os.RemoveAll(tmp)
		return fmt.Errorf("save bundle: %w", err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fail(fmt.Errorf("manifest: %w", err))
	}
	all := append(append([]File(nil), files...), File{Path: ManifestName, Data: append(data, '\n')})
	for _, f := range all {
		rel := filepath.FromSlash(f.Path)
		if !filepath.IsLocal(rel) {
			return fail(fmt.Errorf("file name %q leaves the bundle", f.Path))
		}
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fail(err)
		}
		if err := writeNew(p, f.Data); err != nil {
			return fail(err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	var old string
	if _, err := os.Lstat(dir); err == nil { // an earlier bundle, or an empty dir: move it aside
		if old, err = os.MkdirTemp(parent, "."+base+".old-*"); err != nil {
			return fail(err)
		}
		if err := os.Rename(dir, filepath.Join(old, base)); err != nil {
			os.Remove(old)
			return fail(err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(filepath.Join(old, base), dir) // put the earlier bundle back
			os.Remove(old)
		}
		return fail(err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	if d, err := os.Open(parent); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeNew creates p (which must not exist, and is never followed as a
// symlink), writes data and syncs it.
func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadManifest reads dir/manifest.json when dir is a saved bundle; ok is
// false (and err nil) when dir is not one.
func LoadManifest(dir string) (m *Manifest, ok bool, err error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, false, nil
	}
	data, err := boundedfile.ReadFile(filepath.Join(dir, ManifestName), maxManifestBytes, "")
	if err != nil {
		return nil, false, nil
	}
	if !strings.Contains(string(data[:min(len(data), 4096)]), `"`+ManifestKey+`"`) {
		return nil, false, nil
	}
	m = new(Manifest)
	if err := json.Unmarshal(data, m); err != nil {
		return nil, false, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	return m, true, nil
}

// fetchLogSources pulls the configured log sources (Loki, VictoriaLogs) one
// after the other, recording each in the manifest.
func fetchLogSources(ctx context.Context, opt Options, m *Manifest, services []string, progress func(string, ...any)) sourceFetch {
	type logSource struct {
		name, url string
		dst       **ManifestLogs
		fetch     func(context.Context, *Client, LogOptions) (*LogResult, error)
		got       sourceFetch
	}
	srcs := []*logSource{{name: "loki", url: opt.LokiURL, dst: &m.Loki, fetch: FetchLoki},
		{name: "victorialogs", url: opt.VictoriaLogsURL, dst: &m.VictoriaLogs, fetch: FetchVictoriaLogs}}
	var wg sync.WaitGroup
	for _, src := range srcs {
		if src.url == "" {
			continue
		}
		wg.Add(1)
		go func() { // side by side: a hung source never holds back the other
			defer wg.Done()
			src.got = fetchLogSource(ctx, opt, src.name, src.url, src.dst, src.fetch, services, progress)
		}()
	}
	wg.Wait()
	var f sourceFetch
	var failures []string
	for _, src := range srcs { // in a fixed order: the manifest is deterministic
		f.files = append(f.files, src.got.files...)
		f.notes = append(f.notes, src.got.notes...)
		if src.got.failure != "" {
			failures = append(failures, src.got.failure)
		}
	}
	if len(f.files) == 0 && len(failures) > 0 {
		f.failure = strings.Join(failures, "; ")
	}
	return f
}

// fetchLogSource pages one log source into *dst (its manifest entry) and
// says what it delivered; failure is set when it failed or found nothing.
func fetchLogSource(ctx context.Context, opt Options, name, u string, dst **ManifestLogs,
	fetch func(context.Context, *Client, LogOptions) (*LogResult, error), services []string, progress func(string, ...any)) sourceFetch {
	var f sourceFetch
	ml := &ManifestLogs{URL: redactRaw(u)}
	*dst = ml
	lo := LogOptions{Start: opt.Start, End: opt.End, Selector: opt.LogSelector, Services: services, Page: opt.LogPage, Max: opt.MaxLogRecords, Progress: progress}
	c, err := NewClient(u, opt.Transport)
	var res *LogResult
	if err == nil {
		ml.URL = c.URL()
		res, err = fetch(ctx, c, lo)
	}
	if res != nil {
		ml.Query, ml.Requests, ml.Records, ml.Capped = res.Query, res.Requests, res.Records, res.Capped
		ml.Page = lo.Page
		if ml.Page <= 0 {
			ml.Page = DefaultLogPage
		}
		for _, file := range res.Files {
			ml.Files = append(ml.Files, file.Path)
		}
		f.files = append(f.files, res.Files...)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		ml.Error = err.Error()
		f.failure = name + ": " + err.Error()
		f.notes = append(f.notes, deadlineNote(opt, name, "no logs"))
	case err != nil:
		ml.Error = err.Error()
		f.failure = name + ": " + err.Error()
		f.notes = append(f.notes, Note{NoteMissing, name, fmt.Sprintf("no logs: %v", err)})
	case res.Err != "":
		ml.Error = res.Err
		f.notes = append(f.notes, Note{NoteMissing, name, fmt.Sprintf("log paging stopped after %d records: %s", res.Records, res.Err)})
	case res.Records == 0:
		f.failure = name + ": no log records in the range"
		f.notes = append(f.notes, Note{NoteMissing, name, "no log records in the range for " + res.Query})
	}
	if res != nil && res.Capped {
		f.notes = append(f.notes, Note{NoteLimit, name, fmt.Sprintf("stopped at %d log records (--max-log-records): the logs after %s's last page are missing", res.Records, name)})
	}
	if res != nil {
		progress("%s: %d records in %d requests (%s)", name, res.Records, res.Requests, res.Query)
	}
	return f
}
