package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/spf13/pflag"
)

const simulateUsage = `Usage: pipeline-analyze simulate [flags]

Generate a deterministic LLM-serving incident (traces, Prometheus metrics,
nvidia-smi log, Kubernetes events, Alertmanager alert) with its ground truth
label.json. The same flags always produce byte-identical files.

Examples:
  pipeline-analyze simulate --list
  pipeline-analyze simulate --fault gpu_bandwidth_contention --seed 42 --out /tmp/inc
  pipeline-analyze simulate --fault tool_api_slow+gpu_throttling --seed 7 --out /tmp/combo
  pipeline-analyze simulate --fault traffic_surge --seed 3 --scale 30 --out /tmp/big
  pipeline-analyze simulate --catalog /tmp/catalog --seeds 101,102,103,104,105
  pipeline-analyze simulate --fault tool_api_slow --seed 7 --fixed --out /tmp/fixed   # the same case, fixed

Flags:
`

// runSimulate is the simulate subcommand: 0 ok, 1 runtime error, 2 usage error.
func runSimulate(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		spec    fixtures.Spec
		out     string
		list    bool
		catalog string
		seeds   string
		demo    bool
	)
	fs.StringVar(&spec.Fault, "fault", "", "fault to inject (see --list); two joined by + run concurrently; none = healthy")
	fs.Uint64Var(&spec.Seed, "seed", 1, "seed of every random choice")
	fs.StringVar(&out, "out", "", "output directory of the incident")
	fs.Float64Var(&spec.Scale, "scale", 1, "traffic multiplier; replicas grow as 3*sqrt(scale) (60 gives about a million spans, streamed)")
	fs.Float64Var(&spec.Magnitude, "magnitude", 1, "fault severity multiplier (1 breaches the TTFT SLO; 0.3 is subtle)")
	fs.DurationVar(&spec.Onset, "onset", fixtures.DefaultOnset, "ramp time of the fault to full severity (negative: a step)")
	fs.DurationVar(&spec.InjectAfter, "inject-after", 0, "fault start after the incident start (0: seed-derived, 5.5-7 min before the end)")
	fs.DurationVar(&spec.Duration, "duration", fixtures.DefaultDuration, "length of the incident")
	fs.Float64Var(&spec.SampleRate, "sample-rate", fixtures.DefaultSampleRate, "trace head-sampling probability")
	fs.BoolVar(&spec.OTLP, "otlp", false, "write traces.otlp.json (OTLP JSON) instead of traces.json.gz (Jaeger JSON)")
	fs.BoolVar(&spec.Fixed, "fixed", false, "write the case's follow-up after the fix: same system, traffic and seed, the fault never injected")
	fs.BoolVar(&list, "list", false, "list the fault catalog and exit")
	fs.BoolVar(&demo, "demo", false, "write the embedded demo incident (gpu_bandwidth_contention, seed 42) to --out")
	fs.StringVar(&catalog, "catalog", "", "write every fault x every seed into DIR/<fault>-s<seed>")
	fs.StringVar(&seeds, "seeds", "101,102,103,104,105", "comma-separated seeds for --catalog")
	fs.Usage = func() {
		fmt.Fprint(stderr, simulateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simulate: unexpected arguments %q\n", fs.Args())
		return 2
	}
	switch {
	case list:
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FAULT\tSIGNAL\tDESCRIPTION")
		for _, f := range fixtures.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Signal, f.Description)
		}
		if err := tw.Flush(); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 1
		}
		return 0
	case catalog != "":
		ss, err := parseSeeds(seeds)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: --seeds: %v\n", err)
			return 2
		}
		start := time.Now()
		n := 0
		err = fixtures.WriteCatalog(catalog, ss, func(msg string) {
			n++
			fmt.Fprintf(stderr, "[%d/%d] %s\n", n, len(ss)*len(fixtures.Faults()), msg)
		})
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "wrote %d incidents to %s in %s\n", n, catalog, time.Since(start).Round(time.Millisecond))
		return 0
	}
	if demo {
		d := fixtures.DemoSpec()
		spec.Fault, spec.Seed = d.Fault, d.Seed
	}
	if out == "" || spec.Fault == "" {
		fmt.Fprintln(stderr, "simulate: --fault and --out are required (or --list, --catalog DIR)")
		fs.Usage()
		return 2
	}
	l, err := fixtures.Write(out, spec)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		if errors.Is(err, fixtures.ErrSpec) {
			return 2
		}
		return 1
	}
	alert := l.AlertTime
	if alert == "" {
		alert = "never (SLO not breached)"
	}
	if l.Fixed {
		fmt.Fprintf(stdout, "wrote %s\nfault:      %s, fixed (never injected)\nalert:      %s\n", out, l.Fault, alert)
		return 0
	}
	fmt.Fprintf(stdout, "wrote %s\nfault:      %s (injected %s)\nroot cause: %s / %s (%s)\ndistractor: %s / %s (%s)\nalert:      %s\n",
		out, l.Fault, l.InjectTime, l.RootCause.Service, l.RootCause.Component, l.RootCause.Signal,
		l.Distractor.Service, l.Distractor.Component, l.Distractor.Signal, alert)
	return 0
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad seed %q: %w", f, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("no seeds")
	}
	return out, nil
}
