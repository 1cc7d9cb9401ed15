// Package profdiff is the profiler A/B of `pipeline-analyze compare
// --profile BASE CAND`: did a model, kernel or engine change make the step
// faster, and which layers and kernels moved? It reads two captures — each
// a PyTorch profiler (Kineto) JSON trace (.json or .json.gz) or an Nsight
// Systems SQLite export, one file or a directory of one file per rank —
// and compares them step by step, layer by layer and kernel by kernel.
//
// # What it owns, what it must not do
//
// It owns its readers of the two formats (kineto.go, nsight.go: more of
// each capture than ingest's decoders keep, which reduce a capture to GPU
// series), the attribution of GPU work (trace.go), the statistics and
// verdicts (diff.go, stats.go), its Report model (model.go) and its four
// renderers (render.go, html.go). It does not analyse incidents and no
// stage of the incident pipeline reads it; the driver wires it into
// compare.
//
// # What is compared
//
// Every GPU activity (kernel, memcpy, memset) is attributed through the
// host call that launched it (Kineto: the cuda_runtime/cuda_driver event
// of the same correlation; Nsight: the CUDA runtime row of the same
// correlationId) to
//
//   - its step: PyTorch's ProfilerStep range of the launching process open
//     at the launch (any thread: backward passes launch from their own);
//     without step annotations the capture is one step per rank;
//   - its layers: every annotation range on the launching thread that
//     encloses the launch — record_function (Kineto user_annotation),
//     nn.Module ranges (python_function "nn.Module: …", with_modules), NVTX
//     push/pop and start/end ranges — a layer's instance time being the GPU
//     time of the work launched inside it, sublayers included; names lose
//     their instance counters ("ProfilerStep#7", ", seq = 12"). Without
//     one, the innermost GPU-side annotation (gpu_user_annotation) that
//     holds the kernel; without that either, the kernel's name under its
//     launch stack collapsed (the outermost three operators, cpu_op, joined
//     by ";", then the kernel), one instance per launch;
//   - its kernel: the short kernel name (ingest/gpu.ShortKernelName), one
//     instance per launch; copies are "memcpy HtoD" and the like, sets
//     "memset".
//
// Each row compares the instances of both sides, pooled over the ranks:
// count, total, p50/p95/p99, the share of the step's GPU time, the median
// ratio (candidate ÷ baseline) with a bootstrap percentile interval
// (measure.BootQuantile's exact draw of the resampled median, Bootstrap
// replicates seeded by Seed and the row) and the difference of the
// medians with its interval, the p95 ratio and the ratio of GPU time per
// step. A step seen once a side (a capture without step annotations, one
// rank) is compared by its total: the ratio of the summed activity times,
// its interval and z-test from the delta method.
//
// # Verdicts
//
// The test of a row is Welch's t on the logarithms of its instance times:
// a kernel's or a layer's time for one input shape is close to log-normal,
// and a change scales it (shifts its logarithm); Welch allows the sides
// different spreads, and, unlike a rank test, can tell five launches ×1.5
// slower from noise when they are as steady as kernels are. All p-values
// of a report form one Benjamini–Hochberg family, as in compare. A row is
//
//   - slower: q < Alpha, the median ratio at least 1+MinRatio and its
//     interval above 1; faster: the mirror image (at most 1/(1+MinRatio),
//     the interval below 1);
//   - unchanged: tested, neither; insufficient data: fewer than MinSamples
//     instances a side; new or gone: only one side has it.
//
// With ±5% jitter on every kernel no median can move by more than 5%
// (each scaled value stays within 5% of its own), so MinRatio 5% is the
// smallest material change that jitter can never reach: TestJitterQuiet
// (the three HTA samples and the Nsight sample against jittered copies of
// themselves, five seeds each) finds no change, while TestKinetoChanges and
// TestNsightChanges find every scaled kernel and range with its factor
// within 10%.
//
// Multi-rank captures: per row and side, the rank whose median instance is
// the longest and its spread (that median over the median of the ranks'
// medians); per side, each rank's median step; a straggler is a rank whose
// median step takes at least 1+MinRatio times the median rank's, listed
// with the layers it is the slowest rank of (TestMultiRankStraggler).
//
// # Parameters
//
// Options; a zero field takes its default (DefaultOptions).
//
//	field        default  why
//	Alpha        0.01     compare's false-discovery rate
//	MinRatio     0.05     the least material change: ±5% jitter cannot reach it (above)
//	Level        0.95     interval confidence
//	Bootstrap    2000     replicates per interval (each O(1): measure.BootQuantile)
//	Seed         1        --seed, printed in the report
//	MinSamples   2        Welch's test needs a variance on each side
//	MaxFindings  10       regressions and improvements listed
//
// # Bounds
//
// The inputs are untrusted: files are opened only when regular; gzip is
// undone under Limits.MaxFileBytes; a JSON string, number or blank run
// over Limits.MaxTokenBytes and nesting over Limits.MaxDepth stop the scan
// with a positioned error; names over Limits.MaxStringBytes are cut; at
// most Limits.MaxSpans records (activities, launches and ranges) are kept
// of one capture, the rest counted in a warning; a directory gives at most
// MaxRanks files. SQLite exports are read as ingest's Nsight decoder reads
// them (read-only, immutable, real tables only, typed and sized cells,
// LIMITs, Limits.QueryTimeout); a compressed one is copied to a temporary
// file of at most Limits.MaxTempBytes.
//
// # Cost
//
// One pass over each file (both sides, and the ranks of a side, on every
// CPU), O((K + R) log(K + R)) to attribute K activities and R ranges, and
// O(rows · Bootstrap) for the intervals. BenchmarkCompare1M: two captures
// of a million kernels each (doc: docs/commands.md).
package profdiff
