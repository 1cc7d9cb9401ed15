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
		steps := nextSteps(g, n, false, nil, StepLinks{})
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
		all, confirm := nextSteps(g, n, false, nil, StepLinks{}), nextSteps(g, n, true, nil, StepLinks{})
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
