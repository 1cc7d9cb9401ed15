// Package llmgen writes LLM-serving incidents whose answer is known, for
// the request-shape map's tests (package shape, the driver's binary
// tests): a gateway's requests of random shapes (input and output tokens,
// log-uniform) with a simple physics of serving — the time to the first
// token grows with the prompt, every later token takes about the same time
// — and, in the window, one kind of slowdown: only long prompts (the first
// token ×Factor for prompts of Split input tokens or more: prefill-bound),
// only long outputs (every token after the first ×Factor for outputs of
// Split output tokens or more: decode-bound), every request (the first
// token ×Factor whatever the shape: queueing or upstream), or none. It
// writes them as a Jaeger JSON trace file whose spans carry the
// OpenTelemetry GenAI attributes, and as the request-size and latency
// histograms an LLM server exports (Prometheus query_range rates per pod
// and step), so that the map can be tested from either source. Each pod's
// traffic drifts between prompt-heavy and generation-heavy mixes from step
// to step, as a router's does, so that the histograms (one mean shape per
// pod and step) can separate shapes too.
//
// A test harness: only tests import it.
package llmgen

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Scenario is the kind of slowdown in the window.
type Scenario string

// The scenarios.
const (
	Prefill    Scenario = "prefill"    // only long prompts slowed
	Decode     Scenario = "decode"     // only long outputs slowed
	Everything Scenario = "everything" // every request's first token slowed
	None       Scenario = "none"       // nothing changed
)

// Config describes one generated incident. Zero fields take defaults.
type Config struct {
	Scenario Scenario
	Factor   float64       // the slowdown (default 3)
	Split    int           // input tokens (prefill) or output tokens (decode) from which requests slow (default 4096 / 256)
	Seed     uint64        // default 1
	Start    time.Time     // the data's start (default 2026-11-01T10:00:00Z)
	Baseline time.Duration // default 30m
	Window   time.Duration // default 5m (the window follows the baseline)
	Rate     float64       // requests per second (default 4)
	Pods     int           // server pods (default 4)
	Step     time.Duration // histogram step (default 15s)
	// Service and Server name the gateway (whose spans carry the tokens)
	// and the server (whose histograms do); default "gateway", "llm".
	Service, Server string
	// PodNames name the server's pods (default Server-0, Server-1, ...).
	PodNames []string
}

// podName is pod p's name.
func (c Config) podName(p int) string {
	if p < len(c.PodNames) {
		return c.PodNames[p]
	}
	return fmt.Sprintf("%s-%d", c.Server, p)
}

func (c Config) withDefaults() Config {
	if c.Factor <= 0 {
		c.Factor = 3
	}
	if c.Split <= 0 {
		c.Split = 4096
		if c.Scenario == Decode {
			c.Split = 256
		}
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	}
	if c.Baseline <= 0 {
		c.Baseline = 30 * time.Minute
	}
	if c.Window <= 0 {
		c.Window = 5 * time.Minute
	}
	if c.Rate <= 0 {
		c.Rate = 4
	}
	if c.Pods <= 0 {
		c.Pods = 4
	}
	if c.Step <= 0 {
		c.Step = 15 * time.Second
	}
	if c.Service == "" {
		c.Service = "gateway"
	}
	if c.Server == "" {
		c.Server = "llm"
	}
	return c
}

// WindowStart is when the slowdown begins.
func (c Config) WindowStart() time.Time { c = c.withDefaults(); return c.Start.Add(c.Baseline) }

// End is the end of the data.
func (c Config) End() time.Time { c = c.withDefaults(); return c.Start.Add(c.Baseline + c.Window) }

// Request is one generated request.
type Request struct {
	Start           time.Time
	Pod             int
	In, Out         int
	TTFT, TPOT, E2E float64 // seconds
}

// logUniform draws from [lo, hi) on a log scale.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

