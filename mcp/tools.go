package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

// Detail levels of the tools' results.
const (
	detailSummary = "summary"
	detailFull    = "full"
)

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

// AnalyzeInput are the analyze tool's arguments.
type AnalyzeInput struct {
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories under a root (relative to a root, or absolute inside one); empty: fetch from the server's live sources"`
	At       string   `json:"at,omitempty" jsonschema:"incident time: RFC3339, a unix epoch, or now-15m (now = end of the data); default: the firing alert, else the largest deviation"`
	Window   string   `json:"window,omitempty" jsonschema:"length of the incident window centred on at, e.g. 10m"`
	Baseline string   `json:"baseline,omitempty" jsonschema:"length of the baseline before the window, e.g. 30m (default: all data before it; live: max(6 windows, 30m))"`
	Target   string   `json:"target,omitempty" jsonschema:"the symptom to explain, SERVICE[:SIGNAL[:STAT]], e.g. api-gateway:latency:p99"`
	Method   string   `json:"method,omitempty" jsonschema:"ranking method: tcg (default) or a comparison baseline"`
	Detail   string   `json:"detail,omitempty" jsonschema:"summary (default: verdict, target, top causes with next steps) or full (adds the whole JSON scorecard and its Markdown)"`
}

// ExplainInput are the explain_cause tool's arguments.
type ExplainInput struct {
	Rank   int    `json:"rank,omitempty" jsonschema:"the cause's rank in the last analyze result (1 = top; default 1)"`
	Detail string `json:"detail,omitempty" jsonschema:"summary (default: the first evidence and trace IDs) or full (all of them and the score's dimensions)"`
}

// CompareInput are the compare tool's arguments.
type CompareInput struct {
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

// ListInput are the list_inputs tool's arguments.
type ListInput struct {
	Paths  []string `json:"paths,omitempty" jsonschema:"files or directories under the roots to read; empty: list what the roots hold"`
	Detail string   `json:"detail,omitempty" jsonschema:"summary (default: formats, counts, time range, the first warnings) or full (every input and warning)"`
}

// addTools registers the four tools. Each call runs alone (s.mu), its
// arguments are checked for URLs first, a panic is a tool error (the
// server keeps serving; one on a goroutine the call started reaches the
// call through internal/parallel, see TestGoroutinesCarryPanics), and its
// result passes the redactor.
func (s *Server) addTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "analyze", Description: "Find the root cause of an incident: " +
		"the verdict, the ranked causes with confidence, counterfactual and next steps (the CLI's scorecard). " +
		"paths: incident files or directories under the server's roots."}, s.analyze)
	addTool(s, srv, &sdk.Tool{Name: "explain_cause", Description: "One cause of the last analyze result in depth: " +
		"its evidence, propagation path to the symptom, counterfactual (do-intervention), trace IDs and next steps."}, s.explainCause)
	addTool(s, srv, &sdk.Tool{Name: "compare", Description: "Did the fix work? Compares BEFORE and AFTER entity by entity " +
		"(fixed, improved, unchanged, regressed); with canary, judges a rollout's pods against their baseline pods (pass, marginal, fail); " +
		"with profile, compares two profiler captures (Kineto, Nsight) step, layer and kernel (faster, slower, unchanged)."}, s.compare)
	addTool(s, srv, &sdk.Tool{Name: "list_inputs", Description: "What the analysis would read: each input's format, counts and time range, " +
		"and the data-quality warnings; without paths, what the server's roots hold."}, s.ListInputs)
}

