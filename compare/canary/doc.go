// Package canary is compare's canary mode: in one bundle, each selected
// canary group of pods (a new ReplicaSet, workload or version: package
// peers' version model) judged against its baseline groups of the same
// service in the same minutes, metric family by metric family,
// Kayenta-style, into the Report of package compare/model (Mode
// ModeCanary).
//
// [Run] resolves the selectors (SelectorAuto: every service's latest
// rollout), judges each canary and sums the verdicts up; [FailOn] is its CI
// gate. A metric is high or low when the canary's median difference from
// the baseline reaches Threshold scales of how far one baseline pod strays
// from the others, holds in Hold of the compared cells and is a material
// change; the score is the mean over signals of the share of metrics not
// worse, and a bad critical metric (errors, latency, restarts,
// availability, the calls the canary stopped making) fails the workload
// whatever its score. [JudgeRollouts] is the same judgment for package
// compare's before/after mode, which judges a rollout inside AFTER's
// window as one of its items.
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
package canary
