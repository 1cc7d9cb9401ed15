package tcg_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// twoRollouts writes a mesh of frontend → cart and frontend → ads in
// Prometheus query_range files (per-pod success ratios reported by the
// callee's proxy and by the frontend's, Istio style) with two concurrent
// rollouts at minute 17: cart's new version fails 60% of its requests,
// ads' new version serves as its old one does. The frontend alerts on its
// success ratio at minute 24.
func twoRollouts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	type ser struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	series := func(ls map[string]string, from, to int, f func(int) float64) ser {
		s := ser{Metric: map[string]string{"__name__": "istio:request_success:ratio_rate1m"}}
		for k, v := range ls {
			s.Metric[k] = v
		}
		for i := from; i < to; i++ {
			s.Values = append(s.Values, [2]any{float64(at(i).Unix()), fmt.Sprint(f(i))})
		}
		return s
	}
	one := func(int) float64 { return 1 }
	var rs []ser
	for _, svc := range []string{"cart", "ads"} {
		for k := range 3 {
			pod := fmt.Sprintf("%s-v1-7bb89585b4-%c%c%c%c%c", svc, 'b'+k, 'c', 'd', 'f', 'g')
			rs = append(rs, series(map[string]string{"pod": pod, "service": svc, "version": "v1", "destination_app": svc,
				"source_app": "frontend", "reporter": "destination"}, 0, 30, one))
		}
		bad := svc == "cart"
		rs = append(rs, series(map[string]string{"pod": svc + "-v2-54455997f4-qdpvs", "service": svc, "version": "v2",
			"destination_app": svc, "source_app": "frontend", "reporter": "destination"}, 19, 30, func(int) float64 {
			if bad {
				return 0.4
			}
			return 1
		}))
		// The frontend's view of its calls: cart's failures reach it.
		rs = append(rs, series(map[string]string{"pod": "frontend-684ff8b787-rws6r", "service": "frontend", "version": "v1",
			"destination_app": svc, "source_app": "frontend", "reporter": "source"}, 0, 30, func(i int) float64 {
			if bad && i >= 20 {
				return 0.85
			}
			return 1
		}))
	}
	write := func(name string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("metrics_success.json", map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": rs}})
	event := func(deploy, msg string) map[string]any {
		ts := at(17).Add(20 * time.Second).Format(time.RFC3339)
		return map[string]any{"kind": "Event", "reason": "ScalingReplicaSet", "type": "Normal", "message": msg,
			"involvedObject": map[string]any{"kind": "Deployment", "name": deploy}, "firstTimestamp": ts, "lastTimestamp": ts}
	}
	write("events.json", map[string]any{"kind": "List", "items": []any{
		event("cart-v2", "Scaled up replica set cart-v2-54455997f4 to 1"), event("cart-v1", "Scaled down replica set cart-v1-7bb89585b4 to 2"),
		event("ads-v2", "Scaled up replica set ads-v2-54455997f4 to 1"), event("ads-v1", "Scaled down replica set ads-v1-7bb89585b4 to 2"),
	}})
	write("alert.json", map[string]any{"version": "4", "status": "firing", "alerts": []any{map[string]any{"status": "firing",
		"labels":   map[string]string{"alertname": "HighErrorRate", "service": "frontend", "metric": "success_ratio"},
		"startsAt": at(24).Format(time.RFC3339)}}})
	return dir
}

func TestRolloutNodes(t *testing.T) {
	b, err := features.Read([]string{twoRollouts(t)}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := tcg.ResolveIncident(b, tcg.IncidentSpec{Window: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	g, err := tcg.Build(b, inc, tcg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	node := func(id string) *tcg.Node {
		if i := g.NodeByID(id); i >= 0 {
			return g.Nodes[i]
		}
		return nil
	}
	bad := node("rollout/cart-v2:errors")
	if bad == nil || !bad.Anomalous || bad.Peer == nil || bad.Peer.Member != 0.4 || bad.Peer.Peer != 1 {
		t.Fatalf("rollout/cart-v2:errors = %+v, want anomalous: its pods at 0.4 against the old ones' 1", bad)
	}
	if ok := node("rollout/ads-v2:errors"); ok == nil || ok.Anomalous {
		t.Errorf("rollout/ads-v2:errors = %+v, want a node that is not anomalous (a healthy release)", ok)
	}
	// A change is never deleted: its service's change step stays beside
	// the contrasts that judge it (a prior the contrasts raise or lower).
	for _, id := range []string{"service/cart:change", "service/ads:change"} {
		if n := node(id); n == nil || !n.Anomalous {
			t.Errorf("%s = %+v, want the change step kept", id, n)
		}
	}
	if len(g.Changes) != 2 || g.Changes[0].Rollout == "" || g.Changes[1].Rollout == "" {
		t.Errorf("changes %+v, want the two rollouts", g.Changes)
	}
	// The frontend's errors, which no series measures, stand in from its
	// calls; cart's from its callers' view of it.
	if tn := g.Nodes[max(g.Target, 0)]; g.Target < 0 || tn.ID != "service/frontend:errors" || tn.StandIn != tcg.StandInCalls {
		t.Fatalf("target %d, want the stand-in service/frontend:errors", g.Target)
	}
	if n := node("service/cart:errors"); n == nil || n.StandIn != tcg.StandInCallers {
		t.Errorf("service/cart:errors = %+v, want a stand-in from its callers' view", n)
	}
	res, err := causal.Analyze(g, b, causal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Component != "cart-v2" || res.Candidates[0].ComponentKind != ingest.KindRollout {
		t.Fatalf("top cause %+v, want the rollout cart-v2", res.Candidates[:min(1, len(res.Candidates))])
	}
	// The healthy release ranks after the defective one, and nothing of
	// its is confirmed as the root cause.
	for k, c := range res.Candidates {
		if c.Service == "ads" && (k == 0 || c.State == tcg.RootConfirmed) {
			t.Errorf("the healthy rollout's service ranks %d (%s, %s)", k+1, c.NodeID, c.State)
		}
	}
}
