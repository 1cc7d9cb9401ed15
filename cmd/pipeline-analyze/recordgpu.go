package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/pipeline-analyze/pipeline-analyze/gpurecord"
)

const recordGPUUsage = `pipeline-analyze record-gpu samples every NVIDIA GPU of this machine through
NVML (utilisation, memory, memory bandwidth, clocks, clock-event/throttle
reasons, power, temperature, PCIe and NVLink throughput, XID/ECC errors and
per-process PIDs) into a JSON Lines recording that pipeline-analyze reads back
(format: docs/nvml-recording.md).

Usage:
  pipeline-analyze record-gpu [flags]

Examples:
  # sample once a second for ten minutes
  pipeline-analyze record-gpu --interval 1s --duration 10m --out gpu.jsonl

  # sample until Ctrl-C (SIGINT) or SIGTERM, to stdout
  pipeline-analyze record-gpu --interval 500ms --out - > gpu.jsonl

  # then analyse it with the rest of the incident
  pipeline-analyze gpu.jsonl traces.json metrics.json

Exit status: 0 recorded, 1 no NVIDIA driver/NVML or a write error, 2 bad flags.

Flags:
`

// runRecordGPU is the record-gpu subcommand.
func runRecordGPU(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("record-gpu", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	interval := fs.Duration("interval", time.Second, "time between samples")
	duration := fs.Duration("duration", 0, "how long to record; 0 records until SIGINT/SIGTERM")
	out := fs.String("out", "-", "recording file (written to a temporary file, then renamed); - for stdout")
	host := fs.String("host", "", "host name recorded in the header (default: this machine's)")
	quiet := fs.BoolP("quiet", "q", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprint(stderr, recordGPUUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "record-gpu: %v\n(run pipeline-analyze record-gpu --help for usage)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "record-gpu: unexpected arguments %q\n(run pipeline-analyze record-gpu --help for usage)\n", fs.Args())
		return 2
	}
	if *interval <= 0 || *duration < 0 {
		fmt.Fprintln(stderr, "record-gpu: --interval must be > 0 and --duration >= 0")
		return 2
	}
	if *host == "" {
		*host, _ = os.Hostname()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var w io.Writer = stdout
	var tmp *os.File
	if *out != "-" {
		var err error
		tmp, err = os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*.tmp")
		if err != nil {
			fmt.Fprintf(stderr, "record-gpu: %v\n", err)
			return 1
		}
		defer os.Remove(tmp.Name()) // no-op after a successful rename
		w = tmp
	}
	opt := gpurecord.Options{Interval: *interval, Duration: *duration, Host: *host}
	ticks := 0
	if !*quiet {
		opt.Progress = func(n int) {
			ticks++
			if ticks == 1 || ticks%10 == 0 {
				fmt.Fprintf(stderr, "record-gpu: %d samples written\n", n)
			}
		}
	}
	n, err := gpurecord.RecordDefault(ctx, w, opt)
	if tmp != nil {
		if cerr := tmp.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", *out, cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "record-gpu: %v\n", err)
		return 1
	}
	if tmp != nil {
		if err := os.Rename(tmp.Name(), *out); err != nil {
			fmt.Fprintf(stderr, "record-gpu: %v\n", err)
			return 1
		}
	}
	if !*quiet {
		fmt.Fprintf(stderr, "record-gpu: done, %d samples written to %s\n", n, *out)
	}
	return 0
}
