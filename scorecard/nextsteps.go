package scorecard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Step kinds: a check that confirms a cause, an action that mitigates it.
const (
	StepConfirm  = "confirm"
	StepMitigate = "mitigate"
)

// Step is one next step for a cause: first how to confirm it, then how to
// mitigate it. Commands are printed, never run; every name in them comes
// from the data (shell-quoted), never from a guess.
type Step struct {
	Kind    string `json:"kind"`    // StepConfirm or StepMitigate (changes the cluster)
	Text    string `json:"text"`    // what it shows or does, and why, in one line
	Command string `json:"command"` // a shell command ("" when the step is a link or a query)
	Where   string `json:"where"`   // where to run it: "" where kubectl reaches the cluster, else e.g. "on node gpu-node-a"
	Query   string `json:"query"`   // a PromQL expression of the series that moved ("" for none)
	URL     string `json:"url"`     // a link, e.g. the alert's runbook ("" for none)
	Source  string `json:"source"`  // "built-in" or "alert runbook_url"
}

// namespaceLabels name a Kubernetes namespace, most explicit first.
var namespaceLabels = []string{"namespace", "k8s_namespace_name", "kubernetes_namespace", "exported_namespace", "pod_namespace", "k8s.namespace.name"}

// stepFacts are the names next steps may use, all read from the graph.
type stepFacts struct {
	ns       string   // namespace ("" unknown)
	pods     []string // pods of the cause's service (or on its GPU), sorted
	workload string   // the service's Deployment or StatefulSet ("deployment/w"), "" unknown
	since    string   // the window's start, RFC3339
}

// kubectl is "kubectl [-n NS] args...", quoted.
func (f stepFacts) kubectl(args ...string) string {
	a := []string{"kubectl"}
	if f.ns != "" {
		a = append(a, "-n", f.ns)
	}
	return shellCommand(append(a, args...))
}

// factsFor gathers the names a cause's steps may use: the namespace from
// its node's series (else its service's), the pods of its service, their
// workload by the pod-name convention of their controller.
func factsFor(g *tcg.Graph, n *tcg.Node) stepFacts {
	f := stepFacts{since: g.Incident.WindowStart.Std().Format(time.RFC3339)}
	pods := map[string]bool{}
	ns := map[string]int{}
	for _, o := range g.Nodes {
		same := o == n || o.Entity == n.Entity || o.Entity.Service != "" && o.Entity.Service == n.Entity.Service
		if !same {
			continue
		}
		for _, s := range o.Series {
			for _, l := range namespaceLabels {
				if v := s.Labels.Get(l); v != "" {
					w := 1
					if o == n {
						w = 1000 // the cause's own series decide
					}
					ns[v] += w
					break
				}
			}
			// A series' pod label may name the other end of a call (an
			// edge series of the caller carries the callee's pod): only a
			// pod of the cause's own service (or on its GPU) counts, so
			// that no step names another service's workload.
			if p := ingest.PodOf(s); p != "" && (n.Entity.Kind != ingest.KindGPU || o.Entity == n.Entity) &&
				(n.Entity.Kind == ingest.KindGPU || podOfService(p, n.Entity.Service)) {
				pods[p] = true
			}
		}
		if o.Entity.Kind == ingest.KindPod && n.Entity.Kind != ingest.KindGPU {
			pods[o.Entity.Name] = true
		}
	}
	best := 0
	for v, c := range ns {
		if c > best || c == best && v < f.ns {
			f.ns, best = v, c
		}
	}
	for p := range pods {
		f.pods = append(f.pods, p)
	}
	slices.Sort(f.pods)
	for _, p := range f.pods {
		w := ingest.WorkloadOf(p)
		if w == p {
			continue
		}
		kind := "deployment"
		if suffix := p[len(w)+1:]; isAllDigits(suffix) {
			kind = "statefulset"
		} else if strings.Count(p[len(w):], "-") == 1 {
			continue // a DaemonSet's or Job's pod: no rollout to undo here
		}
		f.workload = kind + "/" + w
		break
	}
	return f
}

// serviceFacts are the step facts of a service's own node (ok false when
// the graph has none).
func serviceFacts(g *tcg.Graph, svc string) (stepFacts, bool) {
	if svc == "" {
		return stepFacts{}, false
	}
	for _, o := range g.Nodes {
		if o.Entity.Kind == ingest.KindService && o.Entity.Name == svc {
			return factsFor(g, o), true
		}
	}
	return stepFacts{}, false
}

// podOfService reports whether pod p belongs to service svc by the names
// Kubernetes gives a workload's pods: its workload is the service, or a
// version of it ("frontend-v1" of "frontend"). An unknown service accepts
// any pod.
func podOfService(p, svc string) bool {
	if svc == "" {
		return true
	}
	w := ingest.WorkloadOf(p)
	return w == svc || strings.HasPrefix(w, svc+"-") || p == svc
}

func isAllDigits(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && !strings.ContainsAny(s, "+-")
}

