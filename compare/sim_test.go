package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// simSeed is the seed of the simulated acceptance cases: from the held-out
// seeds of docs/accuracy.md (201–205), never used for tuning.
const simSeed = 201

// simResult is one simulated fault's three comparisons.
type simResult struct {
	fault           string
	err             error
	incVerdict      model.Verdict // pre-onset vs incident window
	svcRank, compRk int
	nullNA          string
	nullChanges     []string
	fixVerdict      model.Verdict // incident vs its fixed follow-up
	fixRegs         []string
}

// runSim writes one fault's incident and fixed follow-up and compares.
func runSim(t *testing.T, fault, dir string) simResult {
	res := simResult{fault: fault}
	incDir, fixDir := filepath.Join(dir, "incident"), filepath.Join(dir, "fixed")
	spec := fixtures.Spec{Fault: fault, Seed: simSeed}
	l, err := fixtures.Write(incDir, spec)
	if err != nil {
		res.err = err
		return res
	}
	spec.Fixed = true
	if _, err := fixtures.Write(fixDir, spec); err != nil {
		res.err = err
		return res
	}
	bi, err := features.Read([]string{incDir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		res.err = err
		return res
	}
	bf, err := features.Read([]string{fixDir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		res.err = err
		return res
	}
	lb := devLabel{Fault: l.Fault, InjectTime: l.InjectTime}
	lb.RootCause.Service, lb.RootCause.Component = l.RootCause.Service, l.RootCause.Component
	inj := parseLabelTime(l.InjectTime)
	const w = 5 * time.Minute
	bs, as, inc, err := ResolveSides(bi, bf, WindowSpec{Window: w})
	if err != nil {
		res.err = err
		return res
	}
	opt := DefaultOptions()
	opt.Target = inc.Target
	side := func(lo, hi ingest.Time) Side { return Side{Bundle: bi, Start: lo, End: hi} }
	pre, err := Run(side(inj.Add(-w), inj), side(inj, inj.Add(w)), opt)
	if err != nil {
		res.err = err
		return res
	}
	res.incVerdict = pre.Verdict.Verdict
	items := map[string]model.Item{}
	for _, it := range pre.Items {
		items[it.ID] = it
	}
	for i, f := range pre.Regressions {
		s, c := hits(items[f.Item], lb)
		if s && res.svcRank == 0 {
			res.svcRank = i + 1
		}
		if c && res.compRk == 0 {
			res.compRk = i + 1
		}
	}
	end := inj.Add(-2 * bi.Step)
	if d := parseLabelTime(l.Distractor.InjectTime); d != 0 && d < end {
		end = d
	}
	if end.Add(-2*w) < bi.Start {
		res.nullNA = fmt.Sprintf("%s before the distractor or the injection", fmtDur(end.Sub(bi.Start)))
	} else {
		null, err := Run(side(end.Add(-2*w), end.Add(-w)), side(end.Add(-w), end), opt)
		if err != nil {
			res.err = err
			return res
		}
		for _, it := range null.Items {
			if it.Verdict != model.Unchanged && it.Verdict != model.Insufficient {
				res.nullChanges = append(res.nullChanges, string(it.Verdict)+" "+it.ID)
			}
		}
	}
	fix, err := Run(bs, as, opt)
	if err != nil {
		res.err = err
		return res
	}
	res.fixVerdict = fix.Verdict.Verdict
	for _, f := range fix.Regressions {
		res.fixRegs = append(res.fixRegs, f.Item)
	}
	return res
}

// TestSimulatedIncidents runs the acceptance checks on one
// simulated incident of every fault (seed 201) and its fixed follow-up:
// the pre-onset window against the incident window regresses the target
// and ranks the injected component among the first regressions; two
// pre-onset windows show no change at all; the incident against its fixed
// follow-up is fixed or improved, with no regression elsewhere.
func TestSimulatedIncidents(t *testing.T) {
	if testing.Short() {
		t.Skip("simulated incidents skipped in -short mode")
	}
	faults := fixtures.FaultNames()
	subset := raceEnabled && os.Getenv("PA_COMPARE_FULL") == ""
	if subset {
		faults = []string{"gpu_bandwidth_contention", "tool_api_slow", "xid_restart"}
		t.Logf("race detector: %d of the faults; PA_COMPARE_FULL=1 runs all", len(faults))
	}
	results := make([]simResult, len(faults))
	root := t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runSim(t, f, filepath.Join(root, f))
		}()
	}
	wg.Wait()
	var sb strings.Builder
	var reg, svc5, comp5, nullRun, fixed int
	for _, r := range results {
		fmt.Fprintf(&sb, "%-26s incident: target %-17s svc@%d comp@%d | null: %s | fixed follow-up: %s, %d regressions\n",
			r.fault, r.incVerdict, r.svcRank, r.compRk, nullText(r), r.fixVerdict, len(r.fixRegs))
		if r.err != nil {
			t.Errorf("%s: %v", r.fault, r.err)
			continue
		}
		if r.incVerdict == model.Regressed {
			reg++
		}
		if r.svcRank >= 1 && r.svcRank <= 5 {
			svc5++
		}
		if r.compRk >= 1 && r.compRk <= 5 {
			comp5++
		}
		if r.nullNA == "" {
			nullRun++
			if len(r.nullChanges) > 0 {
				t.Errorf("%s: two pre-onset windows changed: %v", r.fault, r.nullChanges)
			}
		}
		switch r.fixVerdict {
		case model.Fixed, model.Improved:
			fixed++
		default:
			t.Errorf("%s: incident vs its fixed follow-up: target %s, want fixed or improved", r.fault, r.fixVerdict)
		}
		if len(r.fixRegs) > 0 {
			t.Errorf("%s: the fixed follow-up regressed %v", r.fault, r.fixRegs)
		}
	}
	n := len(results)
	fmt.Fprintf(&sb, "target regressed %d/%d, service in the top 5 regressions %d/%d, component %d/%d; null comparisons %d, fixed or improved %d/%d\n",
		reg, n, svc5, n, comp5, n, nullRun, fixed, n)
	t.Log("\n" + sb.String())
	if !subset && comp5 < n-2 {
		t.Errorf("the injected component is in the top 5 regressions in %d of %d cases", comp5, n)
	}
}

func nullText(r simResult) string {
	if r.nullNA != "" {
		return "n/a (" + r.nullNA + ")"
	}
	return fmt.Sprintf("%d changes", len(r.nullChanges))
}
