package compare

import (
	"fmt"

	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// KindRollout is an item that judges a rollout inside AFTER's window: the
// new version's pods against the old version's pods of the same workload
// in the same minutes (canary mode's judgment, package peers' version
// model). It needs no baseline band: the old pods are the reference, so a
// defective release shows even when the data starts shortly before it.
const KindRollout = "rollout"

// rolloutItems adds one decided item per rollout whose new and old pods
// both report in AFTER's window: regressed when the canary judgment fails,
// unchanged when it passes or is marginal. Rollouts that cannot be judged
// there (no new pods yet, no old pods left, too few common cells) and
// rollouts after the window add nothing.
func (r *run) rolloutItems() {
	b := r.after.Bundle
	if len(b.Grid) == 0 {
		return
	}
	opt := DefaultCanaryOptions()
	opt.Canary, opt.Start, opt.End = SelectorAuto, r.after.Start, r.after.End
	opt = opt.withDefaults()
	m := peers.Build(b, opt.Peers)
	jobs, err := canaryJobs(m, opt)
	if err != nil { // ErrNoCanary: no rollout in the data
		return
	}
	for _, j := range jobs {
		if j.rollout == nil || j.rollout.At >= r.after.End {
			continue
		}
		cw := judgeCanary(b, m, j, opt)
		var v Verdict
		switch cw.Verdict {
		case CanaryFail:
			v = Regressed
		case CanaryPass, CanaryMarginal:
			v = Unchanged
		default:
			continue
		}
		effect := 0.0
		if cw.Score == cw.Score {
			effect = (100 - cw.Score) / 100
		}
		it := Item{ID: "rollout/" + cw.Workload, Kind: KindRollout, Entity: "workload/" + cw.Workload, EntityKind: "workload",
			Service: cw.Service, Signal: "rollout", Depth: r.depthOf(cw.Service), Direction: +1, Verdict: v,
			Reason: fmt.Sprintf("new pods vs old in the same minutes: %s (score %s)", cw.Reason, fix(cw.Score, 0)),
			Effect: effect, LogRatio: nan(), Before: nanStats(), After: nanStats(), Baseline: nanStats(),
			Test: nanTest("canary"), Band: nanBand()}
		r.work = append(r.work, &itemWork{item: it})
	}
}
