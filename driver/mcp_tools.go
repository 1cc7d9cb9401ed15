package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
)

// Detail levels of the tools' results.
const (
	detailSummary = "summary"
	detailFull    = "full"
)

// mcpMaxError is the longest tool error in characters (several sources'
// failures can share one).
const mcpMaxError = 1000

// checkDetail checks a detail argument and returns whether it is full.
func checkDetail(d string) (bool, error) {
	switch d {
	case "", detailSummary:
		return false, nil
	case detailFull:
		return true, nil
	}
	return false, fmt.Errorf("detail %q: want summary or full", d)
}

// analyzeInput are the analyze tool's arguments.
type analyzeInput struct {
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories under a root (relative to a root, or absolute inside one); empty: fetch from the server's live sources"`
	At       string   `json:"at,omitempty" jsonschema:"incident time: RFC3339, a unix epoch, or now-15m (now = end of the data); default: the firing alert, else the largest deviation"`
	Window   string   `json:"window,omitempty" jsonschema:"length of the incident window centred on at, e.g. 10m"`
	Baseline string   `json:"baseline,omitempty" jsonschema:"length of the baseline before the window, e.g. 30m (default: all data before it; live: max(6 windows, 30m))"`
	Target   string   `json:"target,omitempty" jsonschema:"the symptom to explain, SERVICE[:SIGNAL[:STAT]], e.g. api-gateway:latency:p99"`
	Method   string   `json:"method,omitempty" jsonschema:"ranking method: tcg (default) or a comparison baseline"`
	Detail   string   `json:"detail,omitempty" jsonschema:"summary (default: verdict, target, top causes with next steps) or full (adds the whole JSON scorecard and its Markdown)"`
}

// explainInput are the explain_cause tool's arguments.
type explainInput struct {
	Rank   int    `json:"rank,omitempty" jsonschema:"the cause's rank in the last analyze result (1 = top; default 1)"`
	Detail string `json:"detail,omitempty" jsonschema:"summary (default: the first evidence and trace IDs) or full (all of them and the score's dimensions)"`
}

// compareInput are the compare tool's arguments.
type compareInput struct {
	Paths         []string `json:"paths,omitempty" jsonschema:"BEFORE AFTER (two inputs under the roots), or one DATA with before_at and after_at; canary mode: the DATA; empty: the server's live sources"`
	BeforeAt      string   `json:"before_at,omitempty" jsonschema:"centre of BEFORE's window (RFC3339, unix epoch or now-15m); default: its alert, else its largest deviation"`
	AfterAt       string   `json:"after_at,omitempty" jsonschema:"centre of AFTER's window; default: the last window of AFTER's data"`
	Window        string   `json:"window,omitempty" jsonschema:"length of each window, e.g. 10m"`
	Target        string   `json:"target,omitempty" jsonschema:"SERVICE[:SIGNAL[:STAT]] whose verdict is the answer (default: from the alert)"`
	Canary        string   `json:"canary,omitempty" jsonschema:"canary mode: auto, version=v2, pod-template-hash=HASH, or a ReplicaSet or workload name"`
	BaselineGroup string   `json:"baseline_group,omitempty" jsonschema:"canary mode: the baseline pods, as canary selects (default: the canary's other pods)"`
	Detail        string   `json:"detail,omitempty" jsonschema:"summary (default: verdict and the top findings) or full (the whole report without its plot data)"`
	Profile       bool     `json:"profile,omitempty" jsonschema:"profiler A/B: paths are BASE CAND, each a PyTorch profiler (Kineto) trace, an Nsight Systems SQLite export or a directory of one per rank; the step, layers and kernels compared (the other options do not apply)"`
}

// listInput are the list_inputs tool's arguments.
type listInput struct {
	Paths  []string `json:"paths,omitempty" jsonschema:"files or directories under the roots to read; empty: list what the roots hold"`
	Detail string   `json:"detail,omitempty" jsonschema:"summary (default: formats, counts, time range, the first warnings) or full (every input and warning)"`
}

