// Package eval scores the analysis against labelled cases (a directory
// holding a label.json each): AC@1, AC@3, AC@5 and Avg@5 at service level
// and AC@1 at component level, per fault and overall, for each method; the
// split into design and check halves (eval --split); the score weights
// fitted on the cases, leave-one-set-out (--fit, --leave-one-out). It runs
// analysis.AnalyzeBundle on every case; the eval command (driver) is its
// flag wiring.
package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// label is the ground truth of a case.
type label struct {
	RootCause struct {
		Service   string `json:"service"`
		Component string `json:"component"`
		Signal    string `json:"signal"`
	} `json:"root_cause"`
	Fault      string `json:"fault"`
	InjectTime string `json:"inject_time"`
}

// caseResult is one case × method.
type caseResult struct {
	Case      string   `json:"case"`
	Fault     string   `json:"fault"`
	Method    string   `json:"method"`
	Truth     string   `json:"truth_service"`
	TruthComp string   `json:"truth_component"`
	Services  []string `json:"ranked_services"` // first 5 distinct
	Top       string   `json:"top_component"`
	Rank      int      `json:"rank"` // 1-based service rank of the truth, 0 = not in top 5
	CompHit   bool     `json:"component_hit"`
	// CompHit3 is whether one of the first three distinct components is
	// the true one.
	CompHit3  bool            `json:"component_hit3"`
	Confident bool            `json:"confident"`
	Error     string          `json:"error,omitempty"`
	Seconds   float64         `json:"seconds"`
	Set       string          `json:"set"`
	evidence  []string        // JSON lines of node evidence (--dump-evidence)
	scored    []causal.Scored // the default method's candidates (for --fit)
	// topP is the first cause's confidence as the card shows it (its
	// service's probability after the order rules; uncalibrated in the
	// held-out reruns, which run without a calibration); 0 without one.
	topP float64
}

// evalSummary aggregates per fault and method.
type evalSummary struct {
	Fault  string  `json:"fault"`
	Method string  `json:"method"`
	N      int     `json:"n"`
	AC1    float64 `json:"ac1"`
	AC3    float64 `json:"ac3"`
	AC5    float64 `json:"ac5"`
	Avg5   float64 `json:"avg5"`
	Comp1  float64 `json:"component_ac1"`
	Comp3  float64 `json:"component_ac3"`
	Failed int     `json:"failures"`
}

// Config is one evaluation: the cases, the methods and the analysis'
// options every case runs with, and what to print.
type Config struct {
	Roots   []string // the directories given: a case's set is the root it was found under
	Cases   []string // the case directories (FindCases)
	Methods []string // the methods scored, the default (fitted) one first
	Split   string   // SplitAll, SplitDesign or SplitCheck

	Spec   tcg.IncidentSpec  // the incident of every case (its time from At)
	At     analysis.TimeSpec // --at, resolved against each case's data
	Graph  tcg.Options       // the graph's options
	Causal causal.Options    // the ranking's options (Method: each of Methods in turn)

	Jobs        int                     // cases analysed in parallel
	Dump        func(data []byte) error // receives every case's node evidence as JSON lines; nil: none
	Fit         bool                    // fit the default method's score weights and print them
	LeaveOneOut bool                    // with Fit: per set, weights fitted on the other sets
	JSON        bool                    // print JSON instead of tables
	Quiet       bool                    // no progress on stderr
}