// rolloutWorkload is the workload of the rollout a service's change was
// resolved to (the candidate's component is that rollout), "" when the
// candidate is no such change or the version model does not know the
// rollout's workload.
func rolloutWorkload(g *tcg.Graph, cand causal.Candidate) string {
	if cand.ComponentKind != ingest.KindRollout || cand.Node < 0 || cand.Node >= len(g.Nodes) ||
		g.Nodes[cand.Node].Entity.Kind == ingest.KindRollout {
		return ""
	}
	for _, c := range g.Changes {
		if c.Node == cand.Node && c.Rollout == cand.Component {
			return c.Workload
		}
	}
	return ""
}

// nextSteps are a cause's steps, built from its entity and signal and
// filled only from the data's names. changed is the workload of the
// rollout the ranking resolved the cause to ("" for none, rolloutWorkload):
// a service's change named by its rollout is that workload's, not the
// service's first pod's (a sibling version's). confirmOnly drops the
// mitigations (an abstaining verdict's guesses).
func nextSteps(g *tcg.Graph, n *tcg.Node, changed string, confirmOnly bool, rbs []Runbook, links StepLinks) []Step {
	f := factsFor(g, n)
	if changed != "" && n.Entity.Kind != ingest.KindRollout {
		f.workload = "deployment/" + changed
	}
	e := n.Entity
	vals := map[string]string{"namespace": f.ns, "service": e.Service, "node": e.Node, "gpu": e.GPU, "workload": f.workload, "component": e.Name}
	switch {
	case e.Kind == ingest.KindPod:
		vals["pod"] = e.Name
	case len(f.pods) == 1:
		vals["pod"] = f.pods[0]
	}
	team, replace := runbookSteps(rbs, e.Service, n.Signal.String(), e.Kind.String(), vals)
	var out []Step
	add := func(kind, text, cmd string) {
		out = append(out, Step{Kind: kind, Text: text, Command: cmd, Source: "built-in"})
	}
	on := func(where string) { out[len(out)-1].Where = where }
	switch e.Kind {
	case ingest.KindRollout:
		w, newPod := "", ""
		if n.Peer != nil && n.Peer.Rollout.New != nil {
			if wl := n.Peer.Rollout.New.Workload; wl != "" {
				w = "deployment/" + wl
			}
			if pods := n.Peer.Rollout.New.Pods; len(pods) > 0 {
				newPod = pods[0]
			}
		}
		if w == "" {
			w = f.workload
		}
		if w != "" {
			add(StepConfirm, "the workload's revisions: the new one is last", f.kubectl("rollout", "history", w))
		}
		if newPod != "" {
			add(StepConfirm, "why the new version's pod differs from the old ones (events, restarts, readiness)", f.kubectl("describe", "pod", newPod))
		}
		if w != "" {
			add(StepMitigate, "back to the previous revision, the version before the change", f.kubectl("rollout", "undo", w))
		}
	case ingest.KindGPU:
		id := e.GPU
		if id == "" {
			id = e.Name
		}
		where := ""
		if e.Node != "" {
			where = "on node " + e.Node
		}
		add(StepConfirm, "this GPU's clocks, throttle reasons and ECC errors", shellCommand([]string{"nvidia-smi", "-i", id, "-q", "-d", "PERFORMANCE,CLOCK,ECC"}))
		on(where)
		add(StepConfirm, "the processes on this GPU: a co-tenant competing for it", shellCommand([]string{"nvidia-smi", "pmon", "-i", id, "-c", "5"}))
		on(where)
		if n.Signal == ingest.SignalXID {
			add(StepConfirm, "DCGM's quick diagnostic of the node's GPUs", shellCommand([]string{"dcgmi", "diag", "-r", "1"}))
			on(where)
			if e.Node != "" {
				add(StepMitigate, "no new pods on the node with the failing GPU", shellCommand([]string{"kubectl", "cordon", e.Node}))
				add(StepMitigate, "move its pods to healthy nodes", shellCommand([]string{"kubectl", "drain", e.Node, "--ignore-daemonsets", "--delete-emptydir-data"}))
			}
		} else if len(f.pods) == 1 {
			add(StepMitigate, "reschedule the pod that uses this GPU (its controller recreates it elsewhere)", f.kubectl("delete", "pod", f.pods[0]))
		}
	case ingest.KindPod:
		add(StepConfirm, "the pod's events, restarts and limits", f.kubectl("describe", "pod", e.Name))
		add(StepConfirm, "its logs from the incident window", f.kubectl("logs", e.Name, "--all-containers", "--since-time="+f.since))
		if n.Signal == ingest.SignalRestarts {
			add(StepConfirm, "the logs of the container before its last restart", f.kubectl("logs", e.Name, "--previous"))
		}
		add(StepMitigate, "replace this one pod while its siblings serve (its controller recreates it)", f.kubectl("delete", "pod", e.Name))
	case ingest.KindNode:
		add(StepConfirm, "the node's conditions, pressure and pods", shellCommand([]string{"kubectl", "describe", "node", e.Name}))
		add(StepMitigate, "no new pods on this node until it is understood", shellCommand([]string{"kubectl", "cordon", e.Name}))
	case ingest.KindEdge:
		if len(f.pods) > 0 {
			add(StepConfirm, "the callee's pods: are they all ready, where do they run", f.kubectl("get", "pods", "-o", "wide", f.pods[0]))
		} else if cf, ok := serviceFacts(g, e.Caller); ok && cf.workload != "" {
			// A callee with no pod in the data (an external dependency):
			// what its caller logged about the calls.
			add(StepConfirm, "what the caller "+e.Caller+" logged about its calls to "+e.Callee+" (timeouts, errors, retries)",
				cf.kubectl("logs", cf.workload, "--all-containers", "--since-time="+cf.since))
		}
	default: // a service
		if f.workload != "" {
			add(StepConfirm, "a recent change of the service's workload", f.kubectl("rollout", "history", f.workload))
			add(StepConfirm, "its logs from the incident window", f.kubectl("logs", f.workload, "--all-containers", "--since-time="+f.since))
			switch n.Signal {
			case ingest.SignalChange:
				if changed != "" {
					add(StepMitigate, "back to the previous revision, the version before the change", f.kubectl("rollout", "undo", f.workload))
				}
			case ingest.SignalMemory:
				add(StepMitigate, "restart its pods one by one (a leak starts again from zero)", f.kubectl("rollout", "restart", f.workload))
			case ingest.SignalCPU, ingest.SignalCPUThrottle, ingest.SignalQueue, ingest.SignalKVCache:
				if strings.HasPrefix(f.workload, "deployment/") && len(f.pods) > 0 {
					add(StepMitigate, "one more replica to share the load", f.kubectl("scale", f.workload, "--replicas="+strconv.Itoa(len(f.pods)+1)))
				}
			}
		}
	}
	out = append(out, linkSteps(g, n, links)...)
	if q, ok := queryStep(g, n, links); ok {
		out = append(out, q)
	}
	// The team's own runbooks first; one marked replace drops the built-in steps.
	if replace {
		out = nil
	}
	out = append(team, out...)
	if confirmOnly {
		out = slices.DeleteFunc(out, func(s Step) bool { return s.Kind == StepMitigate })
	}
	// First how to confirm, then how to mitigate.
	slices.SortStableFunc(out, func(a, b Step) int { return strings.Compare(a.Kind, b.Kind) })
	if out == nil {
		out = []Step{}
	}
	return out
}