// addTools registers the four tools. Each call runs alone (s.mu), its
// arguments are checked for URLs first, a panic is a tool error (the
// server keeps serving; one on a goroutine the call started reaches the
// call through internal/parallel, see TestGoroutinesCarryPanics), and its
// result passes the redactor.
func (s *mcpServer) addTools(srv *mcp.Server) {
	addTool(s, srv, &mcp.Tool{Name: "analyze", Description: "Find the root cause of an incident: " +
		"the verdict, the ranked causes with confidence, counterfactual and next steps (the CLI's scorecard). " +
		"paths: incident files or directories under the server's roots."}, s.analyze)
	addTool(s, srv, &mcp.Tool{Name: "explain_cause", Description: "One cause of the last analyze result in depth: " +
		"its evidence, propagation path to the symptom, counterfactual (do-intervention), trace IDs and next steps."}, s.explainCause)
	addTool(s, srv, &mcp.Tool{Name: "compare", Description: "Did the fix work? Compares BEFORE and AFTER entity by entity " +
		"(fixed, improved, unchanged, regressed); with canary, judges a rollout's pods against their baseline pods (pass, marginal, fail); " +
		"with profile, compares two profiler captures (Kineto, Nsight) step, layer and kernel (faster, slower, unchanged)."}, s.compare)
	addTool(s, srv, &mcp.Tool{Name: "list_inputs", Description: "What the analysis would read: each input's format, counts and time range, " +
		"and the data-quality warnings; without paths, what the server's roots hold."}, s.listInputs)
}

// addTool adds one tool whose handler returns its result, the result's
// one-line text and an error. The result's output schema is derived from
// Out; what leaves the server is Out's JSON after the redactor
// (redactedJSON), so that no secret a server echoed reaches the client.
func addTool[In, Out any](s *mcpServer, srv *mcp.Server, t *mcp.Tool, h func(context.Context, In) (Out, string, error)) {
	rt := reflect.TypeFor[Out]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	schema, err := jsonschema.ForType(rt, &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcp tool %s: output schema: %v", t.Name, err)) // a programmer error, caught by the tests
	}
	t.OutputSchema = schema
	mcp.AddTool(srv, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out redactedJSON, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		defer debug.FreeOSMemory() // a long-lived server gives a large run's memory back
		defer func() {
			if p := recover(); p != nil {
				res, out, err = nil, redactedJSON{}, fmt.Errorf("internal error: %v", p)
				fmt.Fprintf(s.stderr, "pipeline-analyze mcp: %s: internal error: %v\n", t.Name, p)
				stack := debug.Stack()
				if gp, ok := p.(*parallel.Panic); ok {
					stack = gp.Stack // where it happened, on the goroutine the call started
				}
				for _, l := range strings.Split(string(stack), "\n") {
					fmt.Fprintf(s.stderr, "  %s\n", l)
				}
			}
			if err != nil {
				err = errors.New(escapeText(s.red.replace(err.Error()), mcpMaxError))
			}
		}()
		if err := checkNoURLs(in); err != nil {
			return nil, out, err
		}
		o, text, err := h(ctx, in)
		if err != nil {
			return nil, out, err
		}
		out = redactedJSON{v: o, red: s.red}
		data, err := out.MarshalJSON()
		if err != nil {
			return nil, redactedJSON{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: s.red.replace(text)},
			&mcp.TextContent{Text: string(data)},
		}}, out, nil
	})
}

// redactedJSON is a tool's result as it leaves the server: the JSON of v
// with the redactor's secrets replaced.
type redactedJSON struct {
	v   any
	red *redactor
}

// MarshalJSON is v's JSON after the redactor.
func (r redactedJSON) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(r.v)
	if err != nil {
		return nil, err
	}
	return []byte(r.red.replace(string(data))), nil
}

// runArgs are the command-line arguments of a run a tool starts: the
// server's flags, then the tool's options as --name=value (a value can
// never be taken for a flag), then the paths after "--".
func (s *mcpServer) runArgs(opts [][2]string, paths []string) []string {
	args := append([]string(nil), s.flagArgs...)
	for _, o := range opts {
		if o[1] != "" {
			args = append(args, "--"+o[0]+"="+o[1])
		}
	}
	return append(append(args, "--"), paths...)
}

