package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/pipeline-analyze/pipeline-analyze/gpurecord"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
)

const recordGPUUsage = `pipeline-analyze record-gpu samples every NVIDIA GPU of this machine through
NVML (utilisation, memory, memory bandwidth, clocks, clock-event/throttle
reasons, power, temperature, PCIe and NVLink throughput, XID/ECC errors and
per-process PIDs) into a JSON Lines recording that pipeline-analyze reads back
(format: docs/nvml-recording.md).

Usage:
  pipeline-analyze record-gpu [flags]

Without --duration it records until Ctrl-C (SIGINT) or SIGTERM.

Examples:
  pipeline-analyze record-gpu --interval 1s --duration 3s --out gpu.jsonl
  pipeline-analyze record-gpu --interval 500ms --duration 2s --out - > gpu2.jsonl
  pipeline-analyze gpu.jsonl incident/      # then analyse it with the rest of the incident

Exit status: 0 recorded, 1 no NVIDIA driver/NVML or a write error, 2 bad flags.
`

// recordGPUOpts are the record-gpu command's flags.
type recordGPUOpts struct {
	interval, duration time.Duration
	out, host          string
	quiet              bool
}

// newRecordGPUFlags defines the record-gpu command's flags.
func newRecordGPUFlags() (*pflag.FlagSet, *recordGPUOpts) {
	fs := pflag.NewFlagSet("record-gpu", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &recordGPUOpts{}
	fs.DurationVar(&o.interval, "interval", time.Second, "time between samples")
	fs.DurationVar(&o.duration, "duration", 0, "how long to record; 0 records until SIGINT/SIGTERM")
	fs.StringVar(&o.host, "host", "", "host name recorded in the header (default: this machine's)")
	clihelp.SetGroup(fs, clihelp.GroupAnalysis, "interval", "duration", "host")
	fs.StringVar(&o.out, "out", "-", "recording `FILE` (written to a temporary file, then renamed); - for stdout")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	clihelp.SetGroup(fs, clihelp.GroupOutput, "out", "quiet")
	return fs, o
}

// runRecordGPU is the record-gpu subcommand (gpurecord.RecordFile).
func runRecordGPU(args []string, stdout, stderr io.Writer) int {
	fs, o := newRecordGPUFlags()
	if code, ok := parseFlags(fs, args, "record-gpu", func(w io.Writer) { writeHelp(w, commandByName("record-gpu")) }, stdout, stderr); !ok {
		return code
	}
	interval, duration, out, host, quiet := &o.interval, &o.duration, &o.out, &o.host, &o.quiet
	if fs.NArg() > 0 {
		return usageErrorFor(stderr, "record-gpu", fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if *interval <= 0 || *duration < 0 {
		return usageErrorFor(stderr, "record-gpu", errors.New("--interval must be > 0 and --duration >= 0"))
	}
	if *host == "" {
		*host, _ = os.Hostname()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	n, err := gpurecord.RecordFile(ctx, *out, stdout, opt)
	if err != nil {
		fmt.Fprintf(stderr, "record-gpu: %v\n", err)
		return 1
	}
	if !*quiet {
		fmt.Fprintf(stderr, "record-gpu: done, %d samples written to %s\n", n, *out)
	}
	return 0
}