// addTool adds one tool whose handler returns its result, the result's
// one-line text and an error. The result's output schema is derived from
// Out; what leaves the server is Out's JSON after the redactor
// (redactedJSON), so that no secret a server echoed reaches the client.
func addTool[In, Out any](s *Server, srv *sdk.Server, t *sdk.Tool, h func(context.Context, In) (Out, string, error)) {
	rt := reflect.TypeFor[Out]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	schema, err := jsonschema.ForType(rt, &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcp tool %s: output schema: %v", t.Name, err)) // a programmer error, caught by the tests
	}
	t.OutputSchema = schema
	sdk.AddTool(srv, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out redactedJSON, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		defer debug.FreeOSMemory() // a long-lived server gives a large run's memory back
		defer func() {
			if p := recover(); p != nil {
				res, out, err = nil, redactedJSON{}, fmt.Errorf("internal error: %v", p)
				fmt.Fprintf(s.Stderr, "pipeline-analyze mcp: %s: internal error: %v\n", t.Name, p)
				stack := debug.Stack()
				if gp, ok := p.(*parallel.Panic); ok {
					stack = gp.Stack // where it happened, on the goroutine the call started
				}
				for _, l := range strings.Split(string(stack), "\n") {
					fmt.Fprintf(s.Stderr, "  %s\n", l)
				}
			}
			if err != nil {
				err = errors.New(s.Clean(err.Error()))
			}
		}()
		if err := checkNoURLs(in); err != nil {
			return nil, out, err
		}
		o, text, err := h(ctx, in)
		if err != nil {
			return nil, out, err
		}
		out = redactedJSON{v: o, redact: s.Redact}
		data, err := out.MarshalJSON()
		if err != nil {
			return nil, redactedJSON{}, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: s.Redact(text)},
			&sdk.TextContent{Text: string(data)},
		}}, out, nil
	})
}

// redactedJSON is a tool's result as it leaves the server: the JSON of v
// with the redactor's secrets replaced.
type redactedJSON struct {
	v      any
	redact func(string) string
}

// MarshalJSON is v's JSON after the redactor.
func (r redactedJSON) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(r.v)
	if err != nil {
		return nil, err
	}
	return []byte(r.redact(string(data))), nil
}

// needPaths refuses a call without paths when the server has no live
// sources.
func (s *Server) needPaths(paths []string) error {
	if len(paths) == 0 && !s.Live {
		return fmt.Errorf("paths: name files or directories under the roots (%s); the server has no live sources", strings.Join(s.Roots, ", "))
	}
	return nil
}

// analyze runs the CLI's analysis (the Runner: analysis.Analyze with the
// call's options) on the paths or the live sources and keeps the card for
// explain_cause.
func (s *Server) analyze(ctx context.Context, in AnalyzeInput) (*AnalyzeOutput, string, error) {
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
	run, err := s.Runner.Analyze(ctx, paths, in)
	if err != nil {
		return nil, "", err
	}
	s.last = run.Card
	out, err := AnalyzeResult(run.Card, full)
	if err != nil {
		return nil, "", err
	}
	return out, run.Card.Verdict.Text, nil
}

// explainCause explains one cause of the last analysis.
func (s *Server) explainCause(_ context.Context, in ExplainInput) (*ExplainOutput, string, error) {
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

// compare runs the CLI's comparison (the Runner: before/after, canary or
// profile mode) on the paths or the live sources, and reads its report.
func (s *Server) compare(ctx context.Context, in CompareInput) (*CompareOutput, string, error) {
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
		return s.compareProfile(ctx, in, paths, full)
	}
	rep, err := s.Runner.Compare(ctx, paths, in)
	if err != nil {
		return nil, "", err
	}
	out := compareResult(rep, full)
	return out, out.Verdict, nil
}

// ListInputs reads the paths as the analysis would and says what they
// hold; without paths, it lists the roots.
func (s *Server) ListInputs(_ context.Context, in ListInput) (*ListOutput, string, error) {
	full, err := checkDetail(in.Detail)
	if err != nil {
		return nil, "", err
	}
	if len(in.Paths) == 0 {
		out := s.listRoots()
		return out, fmt.Sprintf("%d roots; live sources: %s", len(out.Roots), orNone(strings.Join(out.Live, ", "))), nil
	}
	paths, err := s.resolveAll(in.Paths)
	if err != nil {
		return nil, "", err
	}
	b, err := s.Runner.Read(paths)
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