// Requests generates the incident's requests, in start order.
func Requests(c Config) []Request {
	c = c.withDefaults()
	r := rand.New(rand.NewPCG(c.Seed, 0x5eed))
	ws := c.WindowStart()
	end := c.End()
	// Each pod's mix: whether it serves long prompts and whether long
	// outputs (pod p: long prompts when p is odd, long outputs when p/2 is
	// odd), as pods behind a length-aware router do.
	longIn := func(p int) bool { return p%2 == 1 }
	longOut := func(p int) bool { return (p/2)%2 == 1 }
	var out []Request
	gap := time.Duration(float64(time.Second) / c.Rate)
	for t := c.Start; t.Before(end); t = t.Add(time.Duration(float64(gap) * (0.5 + r.Float64()))) {
		q := Request{Start: t, Pod: r.IntN(c.Pods)}
		if longIn(q.Pod) {
			q.In = int(logUniform(r, 4096, 32768))
		} else {
			q.In = int(logUniform(r, 128, 4096))
		}
		if longOut(q.Pod) {
			q.Out = int(logUniform(r, 256, 2048))
		} else {
			q.Out = int(logUniform(r, 8, 256))
		}
		noise := func(sigma float64) float64 { return math.Exp(sigma * r.NormFloat64()) }
		q.TTFT = (0.04 + float64(q.In)*2.5e-5) * noise(0.25)
		q.TPOT = 0.02 * noise(0.15)
		if !t.Before(ws) {
			switch c.Scenario {
			case Prefill:
				if q.In >= c.Split {
					q.TTFT *= c.Factor
				}
			case Decode:
				if q.Out >= c.Split {
					q.TPOT *= c.Factor
				}
			case Everything:
				q.TTFT *= c.Factor
			}
		}
		q.E2E = q.TTFT + float64(max(q.Out-1, 0))*q.TPOT
		out = append(out, q)
	}
	return out
}

// WriteCase writes the incident into dir: traces.json (the gateway's spans,
// with gen_ai attributes, each calling the server) unless noTraces, and the
// server's histograms (metrics_*.json) unless noHist.
func WriteCase(dir string, c Config, noTraces, noHist bool) error {
	c = c.withDefaults()
	reqs := Requests(c)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !noTraces {
		f, err := os.Create(filepath.Join(dir, "traces.json"))
		if err != nil {
			return err
		}
		if err := WriteJaeger(f, c, reqs); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if !noHist {
		return WriteHistograms(dir, c, reqs)
	}
	return nil
}

type jTag struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type jSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []any  `json:"references"`
	StartTime     int64  `json:"startTime"`
	Duration      int64  `json:"duration"`
	Tags          []jTag `json:"tags"`
	ProcessID     string `json:"processID"`
}

// WriteJaeger writes the requests as Jaeger JSON: per request a trace of a
// gateway server span (gen_ai.usage.input_tokens and output_tokens,
// gen_ai.server.time_to_first_token and time_per_output_token) and the
// server's span under it.
func WriteJaeger(w io.Writer, c Config, reqs []Request) error {
	c = c.withDefaults()
	type trace struct {
		TraceID   string         `json:"traceID"`
		Spans     []jSpan        `json:"spans"`
		Processes map[string]any `json:"processes"`
	}
	var data []trace
	for i, q := range reqs {
		tid := fmt.Sprintf("%032x", i+1)
		us := q.Start.UnixMicro()
		d := int64(q.E2E*1e6) + 2000
		gw := jSpan{TraceID: tid, SpanID: fmt.Sprintf("%016x", 2*i+1), OperationName: "POST /v1/chat/completions", StartTime: us, Duration: d, ProcessID: "p1",
			Tags: []jTag{{"span.kind", "string", "server"}, {"gen_ai.usage.input_tokens", "int64", q.In}, {"gen_ai.usage.output_tokens", "int64", q.Out},
				{"gen_ai.server.time_to_first_token", "float64", q.TTFT}, {"gen_ai.server.time_per_output_token", "float64", q.TPOT}}}
		srv := jSpan{TraceID: tid, SpanID: fmt.Sprintf("%016x", 2*i+2), OperationName: "generate", StartTime: us + 1000, Duration: int64(q.E2E * 1e6), ProcessID: "p2",
			References: []any{map[string]string{"refType": "CHILD_OF", "traceID": tid, "spanID": gw.SpanID}},
			Tags:       []jTag{{"span.kind", "string", "server"}}}
		data = append(data, trace{TraceID: tid, Spans: []jSpan{gw, srv}, Processes: map[string]any{
			"p1": map[string]any{"serviceName": c.Service, "tags": []jTag{}},
			"p2": map[string]any{"serviceName": c.Server, "tags": []jTag{{"k8s.pod.name", "string", c.podName(q.Pod)}}},
		}})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(map[string]any{"data": data})
}

// latencyBuckets are the histogram bounds (seconds) of the latency
// histograms, vLLM's for TTFT extended.
var latencyBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}