// needPaths refuses a call without paths when the server has no live
// sources.
func (s *mcpServer) needPaths(paths []string) error {
	if len(paths) == 0 && !s.live {
		return fmt.Errorf("paths: name files or directories under the roots (%s); the server has no live sources", strings.Join(s.roots, ", "))
	}
	return nil
}

// analyze runs the CLI's analysis (analyzeRun.run: analysis.Analyze) on the paths or the
// live sources and keeps the card for explain_cause.
func (s *mcpServer) analyze(ctx context.Context, in analyzeInput) (*analyzeOutput, string, error) {
	s.last = nil
	full, err := checkDetail(in.Detail)
	if err != nil {
		return nil, "", err
	}
	paths, err := s.resolveAll(in.Paths)
	if err != nil {
		return nil, "", err
	}
	if err := s.needPaths(paths); err != nil {
		return nil, "", err
	}
	o, changed, err := s.analyzeOptions(in)
	if err != nil {
		return nil, "", err
	}
	var stderr bytes.Buffer
	se := newSafeWriter(&stderr, s.red, maxErrLine)
	env := cmdEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: se, explain: io.Discard, red: s.red} // stdout is the protocol
	r, err := newAnalyzeRun(env, o, func(flag string) bool { return changed[flag] }, paths, &reporter{w: se, quiet: true})
	if err != nil {
		return nil, "", runError(err.Error())
	}
	// The card's rerun line is the CLI command that reproduces the call.
	run, err := r.run(ctx, s.runArgs([][2]string{{"at", in.At}, {"window", in.Window}, {"baseline", in.Baseline}, {"target", in.Target}, {"method", in.Method}}, paths))
	se.Flush()
	if err != nil {
		return nil, "", runError(stderr.String())
	}
	s.last = run.Card
	out, err := analyzeResult(run.Card, full)
	if err != nil {
		return nil, "", err
	}
	return out, run.Card.Verdict.Text, nil
}

// analyzeOptions are the analysis command's options of an analyze call:
// the defaults, the server's limits and live sources, and the call's
// arguments; changed names the flags the call set.
func (s *mcpServer) analyzeOptions(in analyzeInput) (*analyzeOpts, map[string]bool, error) {
	o := &analyzeOpts{af: defaultAnalysisFlags(), of: defaultOutputFlags(), lf: s.lf, lim: s.lim}
	changed := map[string]bool{}
	set := func(flag, value string, to *string) {
		if value != "" {
			*to, changed[flag] = value, true
		}
	}
	set("at", in.At, &o.af.At)
	set("target", in.Target, &o.af.Target)
	set("method", in.Method, &o.af.Method)
	if err := toolDuration("window", in.Window, &o.af.Window, changed); err != nil {
		return nil, nil, err
	}
	if err := toolDuration("baseline", in.Baseline, &o.af.Baseline, changed); err != nil {
		return nil, nil, err
	}
	return o, changed, nil
}

// explainCause explains one cause of the last analysis.
func (s *mcpServer) explainCause(_ context.Context, in explainInput) (*explainOutput, string, error) {
	full, err := checkDetail(in.Detail)
	if err != nil {
		return nil, "", err
	}
	if s.last == nil {
		return nil, "", errors.New("no analysis yet (or the last one failed): call analyze first")
	}
	rank := in.Rank
	if rank == 0 {
		rank = 1
	}
	if len(s.last.Causes) == 0 {
		return nil, "", fmt.Errorf("the last analysis has no causes to explain (%s)", s.last.Verdict.Text)
	}
	for i := range s.last.Causes {
		if c := &s.last.Causes[i]; c.Rank == rank {
			out := explainResult(s.last, c, full)
			return out, fmt.Sprintf("cause %d: %s %s on %s (%s), confidence %s", c.Rank, c.Service, c.Signal, c.Component, c.ComponentKind, fmtNum(c.Confidence)), nil
		}
	}
	return nil, "", fmt.Errorf("rank %d: the last analysis has %d causes (ranks 1 to %d)", rank, len(s.last.Causes), len(s.last.Causes))
}

