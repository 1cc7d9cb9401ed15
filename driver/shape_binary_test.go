package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/llmgen"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

// The request-shape map through the real binary (issue 43): its reading on
// cases built so the answer is known, its presence on every llm-dev case,
// and the histograms-only path on an llm-dev case whose traces are
// replaced by the histograms of the same requests.

// shapeJSON is the part of the JSON card the tests read.
type shapeJSON struct {
	RequestShape *struct {
		Kind           string `json:"kind"`
		Reading        string `json:"reading"`
		Source         string `json:"source"`
		FromHistograms bool   `json:"from_histograms"`
		SplitTokens    int64  `json:"split_tokens"`
		SplitAxis      string `json:"split_axis"`
		Seed           uint64 `json:"seed"`
		Cells          []struct {
			E2E struct {
				BaseN int `json:"base_n"`
				WinN  int `json:"win_n"`
			} `json:"e2e"`
		} `json:"cells"`
	} `json:"request_shape"`
}

// cardShape runs the binary with args and decodes the card's section.
func cardShape(t *testing.T, args ...string) shapeJSON {
	t.Helper()
	r := runBinary(t, 2*time.Minute, nil, append([]string{"-q", "-o", "json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var c shapeJSON
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestShapeKnownAnswersBinary: generated incidents that slow only long
// prompts, only long outputs, or every request (and one that slows
// nothing) are read as prefill-bound, decode-bound, everything slowed and
// unchanged — from the gateway's spans, and from the server's histograms
// alone — through the real binary.
func TestShapeKnownAnswersBinary(t *testing.T) {
	for _, tc := range []struct {
		sc   llmgen.Scenario
		want string
	}{{llmgen.Prefill, "prefill_bound"}, {llmgen.Decode, "decode_bound"}, {llmgen.Everything, "everything_slowed"}, {llmgen.None, "unchanged"}} {
		for _, hist := range []bool{false, true} {
			name := string(tc.sc) + "/spans"
			if hist {
				name = string(tc.sc) + "/histograms"
			}
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "case")
				c := llmgen.Config{Scenario: tc.sc, Rate: 6, Seed: 11}
				if err := llmgen.WriteCase(dir, c, hist, !hist); err != nil {
					t.Fatal(err)
				}
				target := "gateway:latency"
				if hist {
					target = "llm:latency"
				}
				at := c.WindowStart().Add(c.Window / 2).Format(time.RFC3339)
				got := cardShape(t, "--target", target, "--at", at, "--window", "5m", "--onset-lookback", "0", "--shape-seed", "7", dir)
				s := got.RequestShape
				if s == nil {
					t.Fatal("no request_shape on the card")
				}
				if s.Kind != tc.want || s.FromHistograms != hist || s.Seed != 7 {
					t.Errorf("kind %s (want %s), from histograms %v (want %v), seed %d: %s (%s)", s.Kind, tc.want, s.FromHistograms, hist, s.Seed, s.Reading, s.Source)
				}
				switch tc.sc {
				case llmgen.Prefill:
					if s.SplitTokens != 4096 || s.SplitAxis != "input" {
						t.Errorf("split %d %s, want 4096 input: %s", s.SplitTokens, s.SplitAxis, s.Reading)
					}
				case llmgen.Decode:
					if s.SplitTokens != 0 && (s.SplitTokens != 256 || s.SplitAxis != "output") {
						t.Errorf("split %d %s, want 256 output (or none): %s", s.SplitTokens, s.SplitAxis, s.Reading)
					}
				}
			})
		}
	}
}

// llmDevCases are the llm-dev case directories (skips without them).
func llmDevCases(t *testing.T) []string {
	t.Helper()
	cases, _ := filepath.Glob(filepath.Join(testkit.SharedDir(t), "data", "llm-dev", "*"))
	if len(cases) == 0 {
		t.Skip("no llm-dev cases")
	}
	return cases
}

// TestShapeLLMDev: every llm-dev case (its target an LLM latency, its
// spans carrying gen_ai token counts) gets the map: a reading, cells with
// requests on both sides.
func TestShapeLLMDev(t *testing.T) {
	for _, dir := range llmDevCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := cardShape(t, dir).RequestShape
			if s == nil {
				t.Fatal("no request_shape on the card")
			}
			base, win := 0, 0
			for _, c := range s.Cells {
				base += c.E2E.BaseN
				win += c.E2E.WinN
			}
			if s.Reading == "" || s.FromHistograms || base == 0 || win == 0 {
				t.Errorf("reading %q, from histograms %v, %d baseline and %d window requests in the cells", s.Reading, s.FromHistograms, base, win)
			}
		})
	}
}

// TestShapeLLMDevHistogramsOnly: an llm-dev case without its traces has no
// map (its metrics hold token rates and latency quantiles, not the
// request-size histograms); with the histograms the LLM server would have
// exported for the same requests (written from its own request spans,
// llmgen.FromSpans) it gets one, from those histograms alone.
func TestShapeLLMDevHistogramsOnly(t *testing.T) {
	src := llmDevCases(t)[0]
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "traces") {
			continue
		}
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if s := cardShape(t, dir).RequestShape; s != nil {
		t.Fatalf("a map without spans or request-size histograms: %+v", s)
	}
	traces, _ := filepath.Glob(filepath.Join(src, "traces*"))
	b, err := features.Read(traces, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, reqs := llmgen.FromSpans(b, "vllm", 15*time.Second)
	if len(reqs) < 100 {
		t.Fatalf("%d requests from the server's spans", len(reqs))
	}
	if err := llmgen.WriteHistograms(dir, c, reqs); err != nil {
		t.Fatal(err)
	}
	s := cardShape(t, dir).RequestShape
	if s == nil {
		t.Fatal("no request_shape from the histograms")
	}
	if !s.FromHistograms || s.Reading == "" || !strings.Contains(s.Source, "histograms of vllm") {
		t.Errorf("from histograms %v, source %q, reading %q", s.FromHistograms, s.Source, s.Reading)
	}
}