// WriteHistograms writes the server's histograms as Prometheus query_range
// files of per-second rates per pod and step: the request-size histograms'
// _sum and _count, and the latency histograms' _bucket (cumulative in le).
func WriteHistograms(dir string, c Config, reqs []Request) error {
	c = c.withDefaults()
	steps := int(c.End().Sub(c.Start)/c.Step) + 1
	type acc struct {
		n, in, out float64
		b          [3][]float64
	}
	per := make([][]acc, c.Pods)
	for p := range per {
		per[p] = make([]acc, steps)
	}
	for _, q := range reqs {
		// A request is counted when it ends, in the step that holds its end.
		s := int(q.Start.Add(time.Duration(q.E2E*1e9)).Sub(c.Start) / c.Step)
		if s >= steps {
			continue
		}
		a := &per[q.Pod][s]
		a.n++
		a.in += float64(q.In)
		a.out += float64(q.Out)
		for k, v := range []float64{q.TTFT, q.TPOT, q.E2E} {
			if math.IsNaN(v) {
				continue
			}
			if a.b[k] == nil {
				a.b[k] = make([]float64, len(latencyBuckets)+1)
			}
			i := sort.SearchFloat64s(latencyBuckets, v)
			a.b[k][i]++
		}
	}
	sec := c.Step.Seconds()
	type result struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	write := func(name string, rs []result) error {
		// Prometheus' own key order: the sniffer reads the head of the file.
		type data struct {
			ResultType string   `json:"resultType"`
			Result     []result `json:"result"`
		}
		doc := struct {
			Status string `json:"status"`
			Data   data   `json:"data"`
		}{"success", data{"matrix", rs}}
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "metrics_"+name+".json"), b, 0o644)
	}
	series := func(p int, extra map[string]string, f func(a *acc) float64) result {
		m := map[string]string{"service": c.Server, "pod": c.podName(p)}
		for k, v := range extra {
			m[k] = v
		}
		res := result{Metric: m}
		for s := range steps {
			t := c.Start.Add(time.Duration(s) * c.Step)
			res.Values = append(res.Values, [2]any{float64(t.Unix()), strconv.FormatFloat(f(&per[p][s])/sec, 'g', -1, 64)})
		}
		return res
	}
	pre := c.Server + "_"
	for _, h := range []struct {
		name string
		f    func(a *acc) float64
	}{
		{pre + "request_prompt_tokens_sum_rate", func(a *acc) float64 { return a.in }},
		{pre + "request_prompt_tokens_count_rate", func(a *acc) float64 { return a.n }},
		{pre + "request_generation_tokens_sum_rate", func(a *acc) float64 { return a.out }},
		{pre + "request_generation_tokens_count_rate", func(a *acc) float64 { return a.n }},
	} {
		var rs []result
		for p := range c.Pods {
			rs = append(rs, series(p, nil, h.f))
		}
		if err := write(h.name, rs); err != nil {
			return err
		}
	}
	for k, name := range []string{pre + "time_to_first_token_seconds_bucket_rate", pre + "time_per_output_token_seconds_bucket_rate", pre + "e2e_request_latency_seconds_bucket_rate"} {
		var rs []result
		for p := range c.Pods {
			les := append(slices.Clone(latencyBuckets), math.Inf(1))
			for i, le := range les {
				leS := strconv.FormatFloat(le, 'g', -1, 64)
				if math.IsInf(le, 1) {
					leS = "+Inf"
				}
				rs = append(rs, series(p, map[string]string{"le": leS}, func(a *acc) float64 {
					if a.b[k] == nil {
						return 0
					}
					cum := 0.0
					for j := 0; j <= i; j++ {
						cum += a.b[k][j]
					}
					return cum
				}))
			}
		}
		if err := write(name, rs); err != nil {
			return err
		}
	}
	return nil
}
