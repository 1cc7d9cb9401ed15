package bench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Size is one benchmark bundle: a simulated incident with a given number of
// spans (spread over TraceFiles uncompressed Jaeger JSON files) and about
// Series Prometheus series at 15 s over Duration.
type Size struct {
	Name       string
	Spans      int // target span count (the simulator lands within a few %)
	Series     int // Prometheus series in the bundle (exact)
	TraceFiles int
	Fixed      bool // the incident's fixed follow-up (fixtures.Spec.Fixed), for the compare benchmark
	// Copies > 1 overlays that many copies of the simulated traces (each
	// copy's trace IDs rewritten, its times kept: Copies times the
	// traffic), simulating Spans/Copies spans once: how the ten-million-span
	// bundle is made without simulating ten million spans.
	Copies int
}

// CacheVersion names the cache directory of generated bundles; bump it when
// the simulator or Generate changes what a size produces.
const CacheVersion = "v2"

// Sizes are the scales of the performance table (issue 8).
var Sizes = []Size{
	{Name: "10k-300", Spans: 10_000, Series: 300, TraceFiles: 1},
	{Name: "50k-300", Spans: 50_000, Series: 300, TraceFiles: 1},
	{Name: "100k-300", Spans: 100_000, Series: 300, TraceFiles: 2},
	{Name: "100k-3000", Spans: 100_000, Series: 3000, TraceFiles: 2},
	{Name: "1M-3000", Spans: 1_000_000, Series: 3000, TraceFiles: 4},
}

// Huge are the sizes beyond one machine's memory as spans (issue 44: ten
// million spans streamed), generated only when named (benchgen 10M).
var Huge = []Size{
	{Name: "10M", Spans: 10_000_000, Series: 3000, TraceFiles: 10, Copies: 10},
}

// Simulation constants: one topology (Scale 30: ~16 vLLM replicas) for every
// size; the span count is set by the head-sampling rate alone, so the
// table's rows differ only in spans (and, per column, in series).
const (
	simScale    = 30
	simDuration = 45 * time.Minute
	simFault    = "gpu_bandwidth_contention"
	simSeed     = 8
	// spansPerRate is the span count of simScale × simDuration at sample
	// rate 1 (measured: 0.02 gives about 100k spans).
	spansPerRate = 5_000_000
	// sloFile is kept whatever the series budget: the alert is evaluated on it.
	sloFile = "metrics_llm_gateway_time_to_first_token_seconds_p99.json"
)

// Generate writes the bundle of size sz into dir (created; must be empty or
// absent): the simulator's incident with its traces split into
// sz.TraceFiles plain-JSON files (traces-NN.json, {"data":[...]} each) and its
// metric files trimmed or padded to exactly sz.Series series. The output is
// a pure function of sz.
func Generate(dir string, sz Size) error {
	rate := float64(sz.Spans/max(1, sz.Copies)) / spansPerRate
	spec := fixtures.Spec{Fault: simFault, Seed: simSeed, Scale: simScale, Duration: simDuration, SampleRate: rate, Fixed: sz.Fixed}
	if _, err := fixtures.Write(dir, spec); err != nil {
		return fmt.Errorf("bench generate %s: %w", sz.Name, err)
	}
	gz := filepath.Join(dir, fixtures.FileTraces)
	if err := splitTraces(gz, dir, max(1, sz.TraceFiles), max(1, sz.Copies)); err != nil {
		return fmt.Errorf("bench generate %s: %w", sz.Name, err)
	}
	if err := os.Remove(gz); err != nil {
		return fmt.Errorf("bench generate %s: %w", sz.Name, err)
	}
	if err := fitSeries(dir, sz.Series); err != nil {
		return fmt.Errorf("bench generate %s: %w", sz.Name, err)
	}
	return nil
}

