#!/usr/bin/env bash
# Regenerates cmd/pipeline-analyze/default.pgo, the CPU profile that `go
# build` uses for profile-guided optimisation of the binary (Go ≥ 1.21 reads
# default.pgo in the main package by default; `go test` does not).
#
# The profile is of the whole analysis (BenchmarkStages: read, Finalize,
# graph, causal, render) on the benchmark bundles of 10k, 100k and 1M spans
# (generated once and cached by the bench package), so the hot paths of small
# and large incidents both weigh in. Re-run after large changes to the hot
# paths; a stale profile only costs speed, never correctness (outputs are
# identical with and without it: scripts/scorecards-identical.sh).
#
# Usage: scripts/pgo.sh            (under a minute once the bundles are cached)
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/bench.test" ./bench
PA_BENCH_BIG=1 "$work/bench.test" -test.run '^$' -test.bench 'Stages/(10k-300|100k-3000|1M-3000)$' \
	-test.benchtime 1x -test.cpuprofile "$work/cpu.pprof" >/dev/null
cp "$work/cpu.pprof" cmd/pipeline-analyze/default.pgo
echo "wrote cmd/pipeline-analyze/default.pgo ($(wc -c <cmd/pipeline-analyze/default.pgo) bytes)"
