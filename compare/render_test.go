package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenCases are the reports the golden files are named after.
var goldenCases = []struct {
	name   string
	report func(testing.TB) *model.Report
}{
	{"fixed", fixedReport},
	{"regressed", regressedReport},
	{"insufficient", insufficientReport},
	{"canary", canaryGoldenReport},
}

func renderFormat(t testing.TB, r *model.Report, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, r, format, RenderOptions{}); err != nil {
		t.Fatalf("Render(%s): %v", format, err)
	}
	return buf.String()
}

// TestGolden compares every format of every golden report with
// testdata/<report>.<format>.golden; a second Run and render of the same
// inputs must give the same bytes (the report is deterministic).
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		a, b := gc.report(t), gc.report(t)
		for _, format := range Formats() {
			name := gc.name + "." + format
			t.Run(name, func(t *testing.T) {
				got := renderFormat(t, a, format)
				if again := renderFormat(t, b, format); again != got {
					t.Fatal("two runs on the same inputs render differently")
				}
				path := filepath.Join("testdata", name+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -run TestGolden -update)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from the golden file; rerun with -update after checking.\n%s", path, firstDiff(got, string(want)))
				}
			})
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "no line differs"
}

// TestVerdicts checks what the golden reports say, so a change of the
// statistics that flips a verdict fails here with a reason, not only as a
// golden diff.
func TestVerdicts(t *testing.T) {
	fixed := fixedReport(t)
	reg := regressedReport(t)
	ins := insufficientReport(t)
	item := func(r *model.Report, id string) model.Item {
		for _, it := range r.Items {
			if it.ID == id {
				return it
			}
		}
		t.Fatalf("no item %s", id)
		return model.Item{}
	}
	tests := []struct {
		name      string
		got, want model.Verdict
	}{
		{"fixed: target", fixed.Verdict.Verdict, model.Fixed},
		{"fixed: backend latency", item(fixed, "service/backend:latency").Verdict, model.Fixed},
		{"fixed: backend errors", item(fixed, "service/backend:errors").Verdict, model.Fixed},
		{"fixed: db untouched", item(fixed, "service/db:latency").Verdict, model.Unchanged},
		{"fixed: cause 1", fixed.Causes[0].Verdict, model.Fixed},
		{"fixed: cause 2 (the pod's CPU)", fixed.Causes[1].Verdict, model.Fixed},
		{"regressed: target", reg.Verdict.Verdict, model.Regressed},
		{"regressed: backend latency", item(reg, "service/backend:latency").Verdict, model.Regressed},
		{"regressed: backend CPU", item(reg, `series/pod/backend-5d8f7c9b4-x2kq9:cpu container_cpu_usage_seconds_rate{container="backend",pod="backend-5d8f7c9b4-x2kq9"}`).Verdict, model.Regressed},
		{"regressed: db untouched", item(reg, "service/db:latency").Verdict, model.Unchanged},
		{"regressed: traffic the same", item(reg, "service/gateway:traffic").Verdict, model.Unchanged},
		{"insufficient: target", ins.Verdict.Verdict, model.Insufficient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
	if len(fixed.Regressions) != 0 {
		t.Errorf("fixed: regressions %v, want none", fixed.Regressions)
	}
	backend := false
	for _, f := range reg.Regressions[:min(5, len(reg.Regressions))] {
		backend = backend || strings.Contains(f.Item, "service/backend:")
	}
	if !backend {
		t.Errorf("regressed: top regressions %v, want the backend's among the first 5", reg.Regressions)
	}
	for _, it := range ins.Items {
		if it.Verdict != model.Insufficient {
			t.Errorf("insufficient: %s is %s", it.ID, it.Verdict)
		}
	}
}

// TestTextWidth checks that no text line is wider than the width.
func TestTextWidth(t *testing.T) {
	for _, gc := range append(goldenCases, struct {
		name   string
		report func(testing.TB) *model.Report
	}{"hostile", hostileReport}) {
		for _, width := range []int{0, 60} {
			var buf bytes.Buffer
			if err := Render(&buf, gc.report(t), "text", RenderOptions{Width: width}); err != nil {
				t.Fatal(err)
			}
			limit := max(width, 60)
			if width == 0 {
				limit = 100
			}
			for i, l := range strings.Split(buf.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > limit {
					t.Errorf("%s width %d: line %d has %d runes: %q", gc.name, width, i+1, n, l)
				}
			}
		}
	}
}

// TestUnknownFormat checks the error for a bad format.
func TestUnknownFormat(t *testing.T) {
	err := Render(&bytes.Buffer{}, fixedReport(t), "pdf", RenderOptions{})
	if err == nil || !strings.Contains(err.Error(), "text, json, markdown, html") {
		t.Errorf("err = %v", err)
	}
}

// TestJSONRoundTrip checks the JSON parses and carries NaN as null.
func TestJSONRoundTrip(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(renderFormat(t, insufficientReport(t), "json")), &doc); err != nil {
		t.Fatal(err)
	}
	it := doc["items"].([]any)[0].(map[string]any)
	if it["test"].(map[string]any)["p"] != nil {
		t.Errorf("an undecided item's p is %v, want null", it["test"].(map[string]any)["p"])
	}
	if doc["after"].(map[string]any)["start"] == nil {
		t.Error("after.start is null")
	}
}
