package scorecard

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// shellWords is what bash makes of a command line: its words, as the
// command would receive them (nothing is run but printf).
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if out, err := exec.Command(bash, "-n", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("bash -n rejects %q: %v %s", cmd, err, out)
	}
	out, err := exec.Command(bash, "-c", "printf '%s\\0' "+cmd).Output()
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestNextStepsHostileNames: names from hostile input are shell-quoted and
// reach the command as one word each, never as shell syntax.
func TestNextStepsHostileNames(t *testing.T) {
	pod := "api-7c9b45d8f-qrstv'; rm -rf / #"
	ns := "$(reboot)`id`"
	node := "gpu node\n;halt"
	s := &ingest.Series{Name: "container_memory_working_set_bytes", Signal: ingest.SignalMemory, Labels: ingest.Labels{{Name: "namespace", Value: ns}, {Name: "pod", Value: pod}}}
	g := &tcg.Graph{Nodes: []*tcg.Node{
		{Entity: ingest.Entity{Kind: ingest.KindPod, Name: pod, Service: "api", Node: node}, Signal: ingest.SignalMemory, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-1'$(x)", GPU: "GPU-1'$(x)", Node: node, Service: "api"}, Signal: ingest.SignalXID, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindService, Name: "api", Service: "api"}, Signal: ingest.SignalMemory, Series: []*ingest.Series{s}},
	}}
	seen := 0
	for _, n := range g.Nodes {
		steps := nextSteps(g, n, "", false, nil, StepLinks{})
		if len(steps) == 0 {
			t.Fatalf("%s: no steps", n.Entity.Kind)
		}
		for _, st := range steps {
			if st.Command == "" {
				continue
			}
			seen++
			words := shellWords(t, st.Command)
			// Each hostile name is one whole word (control characters
			// shown escaped, as everywhere on the card), never a piece.
			for _, name := range []string{pod, ns, "GPU-1'$(x)", "gpu node"} {
				n := 0
				for _, w := range words {
					if strings.Contains(w, name) {
						n++
						if w != name && !strings.HasPrefix(name, "gpu node") {
							t.Errorf("%q: word %q is not the name %q", st.Command, w, name)
						}
					}
				}
				if n > 1 {
					t.Errorf("%q: %q split into %d words", st.Command, name, n)
				}
			}
			for _, w := range words {
				if w == "rm" || w == "halt" || w == "reboot" || w == "id" {
					t.Errorf("%q: a hostile name broke out: word %q", st.Command, w)
				}
			}
		}
	}
	if seen < 6 {
		t.Errorf("only %d commands checked", seen)
	}
}

// TestNextStepsKinds: each kind of cause gets confirm steps first, and
// the abstaining form keeps only those.
func TestNextStepsKinds(t *testing.T) {
	lbl := ingest.Labels{{Name: "namespace", Value: "shop"}, {Name: "pod", Value: "cart-7c9b45d8f-qrstv"}}
	s := &ingest.Series{Name: "container_memory_working_set_bytes", Signal: ingest.SignalMemory, Labels: lbl, Source: "metrics.json"}
	for _, n := range []*tcg.Node{
		{Entity: ingest.Entity{Kind: ingest.KindPod, Name: "cart-7c9b45d8f-qrstv", Service: "cart"}, Signal: ingest.SignalMemory, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindService, Name: "cart", Service: "cart"}, Signal: ingest.SignalMemory, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-1", GPU: "GPU-1", Node: "n1", Service: "cart"}, Signal: ingest.SignalXID, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindNode, Name: "n1"}, Signal: ingest.SignalCPU, Series: []*ingest.Series{s}},
		{Entity: ingest.Entity{Kind: ingest.KindRollout, Name: "cart-7c9b45d8f", Service: "cart"}, Signal: ingest.SignalErrors, Series: []*ingest.Series{s}},
	} {
		g := &tcg.Graph{Nodes: []*tcg.Node{n}}
		all, confirm := nextSteps(g, n, "", false, nil, StepLinks{}), nextSteps(g, n, "", true, nil, StepLinks{})
		kinds := ""
		for _, st := range all {
			kinds += st.Kind[:1]
			if st.Command != "" && strings.Contains(st.Command, "kubectl") && !strings.Contains(st.Command, "node") && !strings.Contains(st.Command, "cordon") &&
				!strings.Contains(st.Command, "drain") && !strings.Contains(st.Command, "-n shop") {
				t.Errorf("%s: %q lacks the namespace", n.Entity.Kind, st.Command)
			}
		}
		if !strings.HasPrefix(kinds, "c") || strings.Contains(kinds, "mc") || !strings.Contains(kinds, "m") {
			t.Errorf("%s: step kinds %q, want confirm steps then at least one mitigation", n.Entity.Kind, kinds)
		}
		for _, st := range confirm {
			if st.Kind != StepConfirm {
				t.Errorf("%s: abstaining steps hold %+v", n.Entity.Kind, st)
			}
		}
	}
}

// TestNextStepsRolloutOfService: a service's change that the ranking
// resolved to one rollout (a second version beside the first) is that
// rollout's workload in every step, never the service's other version
// that the first pod of the data happens to belong to, and the change
// blamed can be undone.
func TestNextStepsRolloutOfService(t *testing.T) {
	s := &ingest.Series{Name: "container_cpu_usage_seconds_total", Signal: ingest.SignalCPU,
		Labels: ingest.Labels{{Name: "namespace", Value: "shop"}, {Name: "pod", Value: "cart-v1-59dcc9f97-xb98f"}}}
	pod := &tcg.Node{Entity: ingest.Entity{Kind: ingest.KindPod, Name: "cart-v1-59dcc9f97-xb98f", Service: "cart"}, Signal: ingest.SignalCPU, Series: []*ingest.Series{s}}
	change := &tcg.Node{Entity: ingest.Entity{Kind: ingest.KindService, Name: "cart", Service: "cart"}, Signal: ingest.SignalChange}
	g := &tcg.Graph{Nodes: []*tcg.Node{pod, change}}
	var cmds []string
	for _, st := range nextSteps(g, change, "cart-v2", false, nil, StepLinks{}) {
		cmds = append(cmds, st.Command)
	}
	all := strings.Join(cmds, "\n")
	if strings.Contains(all, "cart-v1") || !strings.Contains(all, "rollout history deployment/cart-v2") || !strings.Contains(all, "rollout undo deployment/cart-v2") {
		t.Errorf("steps of the change resolved to rollout cart-v2:\n%s", all)
	}
	for _, st := range nextSteps(g, change, "cart-v2", true, nil, StepLinks{}) {
		if st.Kind == StepMitigate {
			t.Errorf("a change not blamed has a mitigation: %s", st.Command)
		}
	}
	// without the rollout, the service's workload as the data names it
	if got := nextSteps(g, change, "", false, nil, StepLinks{}); len(got) == 0 || !strings.Contains(got[0].Command, "deployment/cart-v1") {
		t.Errorf("steps without a rollout: %+v", got)
	}
}

// TestNodeOnsetOfChange: a change node's onset on the card is its change's
// first event, not the grid cell holding it (which can end after the alert
// the change preceded); a change made after the incident does not count.
func TestNodeOnsetOfChange(t *testing.T) {
	const sec = ingest.Time(1e9)
	change := &tcg.Node{Entity: ingest.Entity{Kind: ingest.KindService, Name: "cart", Service: "cart"}, Signal: ingest.SignalChange, Anomaly: tcg.Anomaly{Onset: 300 * sec}}
	lat := &tcg.Node{Entity: change.Entity, Signal: ingest.SignalLatency, Anomaly: tcg.Anomaly{Onset: 300 * sec}}
	g := &tcg.Graph{Nodes: []*tcg.Node{change, lat}, Changes: []tcg.Change{
		{Service: "cart", At: 400 * sec, Node: 0, After: true},
		{Service: "cart", At: 243 * sec, Node: 0},
	}}
	if got := nodeOnset(g, change); got != 243*sec {
		t.Errorf("change onset %v, want its event's 243 s", got)
	}
	if got := nodeOnset(g, lat); got != 300*sec {
		t.Errorf("latency onset %v, want the node's own 300 s", got)
	}
	g.Changes = nil
	if got := nodeOnset(g, change); got != 300*sec {
		t.Errorf("change without its events: onset %v, want the node's 300 s", got)
	}
}
