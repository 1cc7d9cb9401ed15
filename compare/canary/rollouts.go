package canary

import (
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// Rollout is a rollout judged inside a window of before/after mode
// (package compare's rollout items): its new pods against its old pods
// in the same minutes.
type Rollout struct {
	// Workload is the canary judgment of the rollout's new pods.
	Workload model.CanaryWorkload
	// Full reports a full rollout inside the window: its event at or
	// after the window's start, its new pods reporting, and its old pods
	// gone before the judgment could hold them side by side ("a full
	// rollout, not a canary").
	Full bool
}

// JudgeRollouts judges, with the default options, every service's latest
// rollout (SelectorAuto) whose event comes before end, over the window
// [start, end) of b, in the order of the services; nil when b holds no
// aligned series or no rollout. A pure function of its inputs.
func JudgeRollouts(b *ingest.Bundle, start, end ingest.Time) []Rollout {
	if len(b.Grid) == 0 {
		return nil
	}
	opt := DefaultOptions()
	opt.Canary, opt.Start, opt.End = SelectorAuto, start, end
	opt = opt.withDefaults()
	m := peers.Build(b, opt.Peers)
	jobs, err := canaryJobs(m, opt)
	if err != nil { // ErrNoCanary: no rollout in the data
		return nil
	}
	var out []Rollout
	for _, j := range jobs {
		if j.rollout == nil || j.rollout.At >= end {
			continue
		}
		out = append(out, Rollout{Workload: judgeCanary(b, m, j, opt), Full: fullRollout(b, j, start, opt)})
	}
	return out
}

// fullRollout reports whether a rollout job is a full rollout inside
// the window starting at start: its event at or after start, its new pods
// reporting, and its old pods gone before the canary judgment could
// hold them side by side (canary mode's "a full rollout, not a canary").
func fullRollout(b *ingest.Bundle, j canaryJob, start ingest.Time, opt Options) bool {
	if j.rollout == nil || j.rollout.At < start || j.canary.First < 0 || len(j.baseline) == 0 {
		return false
	}
	last := -1
	for _, g := range j.baseline {
		last = max(last, g.Last)
	}
	w0, _ := slices.BinarySearch(b.Grid, start)
	return last >= 0 && last < max(w0, j.canary.First)+opt.MinCells
}
