package tcg_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// peerCase writes a vLLM-like workload in Prometheus query_range files:
// four replicas vllm-0..3 with their KV-cache usage (vLLM's metric, pod
// labels as kube-prometheus adds them) and two GPUs each (DCGM's SM
// activity, with the pod the GPU serves), 30 minutes, and an alert at
// minute 25. kv(pod, minute) and sm(gpu, minute) give the values.
func peerCase(t *testing.T, kv func(pod, m int) float64, sm func(gpu, m int) float64) *tcg.Graph {
	t.Helper()
	return peerCaseIn(t, t.TempDir(), kv, sm)
}

// peerCaseIn is peerCase with its files written to dir, beside whatever
// the caller put there.
func peerCaseIn(t *testing.T, dir string, kv func(pod, m int) float64, sm func(gpu, m int) float64) *tcg.Graph {
	t.Helper()
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	type ser struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	write := func(name string, rs []ser) {
		raw, _ := json.Marshal(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": rs}})
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var kvs, sms []ser
	for p := range 4 {
		s := ser{Metric: map[string]string{"__name__": "vllm:kv_cache_usage_perc", "pod": fmt.Sprintf("vllm-%d", p),
			"service": "vllm", "namespace": "llm"}}
		for m := range 30 {
			s.Values = append(s.Values, [2]any{float64(t0.Add(time.Duration(m) * time.Minute).Unix()), fmt.Sprint(kv(p, m))})
		}
		kvs = append(kvs, s)
		for k := range 2 {
			gpu := 2*p + k
			g := ser{Metric: map[string]string{"__name__": "DCGM_FI_PROF_SM_ACTIVE", "UUID": fmt.Sprintf("GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd", gpu),
				"gpu": fmt.Sprint(k), "Hostname": "gpu-node-a", "pod": fmt.Sprintf("vllm-%d", p), "container": "vllm"}}
			for m := range 30 {
				g.Values = append(g.Values, [2]any{float64(t0.Add(time.Duration(m) * time.Minute).Unix()), fmt.Sprint(sm(gpu, m))})
			}
			sms = append(sms, g)
		}
	}
	write("metrics_kv.json", kvs)
	write("metrics_sm.json", sms)
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := ingest.FromTime(t0.Add(25 * time.Minute))
	inc := tcg.Incident{Target: tcg.Target{Service: "vllm", Signal: ingest.SignalKVCache}, At: at,
		WindowStart: at - ingest.Time(5*time.Minute), WindowEnd: at + ingest.Time(4*time.Minute), BaselineStart: b.Start}
	g, err := tcg.Build(b, inc, tcg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wobble is a small deterministic variation per member and minute.
func wobble(k, m int) float64 { return 0.01 * math.Sin(float64(3*k+m)) }

func peerNodes(g *tcg.Graph) map[string]bool {
	out := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Facet == tcg.FacetPeers && n.Anomalous {
			out[n.ID] = true
		}
	}
	return out
}

func TestPeerReplicaOutlier(t *testing.T) {
	g := peerCase(t, func(p, m int) float64 {
		x := 0.4 + wobble(p, m)
		if p == 1 && m >= 21 {
			x = 0.95 // one replica's cache fills; its siblings', serving the same traffic, do not
		}
		return x
	}, func(gpu, m int) float64 { return 0.45 + wobble(gpu, m) })
	got := peerNodes(g)
	if !got["pod/vllm-1:kv_cache/peers"] || len(got) != 1 {
		t.Errorf("peer nodes %v, want only pod/vllm-1:kv_cache/peers", got)
	}
}

// TestChangeExplainsPeers: a scale change of the workload reshares the
// load among its replicas, so a replica unlike its siblings right after it
// has a mechanism in the change (an edge from the service's change node to
// the pod's contrast with its peers), as its own signals already do.
func TestChangeExplainsPeers(t *testing.T) {
	dir := t.TempDir()
	events := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Event",
"involvedObject":{"apiVersion":"apps/v1","kind":"Deployment","name":"vllm","namespace":"llm"},
"message":"Scaled down replica set vllm-6d4cf56db6 to 3","metadata":{"name":"vllm.1","namespace":"llm"},
"reason":"ScalingReplicaSet","type":"Normal","count":1,
"firstTimestamp":"2026-11-30T02:20:30Z","lastTimestamp":"2026-11-30T02:20:30Z"}]}`
	if err := os.WriteFile(filepath.Join(dir, "events.json"), []byte(events), 0o644); err != nil {
		t.Fatal(err)
	}
	g := peerCaseIn(t, dir, func(p, m int) float64 {
		x := 0.4 + wobble(p, m)
		if p == 1 && m >= 21 {
			x = 0.95
		}
		return x
	}, func(gpu, m int) float64 { return 0.45 + wobble(gpu, m) })
	change, peer := -1, -1
	for i, n := range g.Nodes {
		switch n.ID {
		case "service/vllm:change":
			change = i
		case "pod/vllm-1:kv_cache/peers":
			peer = i
		}
	}
	if change < 0 || peer < 0 {
		t.Fatalf("change node %d, peers node %d: want both", change, peer)
	}
	for _, e := range g.Edges {
		if e.From == change && e.To == peer {
			return
		}
	}
	t.Errorf("no edge service/vllm:change → pod/vllm-1:kv_cache/peers")
}

func TestPeerAllMoveTogether(t *testing.T) {
	g := peerCase(t, func(p, m int) float64 {
		x := 0.4 + wobble(p, m)
		if m >= 21 {
			x += 0.5 // every replica: what they share changed, not one of them
		}
		return x
	}, func(gpu, m int) float64 { return 0.45 + wobble(gpu, m) })
	if got := peerNodes(g); len(got) != 0 {
		t.Errorf("peer nodes %v, want none when all replicas move together", got)
	}
}

func TestPeerTensorParallelStraggler(t *testing.T) {
	g := peerCase(t, func(p, m int) float64 { return 0.4 + wobble(p, m) }, func(gpu, m int) float64 {
		x := 0.45 + wobble(gpu, m)
		switch {
		case gpu == 1 && m >= 21:
			x = 0.62 // the straggler works longer
		case gpu == 0 && m >= 21:
			x = 0.30 // its tensor-parallel partner waits
		}
		return x
	})
	got := peerNodes(g)
	want := "gpu/GPU-00000001-aaaa-bbbb-cccc-dddddddddddd:gpu_util/peers"
	if !got[want] || len(got) != 1 {
		t.Errorf("peer nodes %v, want only %s (the partner's drop is not a bad direction)", got, want)
	}
}
