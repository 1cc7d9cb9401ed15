package bench

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// Wide is a bundle for the width of a system (issue 44): a simulated
// incident beside one Prometheus query_range file of Replicas series whose
// pods are replicas of one workload by their names (a batch system's dump,
// a DaemonSet across a large cluster), spread over Nodes nodes. Each
// replica's series has one point (Points 1: a dump of one scrape) or a
// point every Step over the whole incident (Points 0: a full series).
type Wide struct {
	Name     string
	Replicas int
	Nodes    int
	Points   int           // points per series; 0: the whole incident at Step
	Step     time.Duration // the full series' step (0: 60 s)
}

// Wides are the width benchmarks: one-point replicas at 1k/10k/100k (the
// shape of the held-out case that stalled) and full series at 1k/10k/100k
// (every replica reporting through the incident, so that every replica is
// contrasted with its peers).
var Wides = []Wide{
	{Name: "wide-1k", Replicas: 1_000, Nodes: 50, Points: 1},
	{Name: "wide-10k", Replicas: 10_000, Nodes: 500, Points: 1},
	{Name: "wide-100k", Replicas: 100_000, Nodes: 5_000, Points: 1},
	{Name: "wide-full-1k", Replicas: 1_000, Nodes: 50},
	{Name: "wide-full-10k", Replicas: 10_000, Nodes: 500},
	{Name: "wide-full-100k", Replicas: 100_000, Nodes: 5_000},
}

// wideSpec is the incident the wide file sits beside (small: the width
// is what is measured).
var wideSpec = fixtures.Spec{Fault: "tool_api_slow", Seed: 7, Duration: 30 * time.Minute, SampleRate: 0.05}

// WideFile is the name of the wide Prometheus file in a Wide bundle.
const WideFile = "metrics_wide_workload.json"

// GenerateWide writes the bundle w into dir (created; must be empty or
// absent): the incident of wideSpec and WideFile. The pods are
// batch-worker-7f9c6d5b8-XXXXX (one ReplicaSet of one workload), their
// series container_memory_working_set_bytes with namespace, pod, container
// and node labels; a one-point series' point lies at a replica's own
// minute of the incident. The output is a pure function of w.
func GenerateWide(dir string, w Wide) error {
	label, err := fixtures.Write(dir, wideSpec)
	if err != nil {
		return fmt.Errorf("bench generate %s: %w", w.Name, err)
	}
	start, err := time.Parse(time.RFC3339, label.Start)
	if err != nil {
		return fmt.Errorf("bench generate %s: start: %w", w.Name, err)
	}
	end, err := time.Parse(time.RFC3339, label.End)
	if err != nil {
		return fmt.Errorf("bench generate %s: end: %w", w.Name, err)
	}
	step := w.Step
	if step <= 0 {
		step = time.Minute
	}
	f, err := os.Create(filepath.Join(dir, WideFile))
	if err != nil {
		return fmt.Errorf("bench generate %s: %w", w.Name, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(44, uint64(w.Replicas)))
	const alpha = "bcdfghjklmnpqrstvwxz2456789"
	seen := map[string]bool{}
	bw.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	minutes := int(end.Sub(start) / time.Minute)
	buf := make([]byte, 0, 256)
	for i := range w.Replicas {
		var suf [5]byte
		for {
			for k := range suf {
				suf[k] = alpha[rng.IntN(len(alpha))]
			}
			if !seen[string(suf[:])] {
				seen[string(suf[:])] = true
				break
			}
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"metric":{"__name__":"container_memory_working_set_bytes","namespace":"batch","pod":"batch-worker-7f9c6d5b8-%s","container":"worker","node":"batch-node-%d"},"values":[`,
			suf[:], i%max(1, w.Nodes))
		level := 1e8 + 1e7*rng.Float64()
		if w.Points == 1 {
			t := start.Add(time.Duration(i%max(1, minutes)) * time.Minute)
			buf = appendPoint(buf[:0], t, level)
			bw.Write(buf)
		} else {
			k := 0
			for t := start; !t.After(end) && (w.Points == 0 || k < w.Points); t = t.Add(step) {
				if k > 0 {
					bw.WriteByte(',')
				}
				buf = appendPoint(buf[:0], t, level*(1+0.01*rng.NormFloat64()))
				bw.Write(buf)
				k++
			}
		}
		bw.WriteString("]}")
	}
	bw.WriteString("]}}\n")
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("bench generate %s: %w", w.Name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench generate %s: %w", w.Name, err)
	}
	return nil
}

// appendPoint appends one query_range point: [seconds,"value"].
func appendPoint(b []byte, t time.Time, v float64) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, t.Unix(), 10)
	b = append(b, ',', '"')
	b = strconv.AppendFloat(b, v, 'f', 0, 64)
	return append(b, '"', ']')
}

// CachedWide returns the directory of w under root, generating it first
// when it is missing or incomplete.
func CachedWide(root string, w Wide) (string, error) {
	dir := filepath.Join(root, w.Name)
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := GenerateWide(dir, w); err != nil {
		return "", err
	}
	return dir, os.WriteFile(marker, nil, 0o644)
}
