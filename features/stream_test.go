package features

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// writeStreamFixture writes an incident of synthetic traces into dir: nf
// Jaeger files of whole traces (a gateway calling cart, db and vllm, with
// several pods — vllm's one per file — errors, clock skew and an orphan
// now and then) over 40
// minutes, and one Prometheus file of 15 s points that sets the grid. It
// returns the paths and the spans written.
func writeStreamFixture(t *testing.T, dir string, nf, traces int) ([]string, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(44, 3))
	t0 := int64(1_800_000_000) * 1_000_000 // µs
	spans := 0
	var paths []string
	for f := range nf {
		var sb strings.Builder
		sb.WriteString(`{"data":[`)
		for tr := range traces {
			if tr > 0 {
				sb.WriteString(",")
			}
			tid := fmt.Sprintf("%016x%016x", f+1, tr+1)
			start := t0 + rng.Int64N(int64(40*time.Minute/time.Microsecond))
			dur := int64(1000 + rng.IntN(900_000))
			if start > t0+int64(30*time.Minute/time.Microsecond) && rng.IntN(3) == 0 {
				dur *= 4 // slower in the last ten minutes
			}
			span := func(id, parent int, op string, st, d int64, proc string, tags string) string {
				ref := ""
				if parent > 0 {
					ref = fmt.Sprintf(`{"refType":"CHILD_OF","traceID":"%s","spanID":"%016x"}`, tid, parent)
				}
				spans++
				return fmt.Sprintf(`{"traceID":"%s","spanID":"%016x","operationName":"%s","references":[%s],"startTime":%d,"duration":%d,"tags":[%s],"processID":"%s"}`,
					tid, id, op, ref, st, d, tags, proc)
			}
			var ss []string
			ss = append(ss, span(1, 0, "GET /", start, dur, fmt.Sprintf("g%d", rng.IntN(3)), `{"key":"span.kind","type":"string","value":"server"}`))
			for k := range 2 + rng.IntN(3) {
				svc := []string{"cart", "db", "vllm"}[rng.IntN(3)]
				cs := start + int64(rng.IntN(500))
				cd := dur / 2
				errTag := ""
				if rng.IntN(40) == 0 {
					errTag = `,{"key":"error","type":"bool","value":true}`
				}
				ss = append(ss, span(10+2*k, 1, "call "+svc, cs, cd, "g0", `{"key":"span.kind","type":"string","value":"client"},{"key":"peer.service","type":"string","value":"`+svc+`"}`))
				ss_ := cs + 200
				if rng.IntN(6) == 0 {
					ss_ = cs - 20_000 // a skewed clock: starts before its caller
				}
				pod := rng.IntN(2)
				if svc == "vllm" {
					pod = f % 2 // one vllm pod per file: the per-pod series exist only over all files
				}
				ss = append(ss, span(11+2*k, 10+2*k, "serve", ss_, cd/2, fmt.Sprintf("%s%d", svc, pod), `{"key":"span.kind","type":"string","value":"server"}`+errTag))
			}
			if tr%97 == 0 {
				ss = append(ss, span(99, 77, "orphan", start, 10, "db0", ""))
			}
			sb.WriteString(`{"traceID":"` + tid + `","spans":[` + strings.Join(ss, ",") + `],"processes":{`)
			var procs []string
			for _, p := range []string{"g0", "g1", "g2", "cart0", "cart1", "db0", "db1", "vllm0", "vllm1"} {
				svc := strings.TrimRight(p, "012")
				if svc == "g" {
					svc = "gateway"
				}
				procs = append(procs, fmt.Sprintf(`"%s":{"serviceName":"%s","tags":[{"key":"k8s.pod.name","type":"string","value":"%s-7d9f8b6c5-%s"},{"key":"k8s.node.name","type":"string","value":"node-%s"}]}`,
					p, svc, svc, p[len(p)-1:]+"bcdf", p[len(p)-1:]))
			}
			sb.WriteString(strings.Join(procs, ",") + "}}")
		}
		sb.WriteString("]}\n")
		p := filepath.Join(dir, fmt.Sprintf("traces-%d.json", f))
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var vals []string
	for k := range 41 * 4 {
		vals = append(vals, fmt.Sprintf(`[%d,"%d"]`, t0/1e6+int64(k)*15, 50+k%7))
	}
	prom := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"http_requests_rate","service":"gateway"},"values":[` + strings.Join(vals, ",") + `]}]}}`
	p := filepath.Join(dir, "metrics.json")
	if err := os.WriteFile(p, []byte(prom), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(paths, p), spans
}

// TestStreamedSeriesMatchEverySpan: a read over the span budget keeps a
// sample of whole traces, but its span-derived series are those of every
// span: each cell of every trace series equal to the read that keeps all
// spans — counts, error ratios and quantiles bit for bit, means and
// exclusive times to the last digits (summed file by file). The sample is
// the traces whose IDs hash into its rate, and the card's warning says so.
func TestStreamedSeriesMatchEverySpan(t *testing.T) {
	dir := t.TempDir()
	paths, written := writeStreamFixture(t, dir, 3, 700)
	var size int64
	for _, p := range paths[:3] {
		st, _ := os.Stat(p)
		size += st.Size()
	}
	whole, err := Read(paths, nil, ingest.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Digest != nil || whole.SpanSample != nil {
		t.Fatal("a read under the budget was streamed")
	}
	streamed, err := Read(paths, nil, ingest.Options{Limits: ingest.Limits{SpanBudget: size / 2}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := streamed.SpanSample
	if s == nil || digestOf(streamed) == nil {
		t.Fatal("a read over the budget was not streamed")
	}
	if s.ReadSpans != len(whole.Spans) || s.Files != 3 || s.KeptSpans != len(streamed.Spans) || len(streamed.Spans) == 0 ||
		len(streamed.Spans) > len(whole.Spans)/3 || written < len(whole.Spans) {
		t.Errorf("sample %+v: %d spans kept of %d (%d written)", *s, len(streamed.Spans), len(whole.Spans), written)
	}
	warned := false
	for _, w := range streamed.Warnings {
		if errors.Is(w, ingest.ErrLimit) && strings.Contains(w.Message, "--span-budget") && strings.Contains(w.Message, "sample of whole traces") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no span-budget warning among %v", streamed.Warnings)
	}
	traceSeries := func(b *ingest.Bundle) map[string]*ingest.Series {
		m := map[string]*ingest.Series{}
		for _, s := range b.Series {
			if s.Source == ingest.DerivedSource && s.Name != ingest.TraceOpMix && !strings.HasPrefix(s.Name, "log") && !strings.Contains(s.Name, "pattern") {
				m[s.Key()] = s
			}
		}
		return m
	}
	want, got := traceSeries(whole), traceSeries(streamed)
	if len(want) < 20 {
		t.Fatalf("only %d trace series", len(want))
	}
	for k, w := range want {
		g := got[k]
		if g == nil {
			t.Errorf("%s: missing from the streamed read", k)
			continue
		}
		summed := w.Stat == "mean" || w.Stat == "self" || w.Stat == "gap"
		for c := range w.V {
			a, b := w.V[c], g.V[c]
			switch {
			case math.IsNaN(a) && math.IsNaN(b):
			case summed && math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), 1e-9):
			case a != b:
				t.Errorf("%s cell %d: %v streamed, %v whole", k, c, b, a)
			}
		}
	}
	for k := range got {
		if want[k] == nil {
			t.Errorf("%s: only in the streamed read", k)
		}
	}
}
