package driver

import (
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/simulate"
	"github.com/spf13/pflag"
)

const simulateUsage = `pipeline-analyze simulate generates a deterministic LLM-serving incident
(traces, Prometheus metrics, nvidia-smi log, Kubernetes events, Alertmanager
alert) with its ground truth label.json. The same flags always produce
byte-identical files.

Usage:
  pipeline-analyze simulate [flags]

Examples:
  pipeline-analyze simulate --list
  pipeline-analyze simulate --fault gpu_bandwidth_contention --seed 42 --out inc
  pipeline-analyze simulate --fault tool_api_slow+gpu_throttling --seed 7 --out combo
  pipeline-analyze simulate --fault traffic_surge --seed 3 --scale 3 --out big
  pipeline-analyze simulate --catalog catalog --seeds 101
  pipeline-analyze simulate --fault tool_api_slow --seed 7 --fixed --out fixed  # the case, fixed
`

// simulateOpts are the simulate command's flags.
type simulateOpts struct {
	spec    fixtures.Spec
	out     string
	list    bool
	catalog string
	seeds   string
	demo    bool
}

// newSimulateFlags defines the simulate command's flags.
func newSimulateFlags() (*pflag.FlagSet, *simulateOpts) {
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &simulateOpts{}
	spec := &o.spec
	fs.StringVar(&spec.Fault, "fault", "", "`FAULT` to inject (see --list); two joined by + run concurrently; none = healthy")
	fs.Uint64Var(&spec.Seed, "seed", 1, "seed of every random choice")
	fs.Float64Var(&spec.Scale, "scale", 1, "traffic multiplier; replicas grow as 3*sqrt(scale) (60 gives about a million spans, streamed)")
	fs.Float64Var(&spec.Magnitude, "magnitude", 1, "fault severity multiplier (1 breaches the TTFT SLO; 0.3 is subtle)")
	fs.DurationVar(&spec.Onset, "onset", fixtures.DefaultOnset, "ramp time of the fault to full severity (negative: a step)")
	fs.DurationVar(&spec.InjectAfter, "inject-after", 0, "fault start after the incident start (0: seed-derived, 5.5-7 min before the end)")
	fs.DurationVar(&spec.Duration, "duration", fixtures.DefaultDuration, "length of the incident")
	fs.Float64Var(&spec.SampleRate, "sample-rate", fixtures.DefaultSampleRate, "trace head-sampling probability")
	fs.BoolVar(&spec.OTLP, "otlp", false, "write traces.otlp.json (OTLP JSON) instead of traces.json.gz (Jaeger JSON)")
	fs.BoolVar(&spec.Fixed, "fixed", false, "write the case's follow-up after the fix: same system, traffic and seed, the fault never injected")
	fs.BoolVar(&o.demo, "demo", false, "write the embedded demo incident (gpu_bandwidth_contention, seed 42) to --out")
	clihelp.SetGroup(fs, clihelp.GroupAnalysis, "fault", "seed", "scale", "magnitude", "onset", "inject-after", "duration", "sample-rate", "otlp", "fixed", "demo")
	fs.StringVar(&o.out, "out", "", "output `DIR` of the incident")
	fs.BoolVar(&o.list, "list", false, "list the fault catalog and exit")
	fs.StringVar(&o.catalog, "catalog", "", "write every fault x every seed into `DIR`/<fault>-s<seed>")
	fs.StringVar(&o.seeds, "seeds", "101,102,103,104,105", "comma-separated seeds for --catalog")
	clihelp.SetGroup(fs, clihelp.GroupOutput, "out", "list", "catalog", "seeds")
	return fs, o
}

// runSimulate is the simulate subcommand (package simulate over
// fixtures): 0 ok, 1 runtime error, 2 usage error.
func runSimulate(args []string, stdout, stderr io.Writer) int {
	fs, o := newSimulateFlags()
	if code, ok := parseFlags(fs, args, "simulate", func(w io.Writer) { writeHelp(w, commandByName("simulate")) }, stdout, stderr); !ok {
		return code
	}
	spec, out := o.spec, o.out
	if fs.NArg() > 0 {
		return usageErrorFor(stderr, "simulate", fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	switch {
	case o.list:
		if err := simulate.PrintFaults(stdout, clihelp.Width); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 1
		}
		return 0
	case o.catalog != "":
		ss, err := simulate.ParseSeeds(o.seeds)
		if err != nil {
			return usageErrorFor(stderr, "simulate", fmt.Errorf("--seeds: %w", err))
		}
		if err := simulate.WriteCatalog(o.catalog, ss, stderr); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 1
		}
		return 0
	}
	if o.demo {
		d := fixtures.DemoSpec()
		spec.Fault, spec.Seed = d.Fault, d.Seed
	}
	if out == "" || spec.Fault == "" {
		return usageErrorFor(stderr, "simulate", errors.New("--fault and --out are required (or --list, or --catalog DIR)"))
	}
	l, err := fixtures.Write(out, spec)
	if err != nil {
		if errors.Is(err, fixtures.ErrSpec) {
			return usageErrorFor(stderr, "simulate", err)
		}
		fmt.Fprintf(stderr, "pipeline-analyze simulate: %v\n", err)
		return 1
	}
	simulate.WriteSummary(stdout, out, l)
	return 0
}