// splitTraces rewrites the simulator's gzipped {"data":[...]} file (one trace
// per line) as n plain envelopes of consecutive traces, the traces repeated
// copies times (copy c's trace IDs with their first byte XORed with c).
func splitTraces(gz, dir string, n, copies int) error {
	f, err := os.Open(gz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", gz, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var lines [][]byte
	for sc.Scan() {
		l := bytes.TrimPrefix(bytes.TrimSuffix(sc.Bytes(), []byte(",")), []byte(","))
		if len(l) == 0 || l[0] != '{' || bytes.HasPrefix(l, []byte(`{"data":[`)) {
			continue
		}
		lines = append(lines, bytes.Clone(l))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", gz, err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no traces", gz)
	}
	total := len(lines) * copies
	per := (total + n - 1) / n
	for i := 0; i < n; i++ {
		lo, hi := i*per, min((i+1)*per, total)
		if lo >= hi {
			break
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("traces-%02d.json", i)))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 4<<20)
		w.WriteString(`{"data":[`)
		for k := lo; k < hi; k++ {
			if k > lo {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
			if c := k / len(lines); c > 0 {
				w.Write(copyTraceIDs(lines[k%len(lines)], byte(c)))
			} else {
				w.Write(lines[k])
			}
		}
		w.WriteString("\n],\"total\":0,\"limit\":0,\"offset\":0,\"errors\":null}\n")
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// copyTraceIDs returns line with the first byte of every "traceID" value
// XORed with c (a copy's own trace IDs).
func copyTraceIDs(line []byte, c byte) []byte {
	out := bytes.Clone(line)
	key := []byte(`"traceID":"`)
	for i := 0; ; {
		j := bytes.Index(out[i:], key)
		if j < 0 {
			return out
		}
		at := i + j + len(key)
		if at+2 <= len(out) {
			var b [1]byte
			if _, err := hex.Decode(b[:], out[at:at+2]); err == nil {
				hex.Encode(out[at:at+2], []byte{b[0] ^ c})
			}
		}
		i = at
	}
}

// fitSeries drops whole metric files (last in name order first, never the
// SLO file) until at most want series remain, then pads with synthetic
// per-pod metrics up to exactly want.
func fitSeries(dir string, want int) error {
	files, err := filepath.Glob(filepath.Join(dir, "metrics_*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	counts := map[string]int{}
	total := 0

	var podSets []ingest.Labels
	for _, f := range files {
		part, err := ingest.ReadFile(f, nil, ingest.Limits{})
		if err != nil {
			return err
		}
		counts[f] = len(part.Series)
		total += len(part.Series)
		if filepath.Base(f) == "metrics_container_cpu_usage_seconds_rate.json" {
			for _, s := range part.Series {
				podSets = append(podSets, s.Labels)
			}
		}
	}

	for i := len(files) - 1; i >= 0 && total > want; i-- {
		if filepath.Base(files[i]) == sloFile {
			continue
		}
		if err := os.Remove(files[i]); err != nil {
			return err
		}
		total -= counts[files[i]]
	}
	if total > want {
		return fmt.Errorf("cannot trim to %d series (have %d)", want, total)
	}
	if total == want {
		return nil
	}
	if len(podSets) == 0 {
		return errors.New("no pod label sets to pad the series with")
	}
	return writeExtra(dir, want-total, podSets)
}

// writeExtra writes n synthetic series (random walks, one metric name per
// len(podSets) series) into metrics_bench_extra.json, labelled like the
// simulator's pods so they join the graph as pod signals.
func writeExtra(dir string, n int, podSets []ingest.Labels) error {
	base := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC).Unix()
	// Align with the simulator's own clock: read it from label.json's start.
	if b, err := os.ReadFile(filepath.Join(dir, fixtures.FileLabel)); err == nil {
		if i := bytes.Index(b, []byte(`"start": "`)); i >= 0 {
			rest := b[i+len(`"start": "`):]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				if t, err := time.Parse(time.RFC3339, string(rest[:j])); err == nil {
					base = t.Unix()
				}
			}
		}
	}
	points := int(simDuration / (15 * time.Second))
	r := rand.New(rand.NewPCG(simSeed, uint64(n)))
	var w strings.Builder
	w.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		ls := podSets[i%len(podSets)]
		w.WriteString(`{"metric":{"__name__":`)
		w.WriteString(strconv.Quote(fmt.Sprintf("bench_extra_%03d", i/len(podSets))))
		for _, l := range ls {
			w.WriteString("," + strconv.Quote(l.Name) + ":" + strconv.Quote(l.Value))
		}
		w.WriteString(`},"values":[`)
		v := 1 + r.Float64()
		for p := 0; p < points; p++ {
			if p > 0 {
				w.WriteByte(',')
			}
			v = math.Max(0, v+0.02*r.NormFloat64())
			fmt.Fprintf(&w, `[%d,"%.4f"]`, base+int64((p+1)*15), v)
		}
		w.WriteString("]}")
	}
	w.WriteString("]}}\n")
	return os.WriteFile(filepath.Join(dir, "metrics_bench_extra.json"), []byte(w.String()), 0o644)
}

// Cached returns the directory of size sz under root, generating it first
// when it is missing or incomplete (a ".complete" marker is written last).
func Cached(root string, sz Size) (string, error) {
	dir := filepath.Join(root, sz.Name)
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := Generate(dir, sz); err != nil {
		return "", err
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// TraceFiles lists the plain trace files of a generated bundle.
func TraceFiles(dir string) ([]string, error) {
	fs, err := filepath.Glob(filepath.Join(dir, "traces-*.json"))
	sort.Strings(fs)
	return fs, err
}
