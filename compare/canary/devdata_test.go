package canary

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

var canaryReport = flag.String("canaryreport", "", "write the table of TestCanaryDevelopmentCases to FILE")

// TestCanaryDevelopmentCases runs canary mode (--canary auto) on every
// development case with rollouts under ../shared/data: each run of
// changerca-dev rolls one to six services from v1 to v2 one pod at a time,
// exactly one release defective (label.json's root cause; the others are
// listed in healthy_changes). The acceptance: the defective
// release's new pods fail against its old pods in at least 9 of 11 runs,
// and the healthy concurrent releases pass in at least 90% of theirs. The
// thresholds were not tuned on these runs: they are the graph's 3 scales,
// compare's 25% and Kayenta's 75/50 score limits.
func TestCanaryDevelopmentCases(t *testing.T) {
	labels := testkit.DevLabels(t)
	type tally struct{ defects, defectFail, healthy, healthyPass, other int }
	sets := map[string]*tally{}
	var lines []string
	for _, l := range labels {
		dir := filepath.Dir(l)
		set := filepath.Base(filepath.Dir(dir))
		var lb struct {
			RootCause struct{ Service string } `json:"root_cause"`
			Fault     string                   `json:"fault"`
			Healthy   []string                 `json:"healthy_changes"`
		}
		data, err := os.ReadFile(l)
		if err == nil {
			err = json.Unmarshal(data, &lb)
		}
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "events.json")); err != nil {
			continue
		}
		b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		rep, err := Run(b, Options{Canary: SelectorAuto})
		if err != nil {
			continue // no rollout in this case
		}
		tl := sets[set]
		if tl == nil {
			tl = &tally{}
			sets[set] = tl
		}
		for _, w := range rep.Canary.Workloads {
			role := "other"
			switch {
			case w.Service == lb.RootCause.Service && strings.Contains(lb.Fault, "rollout") || set == "changerca-dev" && w.Service == lb.RootCause.Service:
				role = "defective"
				tl.defects++
				if w.Verdict == model.CanaryFail {
					tl.defectFail++
				}
			case slices.Contains(lb.Healthy, w.Service):
				role = "healthy"
				tl.healthy++
				if w.Verdict == model.CanaryPass {
					tl.healthyPass++
				}
			default:
				tl.other++
			}
			lines = append(lines, fmt.Sprintf("%-14s %-22s %-18s %-10s %-38s %-18s %s", set, filepath.Base(dir), lb.Fault, role, w.Workload, w.Verdict, w.Reason))
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-14s %-22s %-22s %s\n", "set", "defective fail", "healthy pass", "other rollouts")
	for _, s := range slices.Sorted(maps.Keys(sets)) {
		tl := sets[s]
		fmt.Fprintf(&sb, "%-14s %-22s %-22s %d\n", s, fmt.Sprintf("%d/%d", tl.defectFail, tl.defects), fmt.Sprintf("%d/%d", tl.healthyPass, tl.healthy), tl.other)
	}
	sb.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	t.Log("\n" + sb.String())
	if *canaryReport != "" {
		if err := os.WriteFile(*canaryReport, []byte(sb.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if tl := sets["changerca-dev"]; tl != nil {
		// Issue 40: the defective release fails in at least 21 of 24
		// runs (7/8 of them), healthy releases pass at least 95%.
		if tl.defects >= 8 && 8*tl.defectFail < 7*tl.defects {
			t.Errorf("changerca-dev: the defective release failed in %d of %d runs, want at least 7/8", tl.defectFail, tl.defects)
		}
		if tl.healthy > 0 && float64(tl.healthyPass) < 0.95*float64(tl.healthy) {
			t.Errorf("changerca-dev: healthy releases passed in %d of %d, want at least 95%%", tl.healthyPass, tl.healthy)
		}
	}
}
