// Package shape is the tail latency of an LLM-serving incident by request
// shape: a grid of input × output token buckets (log-spaced), each cell the
// p99 and count of the time to first token (TTFT), the time per output
// token (TPOT) and the end-to-end latency, over the baseline and over the
// window, and their ratio with a bootstrap interval; and the one line that
// says which shapes slowed — long prompts only (prefill-bound), long
// outputs or every token after the first (decode-bound), every shape alike
// (queueing or upstream) — with the rule of physics that turns it into
// evidence for or against a cause of each kind of signal (Reading.Bears).
//
// # What it owns, what it must not do
//
// It owns the map (Build, ForIncident, Between) and its reading. It reads
// a bundle (ingest.Bundle.LLM, the spans, the aligned series) and returns
// plain data; it must not rank, change a score, or format a report
// (evidence carries the map to the card, compare to its report; their
// renderers draw it). It names no dataset, service, metric family or
// fault: spans are recognised by their GenAI attributes (the readers'
// ingest.LLMAttrOf), histograms by the words of their names.
//
// # Where the shapes come from
//
// FindSource picks, in order: spans with token counts (gen_ai.usage.* and
// their older spellings, vLLM's gen_ai.latency.*) of the target service,
// else of the service with the most — one request per span, e2e from
// gen_ai.latency.e2e else the span's duration, TPOT from the attribute else
// the decode time over the tokens after the first; without them, an LLM
// server's request-size histograms (prompt and generated tokens per
// request: _sum and _count, as rates or counters) with its latency
// histograms (_bucket) or quantile series, per pod and grid step. From
// histograms a step counts at its pod's mean request shape: shapes
// separate only as far as pods and steps differ in their mix (a
// length-aware router's pods do; pods that all serve every shape do not,
// and the map then reads every shape alike). The card says which source
// it used.
//
// # How the change is judged
//
// A cell compares the quantile of its baseline requests with its window's
// (R type 7) and gives the ratio window ÷ baseline with a percentile
// interval of Bootstrap replicates, seeded by Seed and the cell's name: for
// requests from spans each replicate draws the resampled quantile's order
// statistics directly (measure.BootQuantile, exact, O(1)); from histograms
// it resamples the pod steps. A cell with fewer than MinCell requests on a
// side shows its quantiles and no ratio ("~"). The margins merge buckets
// with fewer than MinCell requests into their neighbours (from the ends in,
// an interior one into its smaller neighbour), and the reading uses them:
//
//   - prefill-bound: along the input axis, a boundary above which TTFT
//     slowed (ratio ≥ 1+MinRatio, its interval above 1), below which it did
//     not materially, and across which it slowed by a material factor whose
//     interval lies above 1; the highest such boundary (the largest set of
//     prompts that did not slow);
//   - decode-bound: TPOT of every request slowed so, or e2e by the same
//     rule along the output axis, while the first token of short prompts did
//     not slow;
//   - everything slowed: TTFT slowed on both sides of the boundary nearest
//     the baseline's median prompt, or the first token slowed materially
//     more than the tokens after it (a GPU-side slowdown stretches both
//     alike; a wait before the model stretches only the first);
//   - prefill- and decode-bound: both of the first two;
//   - unclear: something slowed, but neither pattern holds;
//   - unchanged: nothing slowed materially along its own axis (every
//     request's tail moving while every shape's stayed is the mix of shapes
//     moving, and is said so);
//   - unknown: fewer than MinGroup requests a side.
//
// Each side of a boundary needs MinGroup requests a period.
//
// # Parameters
//
// Options holds them; a zero field takes its default (DefaultOptions).
//
//	field        default                          why
//	InputEdges   64, 256, 1k, 4k, 16k, 64k        powers of 4: prompts span 10²–10⁵ tokens; finer grids leave most cells empty at a few requests a second
//	OutputEdges  16, 64, 256, 1k, 4k              the same for generated tokens (10¹–10⁴)
//	Quantile     0.99                             the tail the SLOs and the issue name (p99)
//	MinCell      10                               a p99 of fewer is its largest value; shown, not judged
//	MinGroup     20                               a boundary's side of fewer cannot tell ×2 from noise (TestShapeSweep)
//	MinRatio     0.25                             compare's material change (a quantile moving by one histogram bucket is not a slowdown)
//	Level        0.95                             interval confidence
//	Bootstrap    2000                             replicates per interval; each costs O(1) from spans (compare's own intervals use 200)
//	Seed         1                                the --shape-seed flag (compare: --seed), printed on the card
//	MinRequests  20                               fewest requests of a service, both periods, to map it at all
//
// With these, TestShapeSweep reads all 80 of its generated cases right (four
// scenarios, ten seeds, ×2 at 4 requests a second, from spans and from
// histograms).
//
// # Cost
//
// O(S) to collect S spans (one pass over the baseline and window), O(G·B)
// for G cells, margins and boundaries and B replicates (requests: O(1) a
// replicate; histograms: O(k·L) for k pod steps of L bounds), plus sorting
// each cell's values. Tens of milliseconds on an llm-dev case.
package shape
