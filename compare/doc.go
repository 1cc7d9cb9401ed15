// Package compare answers "did the fix work?": it compares two windows of
// incident data, BEFORE and AFTER (two bundles, or two windows of one), entity
// by entity and signal by signal, and says for the incident target, for the
// BEFORE side's top causes and for everything else whether AFTER is fixed,
// improved, unchanged, regressed or changed — or that there is not enough
// data to say. One model, the Report of package compare/model, has four
// renderers ([Render]: text, json, markdown, html), like the scorecard's
// Card.
//
// It owns the comparison (windows, statistics, verdicts) and the Report's
// renderers. It reads bundles through package ingest and causes through
// package causal or a saved scorecard; it must not change how a single
// incident is analysed or reported.
//
// # Where things are
//
// compare is one model and two modes that fill it, with one set of
// renderers, in five packages; each imports only those below it:
//
//   - compare/model: the model, the Report and what it holds (model.go),
//     the Canary part of a canary report (canary.go), its JSON encoding
//     (json.go);
//   - compare/internal/cstats: the statistics both modes use (the rule of
//     a ratio that should stay near 1);
//   - compare/internal/render: the presentation both modes' renderers
//     share (values with units, durations, windows, the common lines, the
//     text and Markdown writers, the page's warnings and inputs);
//   - compare/canary: canary mode (canary.Run, Mode ModeCanary): options,
//     jobs, the run, the gate, each workload's metrics judged and scored,
//     and the canary report's text, Markdown and HTML;
//   - compare (this package): before/after mode ([Run], Mode
//     ModeBeforeAfter): driver.go (the windows, gates), compare.go (the
//     run), samples.go, series.go and logs.go (the items of spans, series
//     and log templates), items.go, stats.go, boot.go and verdict.go
//     (tests and verdicts), rollouts.go (a rollout's new pods against its
//     old ones, judged by canary.JudgeRollouts), shape.go (the request
//     shape), plots.go, watch.go (what to keep watching), report.go (the
//     report from the items) and wording.go (labels and change texts); and
//     the renderers ([Render]): render.go (the format table and shared
//     lines), text.go, markdown.go, html.go and json.go, which hand a
//     canary report to canary's renderers (canary.RenderText,
//     RenderMarkdown, RenderHTML). The presentation they share with the
//     scorecard (sanitizing, escaping, numbers, the JSON conventions, the
//     style sheet) is package internal/reportfmt; the sections they share
//     with it (the request-shape section, a series' PromQL and Grafana
//     Explore link) are package internal/reportview.
//
// # What is compared
//
// From the spans starting in each window (ingest.Bundle, sorted, with
// parent links):
//
//   - per service, per pod (when the service has several) and per operation
//     (when it has several), the entry spans: their durations (a latency
//     distribution), the share that failed (errors per request) and their
//     rate (traffic);
//   - per call edge caller→callee: the callee's server-side durations (with
//     the edge's errors and calls), the caller's client-side durations and,
//     call by call, the gap between them (network and queueing); an
//     external dependency seen only from client spans (peer.service) gets
//     its client side, errors and calls.
//
// Every aligned metric series of a known entity (service, pod, node, GPU,
// edge), matched across the sides by name and labels, not by file. The
// span-derived RED series are left out (the span-level items carry them in
// full) and so is the operation-mix shift (it is measured against its own
// bundle's usual mix). The derived log counts (records, error records,
// records of new templates per step) leave out the steps in which the log
// source holds no record of any service: a gap in collection, such as a
// sparsely logged baseline, is no log, not zero logs (without this,
// tt-20230130-122929's twenty services, logged in 3 of BEFORE's 20 steps
// and in every step of AFTER, regressed from 0 records and outranked the
// delayed call). Each mined log template of a service (matched by
// the service and the template's pattern) is a rate item, tested like
// traffic over the seconds that held any log record; one whose records are
// mostly warn, error or fatal level has a bad direction, up (logs.go). A
// pod is compared as itself only when it reports through at least half of
// each window's data; otherwise — a rollout replaced it — its spans count
// for its service, and its series are pooled with the other such pods of
// its workload (labels naming the pod instance, its version, node or
// device dropped: ingest.IdentityLabel, as canary mode's families): a new
// pod of the same workload is the same workload. A service's series that
// names the peer it calls (peer_service, OpenTelemetry's peer.service) is
// the caller's side of that edge, as a client span with peer.service is.
//
// # How
//
// Latency distributions: p50/p90/p99 (R type 7) on both sides, with 95%
// percentile intervals of their differences and ratios from a block
// bootstrap that resamples the 15 s time cells of each side (Options.Cell;
// spans of one cell are not independent) with Options.Bootstrap replicates
// seeded by Options.Seed and the item's ID; the Mann–Whitney U test (tie-
// and continuity-corrected) and the two-sample Kolmogorov–Smirnov test,
// both with their variance inflated by the Kish design effect 1 + (m̄−1)·ICC
// of the ranks clustered by time cell; Cliff's δ and the Hodges–Lehmann
// shift. Errors: the two-proportion test per request (so a quieter AFTER
// does not look healthier), with the design effect of the 0/1 outcomes, and
// Cohen's h. Traffic: the conditional Poisson rate test with the counts'
// overdispersion per cell. Metric series: the median of each window, the
// robust σ (1.4826·MAD) of the baseline (else of the two windows), and a
// z-test of the median shift whose standard error allows for lag-1
// autocorrelation and for the drift between baseline windows. All p-values
// of all items — the primary test, and KS for distributions — form one
// Benjamini–Hochberg family (Settings.Tests).
//
// # The baseline band
//
// The baseline is the BEFORE side's data before its window (Options.Baseline
// bounds it). Its band is what normal looks like at the window's length:
//
//   - for a latency distribution, for each of p50/p90/p99, the range
//     [min, max] of that quantile over the baseline windows of the BEFORE
//     window's length, stepping by half a window, that hold at least
//     MinSamples spans (a quantile counts only with 10 spans beyond it);
//   - for an error ratio and a traffic rate, the same range of the ratio or
//     the rate;
//   - for a metric series, the 1st–99th percentile of its baseline points
//     (at least 12 points) — for judging a regression, without the points
//     of a disturbed stretch of the baseline (quietBaseline: baseline
//     windows whose median lies as far from the others' as a regression
//     must move, MinShift robust σ of the window medians and a material
//     change, fewer than half the windows, in an episode whose level no
//     other episode shares: an earlier incident, whose level would
//     otherwise widen the band to it; a level the baseline visits twice
//     or more — equal within a material change — is a mode the band
//     keeps), with a warning (disturbed_baseline); to say BEFORE was
//     broken or a series without a bad direction changed, from every
//     point; with 6 to 11 points (a run that starts minutes
//     before its change) the 98% Student-t prediction interval of one more
//     point, level ± t(0.99, n−1)·s·√(1+1/n), widened to hold every
//     baseline point: the band's own uncertainty widens it instead of
//     refusing (TestShortBaselineNull: no false change in 60 quiet pairs
//     with 6 baseline points).
//
// A band is known with at least BandWindows (3) such windows (12 points;
// a series from 6 points). A series whose baseline holds fewer windows as
// long as the compared ones is "insufficient baseline": the drift between
// windows cannot be told from a change with one or two of them (two
// equal medians would say there is none), so a few minutes of baseline
// never make a regression. An episodic metric series needs more: one whose
// baseline already bursts (points beyond MinShift robust σ of its level in
// the bad direction), whose same series on another pod of its workload
// does, or whose AFTER ends back within its band. A level beyond every one
// of k disjoint baseline windows comes by chance once in k+1 quiet pairs
// whatever the series' distribution, and the Gaussian shift test cannot see
// that for a bursty p99, so an episodic series beyond its band from fewer
// than SeriesWindows (5) disjoint windows is "insufficient data" with that
// reason. So is a series whose three or four disjoint baseline windows'
// levels (medians) already vary as far as AFTER went: AFTER's level within
// the 98% Student-t prediction interval of one more window's level, mean ±
// t(0.99, k−1)·s·√(1+1/k) from the k levels — a p99 whose windows sat at
// 37, 37 and 43 s says nothing by reaching 47 s, however far that is in
// its points' robust σ. A series steady through a short baseline on every
// pod, whose windows agree, that stays away from it to the end of AFTER is
// still a regression: a clean baseline that breaks is strong evidence (a
// release a few minutes into a run). TestShortBaselineQuietPairs: quiet
// pairs after 2–8 minutes of baseline on every development case; before
// these rules eight LLM cases regressed at 6–8 minutes (+5σ to +100σ),
// after the bursts rule one (a p99 end-to-end latency 23% up on one pod for
// the whole AFTER window, from a baseline whose windows' levels were 37.4,
// 37.5 and 43.1 s), after the levels rule none; every development table
// of scripts/compare-dev.sh unchanged. Disturbed baseline windows are left
// out of a band only from five windows on.
//
// # Verdicts
//
// A statistic moved when its change is significant at Alpha after
// Benjamini–Hochberg and at least the minimum effect:
//
//   - distribution, location: Mann–Whitney q < α and |δ| ≥ MinDelta;
//   - distribution, a quantile with 10 spans beyond it on both sides:
//     KS q < α, the quantile up by at least MinRatio (or down by the matching
//     MinRatio/(1+MinRatio)) and its bootstrap interval of the difference
//     excluding 0;
//   - errors: q < α and |h| ≥ MinH;
//   - series: q < α, |shift| ≥ MinShift robust σ, and the level moved by at
//     least MinRatio/(1+MinRatio) of the larger level (for a ratio that
//     should stay near 1, of the larger shortfall from 1, as canary mode
//     measures it: 1.00 → 0.81 is a fifth of the requests failing);
//   - traffic and log templates: q < α and the rate ×(1+MinRatio) or
//     ÷(1+MinRatio).
//
// Then, in the signal's bad direction (latency, errors and most saturation
// signals up; clocks and availability down; traffic and unclassified series
// have none): regressed — a statistic moved worse and AFTER's value lies
// beyond the baseline band (or there is no band); fixed — it moved better,
// BEFORE was outside the band and AFTER is back within it (for a
// distribution: every usable quantile within); improved — it moved better
// and BEFORE was outside the band but AFTER is not back, or there is no
// band; unchanged — nothing moved, or only within the band; changed — a
// signal without a bad direction moved beyond its band; insufficient data —
// a side's data covers less than MinCoverage of its window, fewer than
// MinSamples spans (MinCells time cells) or MinPoints points per side, or a
// series without a band (its normal variation is unknown). Never a guess.
//
// A latency distribution with fewer spans or cells than that is still
// tested, on its time cells (fewSpans): the exact Mann–Whitney test of
// the cells' medians (a cell's spans are not independent; the cells are
// the units), in the same Benjamini–Hochberg family, whose power depends
// on the counts — 10 cells against 12, every one slower, is p ≈ 3·10⁻⁶,
// while 3 cells against 20 can never go below 1.1·10⁻³. A change is
// called when it is significant, |δ| ≥ MinDelta and the median moved by a
// material change (MinRatio), against the band of the baseline windows
// with at least as many spans as the smaller side; otherwise the item
// stays insufficient data (few spans cannot say unchanged). With about 20
// spans a window (TestFewSpans) a 50× slower service regresses in 20 of
// 20 synthetic runs, 1.15× in none, and no quiet pair changes;
// tt-20230130-122929's call into the delayed service, 19 spans at 4 ms
// against 25 at 1.0 s, regresses (q 2·10⁻⁴) instead of being
// insufficient data.
//
// The incident target (Options.Target: from --target, the BEFORE side's
// alert, else the busiest entry service) is measured by its span-level item
// and the series of its service and signal (its stat when it has one) —
// or, when it has none of its own (an ingress measured only by its mesh's
// per-edge series), by its calls, caller side, which also stay among the
// regressions, where they name the service called; its
// verdict is regressed when any measurement regressed, else improved when
// any only improved, fixed when any was fixed, else unchanged. Each of the
// BEFORE side's top causes gets the verdict of the item of its component and
// signal that moved most. Regressions elsewhere are listed one per entity
// (its worst item), regressed rollouts first (a change that went bad in
// the window is what to undo), then those no other regression explains
// (an effect does not outrank its cause: a service's latency or errors
// come after the same signal's regression, at least as large — within a
// material change, MinRatio — in a service it calls, directly or through
// others, along the call topology the graph follows (tcg.CallPairs:
// dependencies, call-edge series, spans), unless that one calls it back;
// its log regressions after a latency or errors regression of any such
// service, as callers log their callees' failures),
// each group ranked by Effect (|Cliff's δ|: how separated the
// two sides are), then by the log ratio of what moved.
//
// A rollout inside AFTER's window (rollouts.go, package peers' version
// model) is an item of kind rollout: its new pods against its old pods in
// the same minutes, as canary mode judges them, when both report there;
// when the old pods went as the new came (a full rollout), before against
// after — regressed when the service's own latency or errors, or its
// workload's pooled pods, regressed.
//
// # Why these thresholds
//
// α = 0.01 with Benjamini–Hochberg over several hundred items, |δ| ≥ 0.2
// (between Romano's "small" 0.147 and "medium" 0.33), a 25% quantile,
// level or traffic change, h ≥ 0.2 (Cohen's "small") and 3 robust σ were
// chosen on the development sets (TestDevelopmentCases, docs/commands.md, "compare"):
// with them, two clean pre-onset windows of every development case that
// has them (llm-dev, PetShop, one TrainTicket case) report no change at
// all, while the pre-onset window against the incident window puts the
// injected component among the first five regressions in 6/10 llm-dev,
// 35/56 Nezha OnlineBoutique and 15/16 PetShop cases. What each rule is for
// was seen there: without the band, two normal windows differed (natural
// drift of memory, queue and latency quantiles); without the material-change
// rule, histogram quantiles that move by one bucket (p99 TPOT 0.05 → 0.06 s)
// and a PetShop series that alternates between two modes regressed; a
// series band from window medians instead of points missed those modes;
// normalising CPU by the traced request rate made sampled-trace noise look
// like a regression, so per-request comparison is kept to errors. Two
// rules came later from changerca-dev, whose runs start 14–18 minutes
// before their releases: a success ratio's material change measured on
// its level hid 1.00 → 0.81 ("19% of the level"), and 9–11 baseline points
// gave no band at all; with the shortfall and the short-baseline band the
// incident pairs name the root-cause service in 8/11 runs (5 before), the
// quiet pairs still report nothing, and no other set's quiet pairs or
// canary results changed. A near-1 ratio's level stays its median: its
// mean would catch a one- or two-minute burst of failures (two changerca
// defects show only so), but then a healthy pod's occasional burst
// regresses whenever the baseline held none (TestShortBaselineNull with
// bursts in 2% of minutes: 43–46 of 60 quiet pairs alarmed with the mean,
// none with the median).
//
// # Cost
//
// Run is O(S log S) in the spans S of the two windows (sorting, ranks) plus
// O(B·S) for the bootstrap (upper quantiles scan only their tail), and
// O(P) in the series points. See the package benchmark.
//
// # Canary mode
//
// Canary mode (package compare/canary) answers "is the canary worse than
// the pods it replaces, right now?" in one window, judging each canary
// group against the other groups of its service in the same minutes; its
// package documentation says how. Before/after mode uses the same
// judgment for a rollout inside AFTER's window (rollouts.go).
package compare
