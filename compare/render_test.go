package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
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
				reporttest.Golden(t, filepath.Join("testdata", name+".golden"), got, *update)
			})
		}
	}
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

// TestRenderCanaryMode: Render hands a canary report (Mode ModeCanary) to
// package canary's renderers in every format but JSON, which is the
// model's for both modes.
func TestRenderCanaryMode(t *testing.T) {
	rep := &model.Report{SchemaVersion: model.SchemaVersion, Tool: model.Tool{Name: "pipeline-analyze", Version: "test"}, Mode: model.ModeCanary,
		Verdict: model.Summary{Verdict: model.Regressed, Text: "canary pay-v2: FAIL (critical: latency high)", Regressions: 1},
		Canary: model.Canary{Selector: "version=v2", Verdict: model.CanaryFail, Workloads: []model.CanaryWorkload{{Workload: "pay-v2", Service: "pay",
			Verdict: model.CanaryFail, Score: 50, Reason: "critical: latency high", Metrics: []model.Metric{{Name: "latency_p99", Signal: "latency",
				Critical: true, Direction: 1, Result: model.MetricHigh, Bad: true, Canary: 0.6, Baseline: 0.12, Effect: 12, Unit: "s"}}}}},
		Watch: []model.Watch{}}
	for _, c := range []struct {
		format string
		render func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return canary.RenderText(b, rep, 100) }},
		{"markdown", func(b *bytes.Buffer) error { return canary.RenderMarkdown(b, rep) }},
		{"html", func(b *bytes.Buffer) error { return canary.RenderHTML(b, rep) }},
	} {
		var want bytes.Buffer
		if err := c.render(&want); err != nil {
			t.Fatal(err)
		}
		if got := renderFormat(t, rep, c.format); got != want.String() {
			t.Errorf("%s: Render differs from package canary's renderer:\n%s", c.format, reporttest.FirstDiff(got, want.String()))
		}
	}
	if got := renderFormat(t, rep, "json"); !strings.Contains(got, `"mode": "canary"`) || !strings.Contains(got, `"workload": "pay-v2"`) {
		t.Errorf("json: no canary mode or workload in\n%s", got)
	}
}