// movedQuery is the PromQL of a node's representative series ("" when it
// did not come from Prometheus).
func movedQuery(n *tcg.Node) string {
	if n.Rep < 0 || n.Rep >= len(n.Series) {
		return ""
	}
	return reportview.SeriesQuery(n.Series[n.Rep])
}

// runbookStep is the alert's runbook_url annotation as a step.
func runbookStep(url string) Step {
	return Step{Kind: StepConfirm, Text: "the team's runbook for this alert", URL: url, Source: "alert runbook_url"}
}

// stepLine renders a step in one line for text and Markdown.
func stepLine(s Step) string {
	var parts []string
	switch {
	case s.Command != "":
		parts = append(parts, s.Command)
	case s.Query != "":
		parts = append(parts, "PromQL: "+s.Query)
	case s.URL != "":
		parts = append(parts, s.URL)
	}
	why := s.Text
	if s.Where != "" {
		why += " (" + s.Where + ")"
	}
	return fmt.Sprintf("%s — %s", strings.Join(parts, " "), why)
}

// wouldDecide lists the kinds of data the inputs lack that would help an
// abstaining verdict decide: traces (per-request latency and errors along
// calls), logs (what the services said), GPU series when a GPU serves the
// system, Kubernetes events (changes and rollouts).
func wouldDecide(inputs []ingest.Input, g *tcg.Graph) []string {
	var c ingest.Counts
	for _, in := range inputs {
		if in.Skipped {
			continue
		}
		c.Spans += in.Counts.Spans
		c.Logs += in.Counts.Logs
		c.Events += in.Counts.Events
	}
	gpus := false
	for _, n := range g.Nodes {
		gpus = gpus || n.Entity.Kind == ingest.KindGPU
	}
	out := []string{}
	if c.Spans == 0 {
		out = append(out, "traces of the window (Jaeger or OTLP): which call slowed or failed, request by request")
	}
	if c.Logs == 0 {
		out = append(out, "logs of the window (Loki, VictoriaLogs, OTLP or container logs): what each service said, per request")
	}
	if c.Events == 0 {
		out = append(out, "Kubernetes events (kubectl get events -o json): rollouts, restarts and scheduling in the window")
	}
	if !gpus {
		for _, n := range g.Nodes {
			if n.Signal == ingest.SignalKVCache || n.Signal == ingest.SignalGPUUtil {
				out = append(out, "GPU series (DCGM exporter or nvidia-smi): the GPUs behind the model servers")
				break
			}
		}
	}
	return out
}
