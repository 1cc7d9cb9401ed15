package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestRolloutItems: a before/after comparison whose AFTER window holds a
// rollout judges the new version's pods against the old ones in the same
// minutes (no baseline band needed): the defective release regresses and is
// listed, the healthy one is unchanged; a comparison whose windows end
// before the rollout has no rollout item.
func TestRolloutItems(t *testing.T) {
	cs := healthySystem()
	cs.success = func(svc string, v2 bool, _ int) float64 {
		if svc == "cart" && v2 {
			return 0.80
		}
		return 0.995
	}
	b, err := features.Read([]string{cs.write(t)}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))
	at := func(m int) ingest.Time { return t0.Add(time.Duration(m) * time.Minute) }
	side := func(a, z int) Side { return Side{Bundle: b, Start: at(a), End: at(z)} }

	rep, err := Run(side(2, 9), side(15, 25), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, it := range rep.Items {
		if it.Kind == KindRollout {
			got[it.Service] = it.Verdict
		}
	}
	if got["cart"] != Regressed || got["pay"] != Unchanged {
		t.Fatalf("rollout items %v, want cart regressed and pay unchanged", got)
	}
	listed := false
	for _, f := range rep.Regressions {
		listed = listed || strings.HasPrefix(f.Item, "rollout/cart") && strings.Contains(f.Text, "errors low")
	}
	if !listed || rep.Verdict.Regressions == 0 {
		t.Errorf("regressions %+v (verdict %q): want the cart rollout listed with its critical metric", rep.Regressions, rep.Verdict.Text)
	}

	quiet, err := Run(side(0, 4), side(4, 8), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range quiet.Items {
		if it.Kind == KindRollout {
			t.Errorf("windows before the rollout: rollout item %+v", it)
		}
	}
}
