package profdiff

// SchemaVersion is the version of the Report's JSON shape
// (docs/profdiff.schema.json).
const SchemaVersion = "1"

// Verdicts of a row, from the candidate's point of view.
const (
	Slower       = "slower"
	Faster       = "faster"
	Unchanged    = "unchanged"
	Insufficient = "insufficient data" // too few instances on a side to test
	New          = "new"               // only in the candidate
	Gone         = "gone"              // only in the baseline
)

// Row kinds.
const (
	KindStep   = "step"
	KindLayer  = "layer"
	KindKernel = "kernel"
)

// Report is the one model of a profiler A/B; the renderers only read it.
// Times are seconds; unknown numbers NaN (JSON null, "~" in text).
type Report struct {
	SchemaVersion string   `json:"schema_version"`
	Tool          Tool     `json:"tool"`
	Verdict       Summary  `json:"verdict"`
	Base          SideInfo `json:"base"`
	Cand          SideInfo `json:"cand"`
	Settings      Settings `json:"settings"`
	// Step is the GPU time of one step (PyTorch's ProfilerStep, else the
	// whole capture); StepWall the step ranges' own duration (empty name:
	// no step annotations).
	Step     Row `json:"step"`
	StepWall Row `json:"step_wall"`
	// Layers are every layer, Kernels every kernel, the most GPU time in the
	// baseline first (ties by name).
	Layers  []Row `json:"layers"`
	Kernels []Row `json:"kernels"`
	// Regressions and Improvements are the layers and kernels that slowed or
	// sped, the most GPU time added (saved) per step first, at most
	// Settings.MaxFindings each.
	Regressions  []Ref `json:"regressions"`
	Improvements []Ref `json:"improvements"`
	// BaseRanks and CandRanks are each rank's step time; Stragglers the
	// ranks well beyond the median rank.
	BaseRanks  []RankStat  `json:"base_ranks"`
	CandRanks  []RankStat  `json:"cand_ranks"`
	Stragglers []Straggler `json:"stragglers"`
	Warnings   []string    `json:"warnings"`
	Args       []string    `json:"args"` // the command line, for a rerun
}

// Tool names the program that produced the Report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary is the one-line answer.
type Summary struct {
	Step         string `json:"step"` // the step's verdict
	Text         string `json:"text"`
	Slower       int    `json:"slower"` // layers and kernels
	Faster       int    `json:"faster"`
	Unchanged    int    `json:"unchanged"`
	Insufficient int    `json:"insufficient"`
}

// SideInfo describes one side.
type SideInfo struct {
	Name    string   `json:"name"` // "base" or "cand"
	Paths   []string `json:"paths"`
	Format  string   `json:"format"` // kineto, nsight, or both
	Ranks   int      `json:"ranks"`
	Kernels int      `json:"kernels"` // GPU activities read
	Steps   int      `json:"steps"`   // step instances (0: none annotated; the capture is one step)
	// GPUSeconds is the GPU time of every activity over all ranks.
	GPUSeconds float64 `json:"gpu_seconds"`
}

// Settings are what every verdict was decided with.
type Settings struct {
	Alpha       float64 `json:"alpha"`     // false-discovery rate (Benjamini–Hochberg over every test)
	MinRatio    float64 `json:"min_ratio"` // the least material change of a median
	Level       float64 `json:"level"`     // the intervals' confidence
	Bootstrap   int     `json:"bootstrap"`
	Seed        uint64  `json:"seed"`
	MinSamples  int     `json:"min_samples"`  // fewest instances a side to test
	Tests       int     `json:"tests"`        // p-values in the family
	MaxFindings int     `json:"max_findings"` // regressions and improvements listed
}

// Stats summarises one side of a row: its instances (a layer's calls, a
// kernel's launches, the steps) over every rank.
type Stats struct {
	Count int     `json:"count"`
	Total float64 `json:"total_seconds"`
	P50   float64 `json:"p50_seconds"`
	P95   float64 `json:"p95_seconds"`
	P99   float64 `json:"p99_seconds"`
	// Share is the row's GPU time over the steps' (a layer's includes its
	// sublayers': shares of nested layers add up past 1).
	Share float64 `json:"share"`
	// SlowestRank is the rank whose median instance is the longest, Spread
	// that median over the median of the ranks' medians (1: no spread; NaN
	// with one rank).
	SlowestRank int     `json:"slowest_rank"`
	Spread      float64 `json:"spread"`
}

// Row compares one step, layer or kernel.
type Row struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // step, layer or kernel
	// Source says how a layer was formed: "annotation" (record_function,
	// NVTX, nn.Module), "gpu annotation", "launch stack" (an unannotated
	// kernel under its operators), or "capture" for a step without
	// annotations.
	Source string `json:"source"`
	Base   Stats  `json:"base"`
	Cand   Stats  `json:"cand"`
	// Ratio is the candidate's median over the baseline's with its
	// bootstrap percentile interval [Lo, Hi]; Delta the difference of the
	// medians (seconds) with its interval; P95Ratio and TotalRatio the
	// same ratio of the p95 and of the GPU time per step.
	Ratio      float64 `json:"ratio"`
	Lo         float64 `json:"ratio_lo"`
	Hi         float64 `json:"ratio_hi"`
	Delta      float64 `json:"delta_seconds"`
	DeltaLo    float64 `json:"delta_lo_seconds"`
	DeltaHi    float64 `json:"delta_hi_seconds"`
	P95Ratio   float64 `json:"p95_ratio"`
	TotalRatio float64 `json:"total_ratio"`
	// P is the test's p-value (Welch's t on log times); Q its
	// Benjamini–Hochberg adjustment over every row.
	P       float64 `json:"p"`
	Q       float64 `json:"q"`
	Verdict string  `json:"verdict"`
}

// Ref points at a row of Layers or Kernels from a finding list.
type Ref struct {
	Kind  string  `json:"kind"`
	Name  string  `json:"name"`
	Ratio float64 `json:"ratio"`
	// PerStep is the GPU time added (negative: saved) per step, seconds.
	PerStep float64 `json:"per_step_seconds"`
}

// RankStat is one rank's steps.
type RankStat struct {
	Rank     int     `json:"rank"`
	File     string  `json:"file"`
	Steps    int     `json:"steps"`
	StepP50  float64 `json:"step_p50_seconds"` // GPU time of its median step
	VsMedian float64 `json:"vs_median"`        // over the median rank's
}

// Straggler is a rank whose steps take materially longer than the median
// rank's, on one side.
type Straggler struct {
	Side     string  `json:"side"`
	Rank     int     `json:"rank"`
	VsMedian float64 `json:"vs_median"`
	// Layers are the layers in which it is the slowest rank, the largest
	// spread first (at most five).
	Layers []string `json:"layers"`
}
