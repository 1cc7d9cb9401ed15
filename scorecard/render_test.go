package scorecard

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenCases are the hand-built cards the golden files are named after.
var goldenCases = []struct {
	name string
	card func() *Card
}{
	{"confident", confidentCard},
	{"abstain", abstainCard},
}

func render(t *testing.T, c *Card, format string, opt RenderOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, c, format, opt); err != nil {
		t.Fatalf("Render(%s): %v", format, err)
	}
	return buf.String()
}

// TestGolden compares every format of every golden card with
// testdata/<card>.<format>.golden (plus the coloured text variant).
func TestGolden(t *testing.T) {
	type variant struct {
		suffix, format string
		opt            RenderOptions
	}
	variants := []variant{{"text", "text", RenderOptions{}}, {"text-color", "text", RenderOptions{Color: true}},
		{"text-v", "text", RenderOptions{Verbose: true}}, {"text-explain1", "text", RenderOptions{Explain: 1}},
		{"json", "json", RenderOptions{}}, {"markdown", "markdown", RenderOptions{}}, {"html", "html", RenderOptions{}}}
	for _, gc := range goldenCases {
		for _, v := range variants {
			name := gc.name + "." + v.suffix
			t.Run(name, func(t *testing.T) {
				got := render(t, gc.card(), v.format, v.opt)
				if again := render(t, gc.card(), v.format, v.opt); again != got {
					t.Fatal("output differs between two renders of the same card")
				}
				reporttest.Golden(t, filepath.Join("testdata", name+".golden"), got, *update)
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestTextWidth checks that no text line exceeds the width, with and without
// colour (escape sequences do not count), for every card and two widths.
func TestTextWidth(t *testing.T) {
	cards := append(goldenCases[:len(goldenCases):len(goldenCases)], struct {
		name string
		card func() *Card
	}{"hostile", hostileCard})
	for _, gc := range cards {
		for _, width := range []int{0, 60} {
			for _, color := range []bool{false, true} {
				name := gc.name + "/width=" + itoa(width)
				if color {
					name += "/color"
				}
				t.Run(name, func(t *testing.T) {
					out := render(t, gc.card(), "text", RenderOptions{Color: color, Width: width, Verbose: true})
					limit := width
					if limit == 0 {
						limit = DefaultWidth
					}
					lines := strings.Split(out, "\n")
					for i, l := range lines {
						if verbatimLine(lines, i) {
							continue // a command, query, URL or ID: never wrapped (TestTextVerbatim)
						}
						if n := utf8.RuneCountInString(ansiRE.ReplaceAllString(l, "")); n > limit {
							t.Errorf("line %d has %d runes > %d: %q", i+1, n, limit, l)
						}
					}
					hasESC := strings.Contains(out, "\x1b")
					if !color && hasESC {
						t.Error("escape sequence in uncoloured output")
					}
					if color && strings.Contains(ansiRE.ReplaceAllString(out, ""), "\x1b") {
						t.Error("stray escape byte besides our SGR sequences (input not sanitised)")
					}
				})
			}
		}
	}
}

// TestTextContent asserts the sections a reader relies on.
func TestTextContent(t *testing.T) {
	out := render(t, confidentCard(), "text", RenderOptions{Verbose: true})
	for _, want := range []string{
		"root cause: GPU-5a1c… on gpu-node-b (DRAM bandwidth), confidence 0.87",
		"had it stayed at baseline, P99 TTFT would have been 0.9 s instead of 4.8 s",
		"showing 3 of 143 candidates; dropped 140 below score 0.05",
		"unexplained: 12% of the target's deviation",
		"81% [72–88%]",
		"gpu/GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55:gpu_mem_bw →(+30s)",
		"edge/api-gateway->tokenizer:latency →(+1m30s) service/api-gateway:latency",
		"[1] clock skew — traces/jaeger.json (3×)",
		"sha256 5f2c9a1b03de",
		"$ pipeline-analyze analyze --method tcg --seed 42",
		"· under 2σ", "█ 8σ or more", "◀ target",
		"  Overview: every service by call depth",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	heat := out[strings.Index(out, "\nHeatmaps\n"):]
	if n := len(regexp.MustCompile(`(?m)^  #\d `).FindAllString(heat, -1)); n != 3 {
		t.Errorf("want 3 heatmap titles, got %d", n)
	}
	abst := render(t, abstainCard(), "text", RenderOptions{Verbose: true})
	for _, want := range []string{"no confident root cause", "DEMO: ", "[2] orphan span", "[3] skipped input", "skip ", "~"} {
		if !strings.Contains(abst, want) {
			t.Errorf("abstain text lacks %q", want)
		}
	}
}

// TestRequestBreaksNoteShare: the request breaks' note states the least
// share the analysis used (a --param can change it), in every format.
func TestRequestBreaksNoteShare(t *testing.T) {
	c := confidentCard()
	c.Verdict.MinShare = 0.1
	for _, format := range []string{"text", "markdown", "html"} {
		out := strings.Join(strings.Fields(render(t, c, format, RenderOptions{Verbose: true})), " ")
		if !strings.Contains(out, "the first cause explains under 10%)") || strings.Contains(out, "under 5%") {
			t.Errorf("%s: the request breaks' note does not state the card's least share 10%%", format)
		}
	}
	if got := requestBreaksNote(math.NaN()); !strings.Contains(got, "under the verdict's least share)") {
		t.Errorf("no share: %q", got)
	}
}

// TestRenderErrors covers the error paths.
func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		card   *Card
		format string
		w      *failWriter
		is     error
	}{
		{"unknown format", confidentCard(), "pdf", nil, ErrUnknownFormat},
		{"nil card", nil, "text", nil, nil},
		{"write error text", confidentCard(), "text", &failWriter{}, errWrite},
		{"write error json", confidentCard(), "json", &failWriter{}, errWrite},
		{"write error markdown", confidentCard(), "markdown", &failWriter{}, errWrite},
		{"write error html", confidentCard(), "html", &failWriter{}, errWrite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w interface{ Write([]byte) (int, error) } = &bytes.Buffer{}
			if tc.w != nil {
				w = tc.w
			}
			err := Render(w, tc.card, tc.format, RenderOptions{})
			if err == nil {
				t.Fatal("want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v is not %v", err, tc.is)
			}
		})
	}
}

var errWrite = errors.New("disk full")

type failWriter struct{}

func (*failWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestFormats pins the format list.
func TestFormats(t *testing.T) {
	if got := strings.Join(Formats(), ","); got != "text,json,markdown,html" {
		t.Fatalf("Formats() = %s", got)
	}
}

// TestFormatHelpers pins the fixed-precision renderings.
func TestFormatHelpers(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"lag 30s", fmtLag(30 * time.Second), "+30s"},
		{"lag 90s", fmtLag(90 * time.Second), "+1m30s"},
		{"lag 2m", fmtLag(2 * time.Minute), "+2m"},
		{"lag 500ms", fmtLag(500 * time.Millisecond), "+500ms"},
		{"lag negative", fmtLag(-2 * time.Second), "-2s"},
		{"value seconds", fmtValue(4.8, "s"), "4.80 s"},
		{"value percent", fmtValue(98.5, "%"), "98.5%"},
		{"value big", fmtValue(12345.6, "B"), "12346 B"},
		{"value tiny", fmtValue(0.00012, ""), "1.20e-04"},
		{"value NaN", fmtValue(math.NaN(), "s"), "~"},
		{"share", fmtShare(0.806), "81%"},
		{"path", pathText(confidentCard().Causes[0].Path), "gpu/GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55:gpu_mem_bw →(+30s) pod/vllm-7d9f8b6c5-x2k4p:latency →(+15s) service/api-gateway:latency"},
		{"share NaN", fmtShare(math.NaN()), "~"},
		{"interval", fmtInterval([2]float64{0.72, 0.88}), "[72–88%]"},
		{"interval NaN", fmtInterval([2]float64{math.NaN(), math.NaN()}), ""},
		{"negative zero", fmtFixed(-0.0001, 2), "0.00"},
		{"pruned", prunedText(Pruned{Shown: 8, Total: 143, Dropped: 135, MinScore: 0.05}), "showing 8 of 143 candidates; dropped 135 below score 0.05 or ranked lower"},
		{"pruned without a score floor", prunedText(Pruned{Shown: 10, Total: 182, Dropped: 172}), "showing 10 of 182 candidates; 172 more ranked lower"},
		{"quote plain", shellQuote("--seed=42"), "--seed=42"},
		{"quote space", shellQuote("a b"), "'a b'"},
		{"quote quote", shellQuote("it's"), `'it'\''s'`},
		{"sanitize", sanitize("a\x1b[31mb\nc\u202Ed"), `a\x1b[31mb\nc\u202ed`},
		{"truncate", truncate("abcdef", 4), "abc…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestHeatView checks row ordering by depth, column merging and markers.
func TestHeatView(t *testing.T) {
	nan := math.NaN()
	h := Heatmap{
		Rows:  []HeatRow{{Label: "b", Depth: 2}, {Label: "a"}, {Label: "c", Depth: 1}, {Label: "d"}},
		Start: t0, Slice: 10 * time.Second,
		Cells: [][]float64{{0.1, 0.2, 0.3, 0.4, 0.5}, {nan, nan, 1, nan, 0.2}, {0, 0, 0, 0, 0}, {0.9}},
		Onset: t0.Add(25 * time.Second), Alert: t0.Add(time.Hour),
	}
	tests := []struct {
		name             string
		maxCols          int
		cols, merge      int
		onset, alert     int
		labels           string
		row0, row1, row3 []float64
	}{
		{"no merge", 0, 5, 1, 2, -1, "a,d,c,b", []float64{nan, nan, 1, nan, 0.2}, []float64{0.9, nan, nan, nan, nan}, []float64{0.1, 0.2, 0.3, 0.4, 0.5}},
		{"merge by 2", 3, 3, 2, 1, -1, "a,d,c,b", []float64{nan, 1, 0.2}, []float64{0.9, nan, nan}, []float64{0.2, 0.4, 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newHeatView(h, tc.maxCols)
			var labels []string
			for _, r := range v.Rows {
				labels = append(labels, r.Label)
			}
			if got := strings.Join(labels, ","); got != tc.labels {
				t.Errorf("rows %s, want %s", got, tc.labels)
			}
			if v.Cols != tc.cols || v.Merge != tc.merge || v.Onset != tc.onset || v.Alert != tc.alert {
				t.Errorf("cols=%d merge=%d onset=%d alert=%d, want %d %d %d %d", v.Cols, v.Merge, v.Onset, v.Alert, tc.cols, tc.merge, tc.onset, tc.alert)
			}
			for _, c := range []struct {
				i    int
				want []float64
			}{{0, tc.row0}, {1, tc.row1}, {3, tc.row3}} {
				for j, w := range c.want {
					g := v.Cells[c.i][j]
					if !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
						t.Errorf("cell[%d][%d] = %v, want %v", c.i, j, g, w)
					}
				}
			}
		})
	}
	colors := []struct {
		x    float64
		want string
	}{{0, "#2c7bb6"}, {0.5, "#ffffbf"}, {1, "#d7191c"}, {nan, heatNoDataColor}, {7, "#d7191c"}}
	for _, c := range colors {
		if got := heatColor(c.x); got != c.want {
			t.Errorf("heatColor(%v) = %s, want %s", c.x, got, c.want)
		}
	}
}

// verbatimRE are the text lines written whole whatever the width: a
// command after "$ ", a series, trace IDs, the runbook URL.
var verbatimRE = regexp.MustCompile(`^\s+(\$ |series |traces |runbook )`)

// verbatimLine reports whether lines[i] is written unwrapped: a verbatim
// prefix, or the query or link after a step's line ending in ":".
func verbatimLine(lines []string, i int) bool {
	l := ansiRE.ReplaceAllString(lines[i], "")
	if verbatimRE.MatchString(l) {
		return true
	}
	return i > 0 && strings.HasSuffix(ansiRE.ReplaceAllString(lines[i-1], ""), ":") &&
		(strings.HasPrefix(strings.TrimSpace(lines[i-1]), "confirm") || strings.HasPrefix(strings.TrimSpace(lines[i-1]), "mitigate"))
}

// TestHTMLGraphFits: a propagation path longer than the page is wide wraps
// into bands, so the graph is never wider than the page's content and its
// target (the path's end) lies inside the drawing.
func TestHTMLGraphFits(t *testing.T) {
	var path []PathStep
	for i := range 11 {
		path = append(path, PathStep{Node: fmt.Sprintf("service/s%02d", i), Signal: "latency", Lag: 15 * time.Second, Share: math.NaN()})
	}
	g := newHTMLGraph([]Cause{{Rank: 1, Path: path}}, 3)
	if g.Width > gMaxWidth {
		t.Errorf("graph %d px wide, page %d", g.Width, gMaxWidth)
	}
	var target *htmlNode
	for i := range g.Nodes {
		if g.Nodes[i].Class == "target" {
			target = &g.Nodes[i]
		}
	}
	if target == nil || target.X+target.W > g.Width || target.Y+target.H > g.Height || target.X < 0 || target.Y < 0 {
		t.Fatalf("target %+v outside the %d×%d graph", target, g.Width, g.Height)
	}
	if len(g.Edges) != len(path)-1 {
		t.Errorf("%d edges, want %d", len(g.Edges), len(path)-1)
	}
	for _, e := range g.Edges {
		for _, x := range []int{e.X1, e.X2} {
			if x < 0 || x > g.Width {
				t.Errorf("edge %+v leaves the graph", e)
			}
		}
	}
}