// compare runs the CLI's comparison (compareCall: before/after or canary
// mode) on the paths or the live sources, and reads its report.
func (s *mcpServer) compare(_ context.Context, in compareInput) (*compareOutput, string, error) {
	full, err := checkDetail(in.Detail)
	if err != nil {
		return nil, "", err
	}
	paths, err := s.resolveAll(in.Paths)
	if err != nil {
		return nil, "", err
	}
	if err := s.needPaths(paths); err != nil {
		return nil, "", err
	}
	if in.Profile {
		return s.compareProfile(in, paths, full)
	}
	c := defaultCompareOpts()
	c.quiet, c.format, c.lim, c.lf = true, "json", s.lim, s.lf
	changed := map[string]bool{}
	set := func(flag, value string, to *string) {
		if value != "" {
			*to, changed[flag] = value, true
		}
	}
	set("before-at", in.BeforeAt, &c.beforeAt)
	set("after-at", in.AfterAt, &c.afterAt)
	set("target", in.Target, &c.af.Target)
	set("canary", in.Canary, &c.canary.Canary)
	set("baseline-group", in.BaselineGroup, &c.canary.Baseline)
	if err := toolDuration("window", in.Window, &c.af.Window, changed); err != nil {
		return nil, "", err
	}
	// The report's rerun line is the CLI command that reproduces the call.
	opts := [][2]string{{"before-at", in.BeforeAt}, {"after-at", in.AfterAt}, {"window", in.Window}, {"target", in.Target},
		{"canary", in.Canary}, {"baseline-group", in.BaselineGroup}}
	var stderr bytes.Buffer
	se := newSafeWriter(&stderr, s.red, maxErrLine)
	cc := compareCall{c: c, changed: func(flag string) bool { return changed[flag] }, paths: paths,
		args: append([]string{"-q", "-o", "json"}, s.runArgs(opts, paths)...), stdin: strings.NewReader(""), stdout: io.Discard, stderr: se}
	var rep *compare.Report
	if changed["canary"] {
		rep, _ = cc.canaryReport()
	} else {
		rep, _ = cc.report()
	}
	se.Flush()
	if rep == nil {
		return nil, "", runError(stderr.String())
	}
	out := compareResult(rep, full)
	return out, out.Verdict, nil
}

// toolDuration sets *to from a tool's duration argument (when given) and
// marks its flag changed; a bad value is refused in the words of the
// command line's flag parser (pflag's duration).
func toolDuration(flag, value string, to *time.Duration, changed map[string]bool) error {
	if value == "" {
		return nil
	}
	v, err := time.ParseDuration(value)
	if err != nil {
		return fmt.Errorf(`invalid argument %q for %q flag: must be a duration like "30s" or "5m"`, value, "--"+flag)
	}
	*to, changed[flag] = v, true
	return nil
}

// listInputs reads the paths as the analysis would and says what they
// hold; without paths, it lists the roots.
func (s *mcpServer) listInputs(_ context.Context, in listInput) (*listOutput, string, error) {
	full, err := checkDetail(in.Detail)
	if err != nil {
		return nil, "", err
	}
	if len(in.Paths) == 0 {
		out := s.listRoots()
		return out, fmt.Sprintf("%d roots; live sources: %s", len(out.Roots), suggest.OrNone(strings.Join(out.Live, ", "))), nil
	}
	paths, err := s.resolveAll(in.Paths)
	if err != nil {
		return nil, "", err
	}
	work, err := os.MkdirTemp("", "pipeline-analyze-mcp-*")
	if err != nil {
		return nil, "", err
	}
	untrack := trackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	b, err := features.Read(paths, strings.NewReader(""), ingest.Options{Limits: s.lim, TempDir: work}, features.Options{})
	if err != nil {
		return nil, "", err
	}
	out := listResult(b, full)
	skipped := 0
	for _, in := range b.Inputs {
		if in.Skipped {
			skipped++
		}
	}
	text := fmt.Sprintf("%s (%d skipped): %d spans, %d series, %d log records", plural(len(b.Inputs), "input"),
		skipped, len(b.Spans), len(b.Series), len(b.Logs))
	if b.End != 0 {
		text += ", " + analysis.DataRange(b)
	}
	return out, text, nil
}
