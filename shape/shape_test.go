package shape

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
	"github.com/pipeline-analyze/pipeline-analyze/internal/llmgen"
)

// samples splits generated requests into the baseline's and the window's.
func samples(c llmgen.Config) (base, win *Sample) {
	base, win = &Sample{}, &Sample{}
	ws := c.WindowStart()
	for _, q := range llmgen.Requests(c) {
		r := request{in: float64(q.In), out: float64(q.Out), v: [numMetrics]float64{q.TTFT, q.TPOT, q.E2E}}
		if q.Start.Before(ws) {
			base.reqs = append(base.reqs, r)
		} else {
			win.reqs = append(win.reqs, r)
		}
	}
	return base, win
}

// TestReadingKnownAnswers: cases built so the answer is known — only long
// prompts slowed, only long outputs, every request, nothing — are read as
// prefill-bound, decode-bound, everything slowed and unchanged, over
// several seeds and factors, with the split found where the generator put
// it.
func TestReadingKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		sc    llmgen.Scenario
		want  Kind
		axis  string
		split int64
	}{
		{llmgen.Prefill, KindPrefill, "input", 4096},
		{llmgen.Decode, KindDecode, "output", 256},
		{llmgen.Everything, KindEverything, "input", 0},
		{llmgen.None, KindUnchanged, "", 0},
	} {
		for _, seed := range []uint64{1, 2, 3} {
			for _, f := range []float64{2, 4} {
				t.Run(fmt.Sprintf("%s/seed%d/x%g", tc.sc, seed, f), func(t *testing.T) {
					base, win := samples(llmgen.Config{Scenario: tc.sc, Seed: seed, Factor: f})
					m := Build(base, win, Options{})
					r := m.Reading
					if r.Kind != tc.want {
						t.Fatalf("reading %s, want %s: %s", r.Kind, tc.want, r.Text)
					}
					if tc.split != 0 && (r.Split != tc.split || r.Axis != tc.axis) {
						t.Errorf("split %d %s tokens, want %d %s: %s", r.Split, r.Axis, tc.split, tc.axis, r.Text)
					}
					if tc.sc == llmgen.Prefill && math.Abs(r.Long.Ratio/f-1) > 0.35 {
						t.Errorf("long prompts' TTFT ratio %.2f, generated ×%g: %s", r.Long.Ratio, f, r.Text)
					}
				})
			}
		}
	}
}

// TestMapCells: the grid covers the generated shapes, a cell of only long
// prompts carries the factor (its interval holds it) and a cell of short
// ones stays near 1; sparse cells are marked, not judged.
func TestMapCells(t *testing.T) {
	base, win := samples(llmgen.Config{Scenario: llmgen.Prefill, Factor: 3, Rate: 8})
	m := Build(base, win, Options{})
	if got := fmt.Sprint(m.Inputs); got != "[64–256 256–1k 1k–4k 4k–16k 16k–64k]" {
		t.Errorf("input buckets %s", got)
	}
	long, short := m.InputMargin[len(m.InputMargin)-1].Metrics[TTFT], m.InputMargin[0].Metrics[TTFT]
	if !(long.Lo < 3 && 3 < long.Hi) || !long.Slowed(0.25) {
		t.Errorf("16k–64k prompts: TTFT %+v, want an interval holding ×3", long)
	}
	if short.Slowed(0.25) || math.Abs(short.Ratio-1) > 0.3 {
		t.Errorf("64–256 prompts: TTFT %+v, want about ×1", short)
	}
	for _, row := range m.Cells {
		for _, c := range row {
			ch := c.Metrics[TTFT]
			if (ch.BaseN < m.MinCell || ch.WinN < m.MinCell) != ch.Few || ch.Few && !math.IsNaN(ch.Ratio) {
				t.Errorf("cell %s × %s: %+v (few must say fewer than %d a side, without a ratio)", c.Input, c.Output, ch, m.MinCell)
			}
		}
	}
}

// TestDeterministic: the same inputs and seed give the same map; another
// seed moves the intervals only.
func TestDeterministic(t *testing.T) {
	base, win := samples(llmgen.Config{Scenario: llmgen.Decode})
	a, b := Build(base, win, Options{}), Build(base, win, Options{})
	if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
		t.Fatal("two builds differ")
	}
	c := Build(base, win, Options{Seed: 9})
	if c.All.Metrics[E2E].Ratio != a.All.Metrics[E2E].Ratio || c.All.Metrics[E2E].Lo == a.All.Metrics[E2E].Lo {
		t.Errorf("seed 9: ratio %v (want %v), interval low %v (want another than %v)", c.All.Metrics[E2E].Ratio, a.All.Metrics[E2E].Ratio, c.All.Metrics[E2E].Lo, a.All.Metrics[E2E].Lo)
	}
}

// TestTooFew: a window with a handful of requests says so.
func TestTooFew(t *testing.T) {
	base, win := samples(llmgen.Config{Scenario: llmgen.Prefill})
	win.reqs = win.reqs[:5]
	if r := Build(base, win, Options{}).Reading; r.Kind != KindUnknown {
		t.Errorf("reading %s: %s", r.Kind, r.Text)
	}
}

// TestFromFiles reads generated cases through ingest — spans only, and
// histograms only — and maps them with ForIncident: both sources give the
// generated answer.
func TestFromFiles(t *testing.T) {
	for _, tc := range []struct {
		sc   llmgen.Scenario
		want Kind
	}{{llmgen.Prefill, KindPrefill}, {llmgen.Decode, KindDecode}, {llmgen.Everything, KindEverything}, {llmgen.None, KindUnchanged}} {
		for _, hist := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/hist=%v", tc.sc, hist), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "case")
				c := llmgen.Config{Scenario: tc.sc, Rate: 6}
				if err := llmgen.WriteCase(dir, c, hist, !hist); err != nil {
					t.Fatal(err)
				}
				b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ws := ingest.FromTime(c.WindowStart())
				m := ForIncident(b, "gateway", ws.Add(-30*time.Minute), ws, ingest.FromTime(c.End()), Options{})
				if m == nil {
					t.Fatal("no map")
				}
				if m.FromHistograms != hist {
					t.Errorf("from histograms %v, want %v (%s)", m.FromHistograms, hist, m.Source)
				}
				if m.Reading.Kind != tc.want {
					t.Errorf("reading %s, want %s: %s (%s)", m.Reading.Kind, tc.want, m.Reading.Text, m.Source)
				}
			})
		}
	}
}
