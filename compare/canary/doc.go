// Package canary is compare's canary mode: in one bundle, each selected
// canary group of pods (a new ReplicaSet, workload or version: package
// peers' version model) judged against its baseline groups of the same
// service in the same minutes, metric family by metric family,
// Kayenta-style, into the Report of package compare/model (Mode
// ModeCanary).
//
// [Run] resolves the selectors, judges each canary and sums the verdicts
// up; [FailOn] is its CI gate. [JudgeRollouts] is the same judgment for
// package compare's before/after mode, which judges a rollout inside
// AFTER's window as one of its items.
//
// Its renderers ([RenderText], [RenderMarkdown], [RenderHTML]) are the
// ones package compare's Render hands a canary report to; the JSON is the
// model's. It imports the model, the presentation both modes share
// (compare/internal/render) and the statistics both use
// (compare/internal/cstats), never package compare.
//
// Files: canary.go (options, selectors, jobs, the run, the gate),
// judge.go (each workload's metrics judged and scored), rollouts.go (the
// rollouts of a before/after window), render.go and canary.html.tmpl (the
// text, Markdown and HTML report).
//
// # How
//
// [Run] answers "is the canary worse than the pods it replaces, right
// now?" in one window: package peers' version model says which pods are
// which version (ReplicaSets by pod-template hash, version labels, OTLP
// service.version, image tags, rollout events); the selector picks the
// canary groups (auto: each service's latest rollout), and each is judged
// against the other groups of its service (or the baseline selector's),
// Kayenta-style. Every family of per-pod series (the same metric and
// labels but the pod's own) with a bad direction is a metric: the
// canary's per-cell median pod against the baseline's, cell by cell over
// the cells where both report (peers.Between: no offset, since the canary
// has no past to learn one from; the scale is how far one baseline pod
// strays from the others). It is high or low when its median difference
// reaches Threshold (3) scales, holds beyond half of that in Hold (50%) of
// the cells and is a material change (MinRatio, 25% as in before/after
// mode; for a ratio that should stay near 1, such as a success ratio, on
// its shortfall from 1).
// A rollout's availability (canary pods reporting over pods asked for) is
// one more metric; a release none of whose asked-for pods reports in any
// cell past the version model's grace is judged from its two cells
// (peers.Params.MinCells), as one asked for at the start of a 5-minute
// AFTER window leaves no more (three changerca-dev releases that never came
// up went unnamed before/after without it; canary mode's results did not
// change). Node series copied per pod are left out: they measure
// where a pod runs, not what it is. The score is 100 × the mean over the
// signals of the share of decided metrics not worse; a worse critical
// metric (errors, latency, restarts, availability) fails the workload
// whatever the score; else pass at Pass (75) and marginal at Marginal (50),
// Kayenta's defaults. A canary whose baseline pods were gone as it started
// is a full rollout, not a canary: insufficient data, with the
// before/after command to run instead. O(groups · families · cells · pods).
package canary
