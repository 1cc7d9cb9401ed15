package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
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
	Transport                TransportOptions
	Start, End               time.Time // the whole range
	WindowStart, WindowEnd   time.Time // the incident window
	Step                     time.Duration
	Queries                  []Query
	MaxTraces                int
	Concurrency              int
	Progress                 func(format string, args ...any)
	// Logs: Loki and VictoriaLogs, either may be empty. LogSelector is the
	// stream selector of both (empty: the traced services).
	LokiURL, VictoriaLogsURL string
	LogSelector              string
	LogPage, MaxLogRecords   int
}

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

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Fetch pulls traces, metrics and logs for the range (logs after traces:
// their default selector is the traced services). Partial failure becomes
// notes in the manifest; it errs (wrapping ErrNothingFetched) only when no
// configured source delivered anything, or when the context ends.
func Fetch(ctx context.Context, opt Options) (*Manifest, []File, error) {
	progress := opt.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	m := &Manifest{Version: 1, Range: ManifestRange{Start: rfc(opt.Start), End: rfc(opt.End), WindowStart: rfc(opt.WindowStart), WindowEnd: rfc(opt.WindowEnd)}}
	var files []File
	var failures []string
	var services []string // the traced services, the logs' default selector
	if opt.JaegerURL != "" {
		mj := &ManifestJaeger{URL: redactRaw(opt.JaegerURL)}
		m.Jaeger = mj
		c, err := NewClient(opt.JaegerURL, opt.Transport)
		var res *JaegerResult
		if err == nil {
			mj.URL = c.URL()
			res, err = FetchJaeger(ctx, c, JaegerOptions{Start: opt.Start, End: opt.End, WindowStart: opt.WindowStart, WindowEnd: opt.WindowEnd,
				MaxTraces: opt.MaxTraces, Concurrency: opt.Concurrency, Progress: progress})
		}
		switch {
		case err != nil:
			mj.Error = err.Error()
			failures = append(failures, "jaeger: "+err.Error())
			m.Notes = append(m.Notes, Note{NoteMissing, "jaeger", fmt.Sprintf("no traces: %v", err)})
		default:
			mj.API, mj.Services, mj.Traces, mj.Errors = res.API, res.Services, res.Traces, res.Errors
			services = res.Services
			mj.Requests, mj.Capped, mj.Sampling = res.Requests, res.Capped, res.Sampling
			if res.Capped > 0 {
				m.Notes = append(m.Notes, Note{NoteLimit, "jaeger", fmt.Sprintf(
					"%d of %d trace searches returned their limit: the traces are a sample, thinner than the traffic (see sampling)", res.Capped, res.Requests)})
			}
			if n := len(res.Missing); n > 0 {
				m.Notes = append(m.Notes, Note{NoteMissing, "jaeger", fmt.Sprintf("%d trace searches failed; first: %s", n, res.Missing[0])})
			}
			if res.Traces > 0 {
				files = append(files, File{Path: res.FileName, Data: res.Body})
			} else {
				failures = append(failures, "jaeger: no traces in the range")
				m.Notes = append(m.Notes, Note{NoteMissing, "jaeger", "no traces in the range"})
			}
		}
	}
	if opt.PrometheusURL != "" {
		step := EffectiveStep(opt.Start, opt.End, opt.Step)
		mp := &ManifestPrometheus{URL: redactRaw(opt.PrometheusURL), Step: step.String()}
		m.Prometheus = mp
		c, err := NewClient(opt.PrometheusURL, opt.Transport)
		var rs []QueryResult
		if err == nil {
			mp.URL = c.URL()
			progress("prometheus: %d queries over %s..%s, step %v", len(opt.Queries), rfc(opt.Start), rfc(opt.End), step)
			rs, err = FetchPrometheus(ctx, c, opt.Queries, PromOptions{Start: opt.Start, End: opt.End, Step: step, Concurrency: opt.Concurrency, Progress: progress})
		}
		if err != nil {
			mp.Error = err.Error()
			failures = append(failures, "prometheus: "+err.Error())
			m.Notes = append(m.Notes, Note{NoteMissing, "prometheus", fmt.Sprintf("no metrics: %v", err)})
		} else {
			var failed, empty []string
			got := 0
			for _, r := range rs {
				mq := ManifestQuery{Pack: r.Pack, Name: r.Name, Expr: r.Expr, Series: r.Series, Points: r.Points, Error: r.Err}
				switch {
				case r.Err != "":
					failed = append(failed, r.Name+" ("+r.Err+")")
				case r.Series == 0:
					empty = append(empty, r.Name)
				default:
					mq.File = "prometheus/qr_" + r.Name + ".json"
					files = append(files, File{Path: mq.File, Data: r.Body})
					got++
				}
				mp.Queries = append(mp.Queries, mq)
			}
			if len(failed) > 0 {
				m.Notes = append(m.Notes, Note{NoteMissing, "prometheus", fmt.Sprintf("%d of %d queries failed: %s", len(failed), len(rs), strings.Join(failed, "; "))})
			}
			progress("prometheus: %d queries with data, %d empty, %d failed", got, len(empty), len(failed))
			if got == 0 {
				failures = append(failures, fmt.Sprintf("prometheus: no query returned data (%d failed, %d empty)", len(failed), len(empty)))
				if len(failed) < len(rs) {
					m.Notes = append(m.Notes, Note{NoteMissing, "prometheus", "no query returned data in the range"})
				}
			}
		}
	}
	for _, src := range []struct {
		name, url string
		dst       **ManifestLogs
		fetch     func(context.Context, *Client, LogOptions) (*LogResult, error)
	}{{"loki", opt.LokiURL, &m.Loki, FetchLoki}, {"victorialogs", opt.VictoriaLogsURL, &m.VictoriaLogs, FetchVictoriaLogs}} {
		if src.url == "" {
			continue
		}
		ml := &ManifestLogs{URL: redactRaw(src.url)}
		*src.dst = ml
		lo := LogOptions{Start: opt.Start, End: opt.End, Selector: opt.LogSelector, Services: services, Page: opt.LogPage, Max: opt.MaxLogRecords, Progress: progress}
		c, err := NewClient(src.url, opt.Transport)
		var res *LogResult
		if err == nil {
			ml.URL = c.URL()
			res, err = src.fetch(ctx, c, lo)
		}
		if res != nil {
			ml.Query, ml.Requests, ml.Records, ml.Capped = res.Query, res.Requests, res.Records, res.Capped
			ml.Page = lo.Page
			if ml.Page <= 0 {
				ml.Page = DefaultLogPage
			}
			for _, f := range res.Files {
				ml.Files = append(ml.Files, f.Path)
			}
			files = append(files, res.Files...)
		}
		switch {
		case err != nil:
			ml.Error = err.Error()
			failures = append(failures, src.name+": "+err.Error())
			m.Notes = append(m.Notes, Note{NoteMissing, src.name, fmt.Sprintf("no logs: %v", err)})
		case res.Err != "":
			ml.Error = res.Err
			m.Notes = append(m.Notes, Note{NoteMissing, src.name, fmt.Sprintf("log paging stopped after %d records: %s", res.Records, res.Err)})
		case res.Records == 0:
			failures = append(failures, src.name+": no log records in the range")
			m.Notes = append(m.Notes, Note{NoteMissing, src.name, "no log records in the range for " + res.Query})
		}
		if res != nil && res.Capped {
			m.Notes = append(m.Notes, Note{NoteLimit, src.name, fmt.Sprintf("stopped at %d log records (--max-log-records): the logs after %s's last page are missing", res.Records, src.name)})
		}
		if res != nil {
			progress("%s: %d records in %d requests (%s)", src.name, res.Records, res.Requests, res.Query)
		}
	}
	if err := ctx.Err(); err != nil {
		return m, nil, err
	}
	if len(files) == 0 {
		return m, nil, fmt.Errorf("%w: %s", ErrNothingFetched, strings.Join(failures, "; "))
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		m.Files = append(m.Files, f.Path)
	}
	return m, files, nil
}

// Save writes the files and the manifest into dir (created if needed).
func Save(dir string, m *Manifest, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("save bundle: %w", err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("save bundle: %w", err)
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("save bundle: manifest: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save bundle: %w", err)
	}
	return nil
}

// LoadManifest reads dir/manifest.json when dir is a saved bundle; ok is
// false (and err nil) when dir is not one.
func LoadManifest(dir string) (m *Manifest, ok bool, err error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, false, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
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
