package compare

import (
	"fmt"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
)

// rolloutItems adds one decided item per rollout whose new and old pods
// both report in AFTER's window: regressed when the canary judgment fails,
// unchanged when it passes or is marginal. Rollouts that cannot be judged
// there (no new pods yet, no old pods left, too few common cells) and
// rollouts after the window add nothing.
func (r *run) rolloutItems() {
	for _, ro := range canary.JudgeRollouts(r.after.Bundle, r.after.Start, r.after.End) {
		cw := ro.Workload
		var v model.Verdict
		effect := 0.0
		if cw.Score == cw.Score {
			effect = (100 - cw.Score) / 100
		}
		reason := fmt.Sprintf("new pods vs old in the same minutes: %s (score %s)", cw.Reason, fix(cw.Score, 0))
		switch cw.Verdict {
		case model.CanaryFail:
			v = model.Regressed
		case model.CanaryPass, model.CanaryMarginal:
			v = model.Unchanged
		default:
			// A full rollout (the old pods went as the new came) inside
			// AFTER's window has no old pods to judge the new ones
			// against in the same minutes: before against after is the
			// judgment, on the service's own latency and errors and its
			// workload's pooled pods, decided above.
			if !ro.Full {
				continue
			}
			v, effect, reason = model.Unchanged, 0, "a full rollout inside AFTER's window (the old pods went as the new came): its service's latency and errors did not regress"
			if w := r.serviceRegression(cw.Service); w != nil {
				v, effect = model.Regressed, w.item.Effect
				reason = "a full rollout inside AFTER's window (the old pods went as the new came), and its service regressed: " + labelOf(&w.item) + " " + changeText(&w.item)
			}
		}
		it := model.Item{ID: "rollout/" + cw.Workload, Kind: model.KindRollout, Entity: "workload/" + cw.Workload, EntityKind: "workload",
			Service: cw.Service, Signal: "rollout", Depth: r.depthOf(cw.Service), Direction: +1, Verdict: v,
			Reason: reason, Effect: effect, LogRatio: nan(), Before: nanStats(), After: nanStats(), Baseline: nanStats(),
			Test: nanTest("canary"), Band: nanBand()}
		r.work = append(r.work, &itemWork{item: it})
	}
}

// serviceRegression is the regressed item of a service's own latency or
// errors that moved most — its span-level or service-level measurements,
// or its workload's pooled pod series (the old pods in BEFORE, the new
// ones in AFTER) — nil when none regressed.
func (r *run) serviceRegression(svc string) *itemWork {
	var best *itemWork
	for _, w := range r.work {
		it := &w.item
		if it.Verdict != model.Regressed || it.Facet != "" || (it.Signal != "latency" && it.Signal != "errors") {
			continue
		}
		own := strings.EqualFold(it.Entity[strings.IndexByte(it.Entity, '/')+1:], svc) && (it.EntityKind == "service" || strings.HasPrefix(it.ID, "series/service/"))
		if !own && !(it.EntityKind == "workload" && it.Service == svc) {
			continue
		}
		if best == nil || it.Effect > best.item.Effect {
			best = w
		}
	}
	return best
}
