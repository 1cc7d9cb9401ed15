package scorecard

import (
	"math"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// t0 is the fixed start of the hand-built incidents: 2025-03-01T12:00:00Z.
var t0 = ingest.FromTime(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))

func at(d time.Duration) ingest.Time { return t0.Add(d) }

// heatCells builds rows×n cells: row r ramps up after slice onset+r (the
// bottleneck propagating one slice per depth), with NaN where gaps is true.
func heatCells(rows, n, onset int, gaps map[[2]int]bool) [][]float64 {
	out := make([][]float64, rows)
	for r := range out {
		out[r] = make([]float64, n)
		for j := range out[r] {
			switch {
			case gaps[[2]int{r, j}]:
				out[r][j] = math.NaN()
			case j < onset+r:
				out[r][j] = 0.05 + 0.01*float64((j+r)%4)
			default:
				out[r][j] = math.Min(1, 0.35+0.15*float64(j-onset-r)) * (1 - 0.2*float64(r)/float64(rows))
			}
		}
	}
	return out
}

// confidentCard is a confident GPU root cause: 3 causes, 3 heatmaps.
func confidentCard() *Card {
	gpuPath := []PathStep{
		{Node: "gpu/GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55", Service: "vllm", Signal: "gpu_mem_bw"},
		{Node: "pod/vllm-7d9f8b6c5-x2k4p", Service: "vllm", Signal: "latency", Lag: 30 * time.Second, EdgeKind: "placement"},
		{Node: "service/api-gateway", Service: "api-gateway", Signal: "latency", Lag: 15 * time.Second, EdgeKind: "call"},
	}
	kvPath := []PathStep{
		{Node: "pod/vllm-7d9f8b6c5-x2k4p", Service: "vllm", Signal: "kv_cache"},
		{Node: "pod/vllm-7d9f8b6c5-x2k4p", Service: "vllm", Signal: "latency", Lag: 30 * time.Second, EdgeKind: "lagged"},
		{Node: "service/api-gateway", Service: "api-gateway", Signal: "latency", Lag: 15 * time.Second, EdgeKind: "call"},
	}
	edgePath := []PathStep{
		{Node: "edge/api-gateway->tokenizer", Service: "tokenizer", Signal: "latency"},
		{Node: "service/api-gateway", Service: "api-gateway", Signal: "latency", Lag: time.Minute + 30*time.Second, EdgeKind: "call"},
	}
	rowsGPU := []HeatRow{{"service/api-gateway latency", 2, true}, {"gpu/GPU-5a1c9e2f gpu_mem_bw", 0, false}, {"pod/vllm-7d9f8b6c5-x2k4p latency", 1, false}, {"node/gpu-node-b cpu", 1, false}}
	rowsKV := []HeatRow{{"pod/vllm-7d9f8b6c5-x2k4p kv_cache", 0, false}, {"pod/vllm-7d9f8b6c5-x2k4p latency", 1, false}, {"service/api-gateway latency", 2, true}}
	rowsEdge := []HeatRow{{"edge/api-gateway->tokenizer latency (client)", 0, false}, {"edge/api-gateway->tokenizer latency (server)", 1, false}, {"service/api-gateway latency", 2, true}}
	return &Card{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "pipeline-analyze", Version: "0.1.0"},
		Method:        MethodTCG,
		Incident: Incident{
			Target: Target{Service: "api-gateway", Signal: "latency", Stat: "p99", Component: "service/api-gateway"},
			At:     at(9 * time.Minute), WindowStart: at(5 * time.Minute), WindowEnd: at(20 * time.Minute),
			BaselineStart: t0, BaselineEnd: at(5 * time.Minute),
			TargetChosenBy: "alert HighRequestLatency in alert.json", AtChosenBy: "largest anomaly",
			AlertName: "HighRequestLatency", AlertAt: at(10 * time.Minute), RunbookURL: "https://runbooks.example/HighRequestLatency",
			Paged: Paged{Series: `llm_ttft_seconds{quantile="0.99",service="api-gateway"}`, Query: `llm_ttft_seconds{quantile="0.99",service="api-gateway"}`,
				What: "P99 api-gateway TTFT", Unit: "s", Direction: "up", Baseline: 0.9, Observed: 4.8,
				Text: "P99 api-gateway TTFT rose to 4.80 s from 900 ms",
				Chart: Chart{Label: "P99 api-gateway TTFT", Unit: "s", Start: at(5 * time.Minute), Step: time.Minute,
					Values: []float64{0.9, 0.95, 0.9, 1.8, 3.5, 4.6, 4.8, 4.7, 4.9, 4.8}, Baseline: 0.9, BandLow: 0.6, BandHigh: 1.2,
					WindowStart: at(5 * time.Minute), WindowEnd: at(20 * time.Minute), Alert: at(10 * time.Minute)}},
		},
		Verdict: Verdict{Confident: true,
			Text:           "root cause: GPU-5a1c… on gpu-node-b (DRAM bandwidth), confidence 0.87",
			Counterfactual: "had it stayed at baseline, P99 TTFT would have been 0.9 s instead of 4.8 s", MinShare: 0.05},
		Causes: []Cause{
			{Rank: 1, Service: "vllm", Component: "GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55", ComponentKind: "gpu", Signal: "gpu_mem_bw",
				Score: 0.912, Confidence: 0.87, Severity: SeverityCritical, State: StateRootConfirmed,
				Intervention: Intervention{Target: "gpu/GPU-5a1c9e2f:gpu_mem_bw", Observed: 4.8, Counterfactual: 0.9, Unit: "s",
					ExplainedShare: 0.81, Interval: [2]float64{0.72, 0.88}},
				Dimensions: []Dimension{{DimLatencySurge, 0.64, 0.25}, {DimErrorPropagation, 0.05, 0.25}, {DimResourceSaturation, 0.97, 0.35}, {DimConfigDrift, 0, 0.15}},
				Evidence: []Evidence{
					{Kind: EvidenceSeries, Text: "DRAM bandwidth utilisation fell while SM activity stayed flat", Series: "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"3\"}",
						Baseline: 0.91, Incident: 0.42, Unit: "ratio", At: at(8*time.Minute + 30*time.Second)},
					{Kind: EvidenceTransition, Text: "IDLE→TRIGGERED→ROOT_CONFIRMED; first node to trigger", At: at(8*time.Minute + 30*time.Second)},
					{Kind: EvidenceSpans, Text: "decode spans on vllm-7d9f8b6c5-x2k4p 5.3× slower", Baseline: 0.21, Incident: 1.12, Unit: "s",
						TraceIDs: []string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"}},
					{Kind: EvidenceKernel, Text: "ampere_fp16_s16816gemm kernel time +310% (nsys)", Baseline: 1.9, Incident: 7.8, Unit: "ms"},
				},
				Path: gpuPath,
				NextSteps: []Step{
					runbookStep("https://runbooks.example/HighRequestLatency"),
					{Kind: StepConfirm, Text: "this GPU's clocks, throttle reasons and ECC errors", Where: "on node gpu-node-b", Source: "built-in",
						Command: "nvidia-smi -i GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55 -q -d PERFORMANCE,CLOCK,ECC"},
					{Kind: StepConfirm, Text: "the series that moved", Query: `DCGM_FI_PROF_DRAM_ACTIVE{gpu="0"}`, Source: "built-in"},
					{Kind: StepMitigate, Text: "reschedule the pod that uses this GPU", Command: "kubectl -n llm delete pod vllm-7d9f8b6c5-x2k4p", Source: "built-in"},
				}},
			{Rank: 2, Service: "vllm", Component: "vllm-7d9f8b6c5-x2k4p", ComponentKind: "pod", Signal: "kv_cache",
				Score: 0.412, Confidence: 0.38, Severity: SeverityWarning, State: StatePropagating,
				Intervention: Intervention{Target: "pod/vllm-7d9f8b6c5-x2k4p:kv_cache", Observed: 4.8, Counterfactual: 3.9, Unit: "s",
					ExplainedShare: 0.23, Interval: [2]float64{0.11, 0.34}},
				Dimensions: []Dimension{{DimLatencySurge, 0.31, 0.25}, {DimErrorPropagation, 0.02, 0.25}, {DimResourceSaturation, 0.74, 0.35}, {DimConfigDrift, 0, 0.15}},
				Evidence: []Evidence{{Kind: EvidenceSeries, Text: "KV-cache usage near full", Series: "vllm:kv_cache_usage_perc",
					Baseline: 62, Incident: 98.5, Unit: "%", At: at(9 * time.Minute)}},
				Path: kvPath},
			{Rank: 3, Service: "tokenizer", Component: "api-gateway->tokenizer", ComponentKind: "edge", Signal: "latency",
				Score: 0.087, Confidence: 0.09, Severity: SeverityInfo, State: StateTriggered,
				Intervention: Intervention{Target: "edge/api-gateway->tokenizer:latency", Observed: 4.8, Counterfactual: 4.7, Unit: "s",
					ExplainedShare: 0.02, Interval: [2]float64{0, 0.06}},
				Dimensions: []Dimension{{DimLatencySurge, 0.12, 0.25}, {DimErrorPropagation, 0, 0.25}, {DimResourceSaturation, 0, 0.35}, {DimConfigDrift, 0.4, 0.15}},
				Evidence:   []Evidence{{Kind: EvidenceEvent, Text: "ConfigMap tokenizer-config updated", At: at(7 * time.Minute)}},
				Path:       edgePath},
		},
		Rows: []Row{
			{Rank: 1, Service: "vllm", Component: "GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55", ComponentKind: "gpu", Signals: []string{"gpu_mem_bw"},
				Causes: []int{1}, Confidence: 0.62, ServiceConfidence: 0.87, ExplainedShare: 0.81, Onset: at(8*time.Minute + 30*time.Second),
				Severity: SeverityCritical, Evidence: "DRAM bandwidth utilisation fell while SM activity stayed flat",
				Chart: Chart{Label: "gpu/GPU-5a1c9e2f gpu_mem_bw", Unit: "ratio", Start: at(5 * time.Minute), Step: time.Minute,
					Values: []float64{0.91, 0.9, 0.92, 0.6, 0.45, 0.42, 0.41, math.NaN(), 0.43, 0.42}, Baseline: 0.91, BandLow: 0.85, BandHigh: 0.97,
					WindowStart: at(5 * time.Minute), WindowEnd: at(20 * time.Minute), Onset: at(8*time.Minute + 30*time.Second), Alert: at(10 * time.Minute)}},
			{Rank: 2, Service: "vllm", Component: "vllm-7d9f8b6c5-x2k4p", ComponentKind: "pod", Signals: []string{"kv_cache"}, Causes: []int{2},
				Confidence: 0.25, ServiceConfidence: 0.87, ExplainedShare: 0.23, Onset: at(9 * time.Minute), Severity: SeverityWarning,
				Evidence: "KV-cache usage near full", Chart: Chart{Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN()}},
			{Rank: 3, Service: "tokenizer", Component: "api-gateway->tokenizer", ComponentKind: "edge", Signals: []string{"latency"}, Causes: []int{3},
				Confidence: 0.09, ServiceConfidence: 0.09, ExplainedShare: 0.02, Onset: at(11 * time.Minute), AfterAlert: true, Severity: SeverityInfo,
				Evidence: "ConfigMap tokenizer-config updated", Chart: Chart{Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN()}},
		},
		Unexplained: 0.12,
		Pruned:      Pruned{Shown: 3, Total: 143, Dropped: 140, MinScore: 0.05},
		RequestBreaks: []RequestBreak{{Service: "tokenizer", CauseRank: 3, Evidence: Evidence{Kind: EvidencePattern,
			Text:     `in requests of /v1/tokenize to tokenizer, after log "load vocab <*>" came log "vocab ready" in 240 of 241 in the baseline and in 28 of 212 in the window; instead: the request's end (p = 3e-41 over the service's patterns)`,
			Baseline: 240.0 / 241, Incident: 28.0 / 212, Unit: "ratio", TraceIDs: []string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"}}}},
		Heatmaps: []Heatmap{
			{CauseRank: 1, Title: "gpu/GPU-5a1c9e2f gpu_mem_bw and dependants", Rows: rowsGPU, Start: at(5 * time.Minute), Slice: 30 * time.Second,
				Cells: heatCells(4, 30, 7, map[[2]int]bool{{3, 12}: true, {3, 13}: true}), Onset: at(8*time.Minute + 30*time.Second), Alert: at(10 * time.Minute)},
			{CauseRank: 2, Title: "pod/vllm-7d9f8b6c5-x2k4p kv_cache", Rows: rowsKV, Start: at(5 * time.Minute),
				Cells: heatCells(3, 30, 8, nil), Onset: at(9 * time.Minute), Alert: at(10 * time.Minute)},
			{CauseRank: 3, Title: "edge/api-gateway->tokenizer latency", Rows: rowsEdge, Start: at(5 * time.Minute), Slice: 30 * time.Second,
				Cells: heatCells(3, 30, 12, map[[2]int]bool{{0, 0}: true}), Onset: at(11 * time.Minute), Alert: at(10 * time.Minute)},
		},
		Overview: Heatmap{Title: "every service by call depth (3 services), each row its most deviating signal", Start: at(5 * time.Minute),
			Slice: 30 * time.Second, Alert: at(10 * time.Minute),
			Rows:  []HeatRow{{Label: "api-gateway", Target: true}, {Label: "tokenizer", Depth: 1}, {Label: "vllm", Depth: 1}},
			Cells: heatCells(3, 30, 9, nil)},
		Warnings: []Footnote{
			{N: 1, Kind: "clock skew", Source: "traces/jaeger.json", Count: 3, Message: "3 spans start before their parent (max 12ms); times kept"},
		},
		Inputs: []InputRow{
			{Path: "traces/jaeger.json", Format: "jaeger-json", SHA256: "5f2c9a1b03de77a1c0ffee00aa11bb22cc33dd44ee55ff6677889900aabbccdd", Size: 1843921,
				Start: at(0), End: at(20 * time.Minute), Spans: 48213, Traces: 2311},
			{Path: "metrics/dcgm.json", Format: "prometheus-query-range", SHA256: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", Size: 90211,
				Start: at(0), End: at(20 * time.Minute), Series: 24, Points: 9600},
			{Path: "alert.json", Format: "alertmanager", SHA256: "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100", Size: 1422,
				Start: at(10 * time.Minute), End: at(10 * time.Minute), Alerts: 1},
		},
		Inventory: Inventory{Entities: []EntityRow{
			{Kind: "gpu", Name: "GPU-5a1c9e2f-3b7d-4c11-9a0e-7f3d2b1c4e55", Service: "vllm", Node: "gpu-node-b", Signals: []string{"gpu_mem_bw", "gpu_util", "power"}},
			{Kind: "node", Name: "gpu-node-b", Node: "gpu-node-b", Signals: []string{"cpu", "memory"}},
			{Kind: "pod", Name: "vllm-7d9f8b6c5-x2k4p", Service: "vllm", Node: "gpu-node-b", Signals: []string{"kv_cache", "latency", "queue"}},
			{Kind: "service", Name: "api-gateway", Service: "api-gateway", Signals: []string{"errors", "latency", "traffic"}},
			{Kind: "service", Name: "tokenizer", Service: "tokenizer", Signals: []string{"latency"}},
		}},
		Manifest: Manifest{Version: "0.1.0",
			Args: []string{"pipeline-analyze", "analyze", "--method", "tcg", "--seed", "42", "traces/jaeger.json", "metrics/dcgm.json", "alert.json"},
			Inputs: []ManifestInput{
				{Path: "traces/jaeger.json", SHA256: "5f2c9a1b03de77a1c0ffee00aa11bb22cc33dd44ee55ff6677889900aabbccdd"},
				{Path: "metrics/dcgm.json", SHA256: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"},
				{Path: "alert.json", SHA256: "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"},
			}},
		Sampling: "traces are head-sampled at 10%; bootstrap 200 resamples, seed 42",
	}
}

// abstainCard abstains: no confident cause, NaN values, warnings, a skipped
// input, no heatmaps, and the demo note.
func abstainCard() *Card {
	return &Card{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "pipeline-analyze", Version: "0.1.0"},
		Method:        MethodNSigma,
		Demo:          "this ran on the embedded demo incident; run on your own data with: pipeline-analyze analyze traces.json metrics.json",
		Incident: Incident{
			Target: Target{Service: "checkout", Signal: "errors", Stat: "ratio", Component: "service/checkout"},
			At:     at(12 * time.Minute), WindowStart: at(10 * time.Minute), WindowEnd: at(15 * time.Minute),
			BaselineStart: at(2 * time.Minute), BaselineEnd: at(10 * time.Minute),
			TargetChosenBy: "--target flag", AtChosenBy: "--at flag",
			WindowChosenBy: "reaches back 30s, to a sample before the target's onset: it was 4.1 σ off at 2025-03-01T12:10:15Z and stayed off into the window centred on the incident time",
		},
		Verdict: Verdict{Confident: false, Text: "no confident root cause",
			Counterfactual: "no single candidate explains more than 20% of the error-ratio deviation", MinShare: math.NaN()},
		Causes: []Cause{
			{Rank: 1, Service: "payments", Component: "payments", ComponentKind: "service", Signal: "errors",
				Score: 0.061, Confidence: math.NaN(), Severity: SeverityInfo, State: StateTriggered,
				Intervention: Intervention{Target: "service/payments:errors", Observed: 0.043, Counterfactual: math.NaN(), Unit: "ratio",
					ExplainedShare: math.NaN(), Interval: [2]float64{math.NaN(), math.NaN()}},
				Dimensions: []Dimension{{DimErrorPropagation, 0.18, 1}}},
		},
		Rows: []Row{{Rank: 1, Service: "payments", Component: "payments", ComponentKind: "service", Signals: []string{"errors"}, Causes: []int{1},
			Confidence: math.NaN(), ServiceConfidence: math.NaN(), ExplainedShare: math.NaN(), Severity: SeverityInfo,
			Chart: Chart{Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN()}}},
		Unexplained: 0.91,
		Pruned:      Pruned{Shown: 1, Total: 17, Dropped: 16, MinScore: 0.05},
		Warnings: []Footnote{
			{N: 1, Kind: "gap in series", Source: "metrics/prom.json", Count: 14, Message: "14 gaps longer than 2 steps in 6 series"},
			{N: 2, Kind: "orphan span", Source: "traces/jaeger.json", Count: 212, Message: "212 spans reference a parent that is not in the file"},
			{Kind: "skipped input", Source: "notes.txt", Count: 1, Message: "unknown format"},
		},
		Inputs: []InputRow{
			{Path: "traces/jaeger.json", Format: "jaeger-json", SHA256: "11aa", Size: 5000, Start: at(0), End: at(15 * time.Minute), Spans: 900, Traces: 40},
			{Path: "metrics/prom.json", Format: "prometheus-query-range", SHA256: "22bb", Size: 7000, Start: at(0), End: at(15 * time.Minute), Series: 6, Points: 540},
			{Path: "notes.txt", Format: "unknown", SHA256: "33cc", Size: 12, Skipped: true, Error: "unknown format"},
		},
		Manifest: Manifest{Version: "0.1.0", Args: []string{"pipeline-analyze", "analyze", "--demo", "--method", "nsigma"}},
	}
}

// hostile is an input string that tries to break out of every format.
const hostile = reporttest.Hostile

// hostileCard puts the hostile string into every input-derived field a
// renderer shows.
func hostileCard() *Card {
	c := confidentCard()
	c.Demo = hostile
	c.Incident.Target.Service = hostile
	c.Incident.TargetChosenBy = hostile
	c.Verdict.Text = hostile
	c.Verdict.Counterfactual = hostile
	for i := range c.Causes {
		cs := &c.Causes[i]
		cs.Service, cs.Component, cs.Signal, cs.State, cs.Severity = hostile, hostile, hostile, hostile, hostile
		cs.Intervention.Unit = hostile
		cs.Evidence = append(cs.Evidence, Evidence{Kind: hostile, Text: hostile, Series: hostile, TraceIDs: []string{hostile}, Unit: hostile, Baseline: 1, Incident: 2})
		cs.Path[0].Node = hostile
	}
	for i := range c.Heatmaps {
		c.Heatmaps[i].Title = hostile
		c.Heatmaps[i].Rows[0].Label = hostile
	}
	c.Overview.Rows[1].Label = hostile
	c.RequestBreaks[0].Service = hostile
	c.RequestBreaks[0].Evidence.Text = hostile
	c.RequestBreaks[0].Evidence.TraceIDs = []string{hostile}
	c.Warnings[0].Message = hostile
	c.Inputs[0].Path = hostile
	c.Inventory.Entities[0].Name = hostile
	c.Manifest.Args = append(c.Manifest.Args, hostile)
	c.Manifest.Inputs[0].Path = hostile
	c.Sampling = hostile
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Service, r.Component, r.ComponentKind, r.Evidence, r.Signals = hostile, hostile, hostile, hostile, []string{hostile}
		r.Chart.Unit = hostile
	}
	c.Incident.Paged.Series, c.Incident.Paged.Query, c.Incident.Paged.Text, c.Incident.Paged.What = hostile, hostile, hostile, hostile
	c.Incident.Paged.Expr = hostile

	c.Incident.RunbookURL = "javascript:alert(1)" + hostile
	c.Causes[0].NextSteps = []Step{{Kind: StepConfirm, Text: hostile, Command: shellCommand([]string{"kubectl", "describe", "pod", hostile}), Source: "built-in"},
		{Kind: StepConfirm, Text: "runbook", URL: "javascript:alert(1)", Source: "alert runbook_url"}}
	return c
}