// Run analyses and scores the cases and prints the tables (or JSON) on
// stdout, progress on stderr.
func Run(cfg Config, stdout, stderr io.Writer) error {
	cases, ms, spec, at, topt, copt := cfg.Cases, cfg.Methods, cfg.Spec, cfg.At, cfg.Graph, cfg.Causal
	half := caseHalves(describeCases(cases, cfg.Roots))
	// With --split check and --fit, the weights are fitted on the design
	// half: both halves are analysed, the check half scored.
	fitOnDesign := cfg.Split == SplitCheck && (cfg.Fit || cfg.LeaveOneOut)
	var kept []string
	for _, c := range cases {
		if cfg.Split == SplitAll || half[c] == cfg.Split || fitOnDesign {
			kept = append(kept, c)
		}
	}
	cases = kept
	// run evaluates the cases (indices into cases) with the methods ms and
	// the causal options co, cfg.Jobs at a time.
	run := func(idx []int, ms []string, co causal.Options, progress bool) [][]caseResult {
		results := make([][]caseResult, len(idx))
		var wg sync.WaitGroup
		next := make(chan int)
		var mu sync.Mutex
		done := 0
		for w := 0; w < max(1, cfg.Jobs); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					i := idx[k]
					results[k] = evalCaseSafe(cases[i], ms, spec, at, topt, co, cfg.Dump != nil && progress)
					for j := range results[k] {
						results[k][j].Set = setOf(cases[i], cfg.Roots)
					}
					mu.Lock()
					done++
					if !cfg.Quiet && progress && cfg.Split != SplitCheck {
						r := results[k][0]
						fmt.Fprintf(stderr, "[%d/%d] %s %s: truth %s, top %v (%.2fs)\n", done, len(idx), r.Case, r.Fault, r.Truth, first(r.Services, 3), r.Seconds)
					}
					mu.Unlock()
				}
			}()
		}
		for k := range idx {
			next <- k
		}
		close(next)
		wg.Wait()
		return results
	}
	all := make([]int, len(cases))
	for i := range all {
		all[i] = i
	}
	results := run(all, ms, copt, true)
	// flat are the results scored (the chosen half); design are the
	// design half's, on which --split check fits.
	var flat, design []caseResult
	var scoredIdx []int
	for k, r := range results {
		if cfg.Split == SplitAll || half[cases[k]] == cfg.Split {
			flat = append(flat, r...)
			scoredIdx = append(scoredIdx, k)
		} else {
			design = append(design, r...)
		}
	}
	if cfg.Dump != nil {
		var sb strings.Builder
		for _, r := range results {
			for _, line := range r[0].evidence {
				sb.WriteString(line)
				sb.WriteByte('\n')
			}
		}
		if err := cfg.Dump([]byte(sb.String())); err != nil {
			return err
		}
	}
	sum := summarize(flat, ms)
	perSet := summarizeSets(flat, ms)
	if cfg.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		out := struct {
			Split   string        `json:"split"`
			Cases   []caseResult  `json:"cases,omitempty"`
			Summary []evalSummary `json:"summary,omitempty"`
			Sets    []setSummary  `json:"sets"`
		}{Split: cfg.Split, Cases: flat, Summary: sum, Sets: perSet}
		if cfg.Split == SplitCheck {
			out.Cases, out.Summary = nil, nil // aggregates per set only
		}
		return enc.Encode(out)
	}
	if cfg.Split != SplitCheck {
		printEval(stdout, flat, sum, ms)
	} else {
		printEvalOverall(stdout, flat, sum, ms)
	}
	printSets(stdout, perSet, cfg.Split)
	if cfg.Fit || cfg.LeaveOneOut {
		var rerun heldOutRun
		if (cfg.LeaveOneOut || fitOnDesign) && slices.Contains(ms, causal.DefaultMethod) {
			rerun = func(set string, weights map[string]float64, none float64) []caseResult {
				var idx []int
				for _, i := range scoredIdx {
					if setOf(cases[i], cfg.Roots) == set {
						idx = append(idx, i)
					}
				}
				p := causal.DefaultParams()
				if copt.Params != nil {
					p = *copt.Params
				}
				p.Weights, p.NoneScore = weights, none
				// Uncalibrated: the calibration of what the card shows is
				// fitted on these probabilities (printFit).
				p.Calibration = causal.Calibration{}
				co := copt
				co.Method, co.Params = causal.DefaultMethod, &p
				var out []caseResult
				for _, r := range run(idx, []string{causal.DefaultMethod}, co, false) {
					out = append(out, r...)
				}
				return out
			}
		}
		train := trainingCases(flat)
		if fitOnDesign {
			train = trainingCases(design)
		}
		printFit(stdout, train, trainingCases(flat), fitOnDesign, copt.Ablate, cfg.LeaveOneOut, rerun)
	}
	return nil
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// FindCases returns every directory under the roots holding a label.json.
func FindCases(roots []string) ([]string, error) {
	var out []string
	for _, r := range roots {
		err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == "label.json" {
				out = append(out, filepath.Dir(p))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", r, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// evalCaseSafe is evalCase with a panic in one case's analysis turned
// into that case's failure (counted as a miss, its message in the table's
// failures), so that one case cannot end an evaluation of hundreds.
func evalCaseSafe(dir string, methods []string, spec tcg.IncidentSpec, at analysis.TimeSpec, topt tcg.Options, copt causal.Options, dump bool) (out []caseResult) {
	defer func() {
		if v := recover(); v != nil {
			out = nil
			for _, m := range methods {
				out = append(out, caseResult{Case: filepath.Base(dir), Method: m, Error: fmt.Sprintf("internal error (panic): %v", v)})
			}
		}
	}()
	return evalOneCase(dir, methods, spec, at, topt, copt, dump)
}

// evalOneCase analyses one case (evalCase; a test replaces it).
var evalOneCase = evalCase

func evalCase(dir string, methods []string, spec tcg.IncidentSpec, at analysis.TimeSpec, topt tcg.Options, copt causal.Options, dump bool) []caseResult {
	var lb label
	name := filepath.Base(dir)
	fail := func(err error) []caseResult {
		var out []caseResult
		for _, m := range methods {
			out = append(out, caseResult{Case: name, Fault: lb.Fault, Method: m, Truth: lb.RootCause.Service, Error: err.Error()})
		}
		return out
	}
	data, err := boundedfile.ReadFile(filepath.Join(dir, "label.json"), ingest.DefaultLimits().MaxDocumentBytes, "")
	if err == nil {
		err = json.Unmarshal(data, &lb)
	}
	if err != nil {
		return fail(fmt.Errorf("label: %w", err))
	}
	start := time.Now()
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		return fail(err)
	}
	readTime := time.Since(start)
	var out []caseResult
	var g *tcg.Graph
	wb := b // the window's view of the bundle, once the first method built it
	for _, m := range methods {
		t0 := time.Now()
		o := copt
		o.Method = m
		o.MaxCauses = 100 // the service ranking looks past the card's ten
		r := caseResult{Case: name, Fault: lb.Fault, Method: m, Truth: lb.RootCause.Service, TruthComp: lb.RootCause.Component}
		var res *causal.Result
		if g == nil {
			an, err := analysis.AnalyzeBundle(b, spec, at, topt, o)
			if err != nil {
				r.Error = err.Error()
				out = append(out, r)
				continue
			}
			g, res, wb = an.Graph, an.Result, an.Bundle
		} else {
			res, err = causal.Analyze(g, wb, o)
			if err != nil {
				r.Error = err.Error()
				out = append(out, r)
				continue
			}
		}
		seen := map[string]bool{}
		for _, c := range res.Candidates {
			if !seen[c.Service] {
				seen[c.Service] = true
				r.Services = append(r.Services, c.Service)
			}
		}
		for i, s := range first(r.Services, 5) {
			if sameComponent(s, lb.RootCause.Service) {
				r.Rank = i + 1
				break
			}
		}
		if len(res.Candidates) > 0 {
			c := res.Candidates[0]
			r.Top = c.Component
			r.topP = c.Confidence
			isEnt := namesEntity(wb, lb.RootCause.Component)
			r.CompHit = componentMatches(c, g, isEnt, lb.RootCause.Component, lb.RootCause.Service, lb.RootCause.Signal)
			seenComp := map[string]bool{}
			for _, c := range res.Candidates {
				if len(seenComp) == 3 {
					break
				}
				key := c.ComponentKind.String() + "/" + c.Component
				if seenComp[key] {
					continue
				}
				seenComp[key] = true
				if componentMatches(c, g, isEnt, lb.RootCause.Component, lb.RootCause.Service, lb.RootCause.Signal) {
					r.CompHit3 = true
					break
				}
			}
		}
		r.Services = first(r.Services, 5)
		r.Confident = res.Confident
		r.scored = res.Scored
		if dump && len(out) == 0 && g != nil {
			r.evidence = dumpEvidence(name, lb, wb, g)
		}
		r.Seconds = (time.Since(t0) + readTime).Seconds()
		out = append(out, r)
	}
	return out
}

// sameComponent reports whether two service names name one component:
// equal, or two service-map vertices of it (ingest.ComponentBase: a label
// may name a Lambda by any of its X-Ray names).
func sameComponent(a, b string) bool {
	if a == b {
		return true
	}
	return ingest.ComponentBase(a) == ingest.ComponentBase(b) && (strings.Contains(a, "_AWS::") || strings.Contains(b, "_AWS::"))
}

// componentMatches reports whether a candidate names the labelled
// component strictly: the part an on-call acts on (a pod, GPU, node or
// workload) itself, never a neighbour of it.
//
//   - A label naming the whole workload (comp == svc) is hit by a candidate
//     of that service that is the workload, one of its pods or its rollout;
//     not by a GPU, node or call edge.
//   - A label naming a release ("deployment/router", "cart-v2": the new
//     version's workload) is hit by a rollout of that service (package
//     peers) or by the service's change; a label naming the workload by
//     kind ("deployment/router") also by a candidate of that service
//     whose signal is the label's.
//   - A label naming a call edge ("caller->callee") is hit by the callee
//     itself (its workload or a pod of it: what is slow or failing on the
//     far side), never by the edge.
//   - Any other label names an entity: hit by the candidate that is that
//     entity (the pod, the GPU UUID, the node), or, when the label names
//     no entity of the bundle, by a candidate of that service and signal.
//
// A call edge is never a hit (issue 41: an edge is not something one can
// restart, drain or roll back), nor is a GPU or node for a pod it serves.
func componentMatches(c causal.Candidate, g *tcg.Graph, isEntity bool, comp, svc, signal string) bool {
	if comp == "" || c.ComponentKind == ingest.KindEdge {
		return false
	}
	workloadPart := func() bool { // the service's workload, a pod of it, or its rollout
		if c.Service != svc {
			return false
		}
		switch c.ComponentKind {
		case ingest.KindService, ingest.KindPod, ingest.KindRollout:
			return true
		}
		return false
	}
	if comp == svc {
		return workloadPart()
	}
	if caller, callee, ok := strings.Cut(comp, "->"); ok && caller != "" && callee != "" {
		return c.Service == callee && (c.ComponentKind == ingest.KindService || c.ComponentKind == ingest.KindPod)
	}
	kind, name, byKind := strings.Cut(comp, "/")
	byKind = byKind && !isEntity && workloadKinds[strings.ToLower(kind)]
	release := byKind || !isEntity && strings.HasPrefix(comp, svc+"-")
	if c.ComponentKind == ingest.KindRollout {
		if c.Service != svc {
			return false
		}
		return comp == c.Component || release || byKind && (name == c.Component || name == ingest.WorkloadOf(c.Component))
	}
	if release && c.Service == svc && c.Signal == ingest.SignalChange {
		return true // the service's change: the release itself
	}
	if byKind {
		return c.Service == name && signal != "" && c.Signal.String() == signal &&
			(c.ComponentKind == ingest.KindService || c.ComponentKind == ingest.KindPod)
	}
	if !isEntity {
		return signal != "" && c.Signal.String() == signal && workloadPart()
	}
	if c.Component == comp {
		return true
	}
	// A GPU candidate is named by its UUID; a node by its name: both are
	// the Component. A pod's candidate may be its service's node when the
	// service has that one pod (tcg.Graph.SinglePod maps it).
	if g != nil && c.ComponentKind == ingest.KindService && g.SinglePod[c.Service] == comp {
		return true
	}
	return false
}

// workloadKinds are the Kubernetes kinds a component label may name a
// workload by ("deployment/router").
var workloadKinds = map[string]bool{"deployment": true, "statefulset": true, "daemonset": true, "replicaset": true, "job": true, "cronjob": true}

func summarize(rs []caseResult, methods []string) []evalSummary {
	faults := map[string]bool{}
	for _, r := range rs {
		faults[r.Fault] = true
	}
	names := make([]string, 0, len(faults))
	for f := range faults {
		names = append(names, f)
	}
	sort.Strings(names)
	names = append(names, "overall")
	var out []evalSummary
	for _, f := range names {
		for _, m := range methods {
			s := evalSummary{Fault: f, Method: m}
			for _, r := range rs {
				if r.Method != m || (f != "overall" && r.Fault != f) {
					continue
				}
				s.N++
				if r.Error != "" {
					s.Failed++
					continue
				}
				if r.Rank == 1 {
					s.AC1++
				}
				if r.Rank >= 1 && r.Rank <= 3 {
					s.AC3++
				}
				if r.Rank >= 1 && r.Rank <= 5 {
					s.AC5++
				}
				if r.Rank >= 1 {
					s.Avg5 += float64(6-r.Rank) / 5
				}
				if r.CompHit3 {
					s.Comp3++
				}
				if r.CompHit {
					s.Comp1++
				}
			}
			if s.N > 0 {
				n := float64(s.N)
				s.AC1, s.AC3, s.AC5, s.Avg5, s.Comp1, s.Comp3 = s.AC1/n, s.AC3/n, s.AC5/n, s.Avg5/n, s.Comp1/n, s.Comp3/n
			}
			out = append(out, s)
		}
	}
	return out
}

// printEval prints one block per method (fault rows, overall last), then
// the overall row of every method side by side, and the failures: at most
// 64 columns whatever the number of methods.
func printEval(w io.Writer, rs []caseResult, sum []evalSummary, methods []string) {
	row := func(name string, s evalSummary) {
		fmt.Fprintf(w, "%-26s %4d  %4.2f  %4.2f  %4.2f  %5.2f  %4.2f  %4.2f\n", truncateRunes(name, 26), s.N, s.AC1, s.AC3, s.AC5, s.Avg5, s.Comp1, s.Comp3)
	}
	head := func(first string) {
		fmt.Fprintf(w, "%-26s %4s  %4s  %4s  %4s  %5s  %4s  %4s\n", first, "n", "AC@1", "AC@3", "AC@5", "Avg@5", "C@1", "C@3")
	}
	for j, m := range methods {
		fmt.Fprintf(w, "method %s\n", m)
		head("fault")
		for i := j; i < len(sum); i += len(methods) {
			row(sum[i].Fault, sum[i])
		}
		fmt.Fprintln(w)
	}
	if len(methods) > 1 {
		fmt.Fprintln(w, "overall, every method")
		head("method")
		for j, m := range methods {
			row(m, sum[len(sum)-len(methods)+j])
		}
		fmt.Fprintln(w)
	}
	var times []float64
	failures := 0
	for _, r := range rs {
		if r.Method == methods[0] {
			times = append(times, r.Seconds)
		}
		if r.Error != "" {
			failures++
			fmt.Fprintf(w, "failure: %s (%s): %s\n", r.Case, r.Method, r.Error)
		}
	}
	fmt.Fprintf(w, "cases: %d, failures: %d (counted as misses), median time per case: %.2fs\n",
		len(times), failures, measure.Quantile(times, 0.5))
	fmt.Fprintln(w, "AC@k: the true service among the first k; Avg@5: mean of AC@1..5; C@1: the top cause is the true component; C@3: among the first three components")
}

// namesEntity reports whether name is an entity, or a label value of a
// series, in the bundle (a pod, GPU UUID, node, service or edge).
func namesEntity(b *ingest.Bundle, name string) bool {
	for _, e := range b.Entities {
		if e.Name == name || e.GPU == name {
			return true
		}
	}
	for _, s := range b.Series {
		for _, l := range s.Labels {
			if l.Value == name {
				return true
			}
		}
	}
	return false
}

// dumpEvidence renders every node's evidence with the case's truth, one
// JSON object per line.
func dumpEvidence(name string, lb label, b *ingest.Bundle, g *tcg.Graph) []string {
	isEnt := namesEntity(b, lb.RootCause.Component)
	var out []string
	for _, ev := range causal.Evidence(g) {
		n := g.Nodes[ev.Node]
		c := causal.Candidate{Node: ev.Node, Service: n.Entity.Service, Component: n.Entity.Name, ComponentKind: n.Entity.Kind, Signal: n.Signal, Series: n.Series[n.Rep]}
		if c.Service == "" {
			c.Service = n.Entity.Name
		}
		if p, ok := g.SinglePod[n.Entity.Name]; ok && n.Entity.Kind == ingest.KindService {
			c.Component, c.ComponentKind = p, ingest.KindPod
		}
		rec := map[string]any{
			"case": name, "fault": lb.Fault, "truth": lb.RootCause.Service, "id": n.ID, "service": c.Service,
			"kind": n.Entity.Kind.String(), "signal": n.Signal.String(), "facet": string(n.Facet),
			"anomalous": n.Anomalous, "state": n.State.String(), "z": fin(ev.Z), "zres": fin(ev.ZRes), "zphys": fin(ev.ZPhys), "rht": fin(ev.RHT),
			"parentz": fin(ev.ParentZ), "childz": fin(ev.ChildZ), "nchild": ev.AnomalousChildren, "depth": ev.Depth,
			"onset": n.OnsetIdx - g.W0, "target": ev.Node == g.Target, "hit": c.Service == lb.RootCause.Service,
			"comphit": componentMatches(c, g, isEnt, lb.RootCause.Component, lb.RootCause.Service, lb.RootCause.Signal),
			"nin":     len(g.In(ev.Node)), "nout": len(g.Out(ev.Node)),
			"parents": edgeEnds(g, g.In(ev.Node), true), "children": edgeEnds(g, g.Out(ev.Node), false),
			"entity_service": n.Entity.Service, "name": n.Entity.Name,
		}
		data, _ := json.Marshal(rec)
		out = append(out, string(data))
	}
	return out
}

// fin maps NaN and ±Inf to nil for JSON.
func fin(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// edgeEnds lists the far ends of edges (their kind and node ID).
func edgeEnds(g *tcg.Graph, edges []int, from bool) [][2]string {
	out := make([][2]string, 0, len(edges))
	for _, ei := range edges {
		e := g.Edges[ei]
		j := e.To
		if from {
			j = e.From
		}
		out = append(out, [2]string{e.Kind.String(), g.Nodes[j].ID})
	}
	return out
}
