package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	mcpserver "github.com/pipeline-analyze/pipeline-analyze/mcp"
)

// TestMCPAnalyzeAgreesWithCLI: the MCP analyze result and the CLI's -o json
// card come from one *analysis.Run and agree field by field — the full
// result's card is the CLI's card, and every summary field is the card's.
func TestMCPAnalyzeAgreesWithCLI(t *testing.T) {
	var stdout bytes.Buffer
	red := &cliio.Redactor{}
	env := cmdEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: io.Discard, explain: io.Discard, red: red}
	args := []string{"-q", "-o", "json"} // the embedded demo
	fs, o := newAnalyzeFlags()
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	r, err := cmdrun.NewAnalyzeRun(env.command(), o, fs.Changed, fs.Args(), &progress.Reporter{Out: io.Discard, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Run(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	// The CLI's report of the run.
	if err := r.Report(run.Card); err != nil {
		t.Fatal(err)
	}
	var cli map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &cli); err != nil {
		t.Fatal(err)
	}
	// The MCP result of the same run (mcp.AnalyzeResult, as the tool builds it).
	res, err := mcpserver.AnalyzeResult(run.Card, true)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res) // what the server sends, before its redactor (which has no secret here)
	if err != nil {
		t.Fatal(err)
	}
	var mcpOut map[string]any
	if err := json.Unmarshal(data, &mcpOut); err != nil {
		t.Fatal(err)
	}
	card, ok := mcpOut["card"].(map[string]any)
	if !ok {
		t.Fatalf("the full MCP result has no card: %.300s", data)
	}
	for k, v := range cli {
		if !reflect.DeepEqual(card[k], v) {
			t.Errorf("card field %s: MCP %.200v, CLI %.200v", k, card[k], v)
		}
	}
	if len(card) != len(cli) {
		t.Errorf("the MCP card has %d fields, the CLI's %d", len(card), len(cli))
	}

	// The summary fields are the card's.
	get := func(m map[string]any, path ...string) any {
		var v any = m
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v
	}
	for _, f := range []struct {
		mcp  string
		card []string
	}{
		{"verdict", []string{"verdict", "text"}}, {"confident", []string{"verdict", "confident"}},
		{"target_chosen_by", []string{"incident", "target_chosen_by"}}, {"at", []string{"incident", "at"}},
		{"at_chosen_by", []string{"incident", "at_chosen_by"}}, {"window_start", []string{"incident", "window_start"}},
		{"window_end", []string{"incident", "window_end"}},
	} {
		if got, want := mcpOut[f.mcp], get(cli, f.card...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: MCP %v, the CLI's card %v", f.mcp, got, want)
		}
	}
	tgt := get(cli, "incident", "target").(map[string]any)
	if want := tgt["service"].(string) + ":" + tgt["signal"].(string) + ":" + tgt["stat"].(string); mcpOut["target"] != want {
		t.Errorf("target: MCP %v, the CLI's card %s", mcpOut["target"], want)
	}
	causes, cliCauses := mcpOut["causes"].([]any), cli["causes"].([]any)
	if len(causes) == 0 || len(causes) != len(cliCauses) {
		t.Fatalf("causes: MCP %d, the CLI's card %d", len(causes), len(cliCauses))
	}
	for i := range causes {
		m, c := causes[i].(map[string]any), cliCauses[i].(map[string]any)
		for _, k := range []string{"rank", "service", "component", "component_kind", "signal", "confidence", "severity", "state"} {
			if !reflect.DeepEqual(m[k], c[k]) {
				t.Errorf("cause %d %s: MCP %v, the CLI's card %v", i+1, k, m[k], c[k])
			}
		}
		if got, want := m["explained_share"], get(c, "intervention", "explained_share"); !reflect.DeepEqual(got, want) {
			t.Errorf("cause %d explained_share: MCP %v, the CLI's card %v", i+1, got, want)
		}
	}
}

// TestMCPCompareDefaults: the MCP compare tool starts from
// cmdrun.DefaultCompareOptions, which must be the compare command's flags'
// defaults.
func TestMCPCompareDefaults(t *testing.T) {
	_, flags := newCompareFlags()
	d := cmdrun.DefaultCompareOptions()
	d.Version = version // the command's; the MCP runner sets it
	if !reflect.DeepEqual(d, flags) {
		t.Errorf("cmdrun.DefaultCompareOptions\n%+v\nthe compare flags' defaults\n%+v", d, flags)
	}
	_, a := newAnalyzeFlags()
	if want := (cmdrun.AnalyzeOptions{Settings: analysis.DefaultSettings(), Output: cmdrun.DefaultOutput(), Live: cmdrun.DefaultLive(),
		Limits: ingest.DefaultLimits(), Version: version}); !reflect.DeepEqual(*a, want) {
		t.Errorf("the analysis' flags' defaults\n%+v, want\n%+v", *a, want)
	}
}
