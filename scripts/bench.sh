#!/usr/bin/env bash
# End-to-end performance of pipeline-analyze (issue 8).
#
# Generates the benchmark bundles (simulated incidents: 45 min, Scale 30,
# gpu_bandwidth_contention seed 8; spans set by the sampling rate, traces split
# into several plain Jaeger JSON files, Prometheus series trimmed/padded to
# 300 or 3,000), runs the full analysis RUNS times per bundle under
# /usr/bin/time -v, and prints the median wall time, CPU time, peak RSS and the
# ratio to Python's json.load merely parsing the same trace files.
#
# Usage: scripts/bench.sh [SIZE...]      sizes: 10k-300 50k-300 100k-300 100k-3000 1M-3000 logs-1M,
#        and, only when named: 10M (ten million spans in ten files, 6.2 GB: streamed
#        over the span budget) and the wide workloads wide-1k … wide-100k, wide-full-1k …
#        wide-full-100k (one workload of that many replicas beside a small incident)
# Env:   RUNS (default 3), BENCH_ROOT (default ~/.cache/pipeline-analyze-bench/v2; the 10M
#        bundle wants a disk with 7 GB free: BENCH_ROOT=/tmp/bench),
#        BASE_BIN: a pipeline-analyze built from the commit to compare with (e.g. main's);
#        its runs are interleaved with the working tree's and its medians printed beside
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations" # go-nvml's deprecation warnings
TIME=/usr/bin/time
if [[ ! -x $TIME ]]; then
	echo "bench.sh: $TIME is missing (apt-get install -y time)" >&2
	exit 1
fi
command -v python3 >/dev/null || { echo "bench.sh: python3 is missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/pipeline-analyze" ./cmd/pipeline-analyze
go build -o "$work/benchgen" ./bench/cmd/benchgen
genargs=()
[[ -n ${BENCH_ROOT:-} ]] && genargs=(-root "$BENCH_ROOT")

# measure LOG CMD...: runs CMD under time -v; prints "wall_s cpu_s rss_kb".
measure() {
	local log=$1
	shift
	"$TIME" -v "$@" >/dev/null 2>"$log"
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident set size/ { r = $2 }
		END { printf "%.2f %.2f %d\n", w, u + s, r }' "$log"
}

# median of the first column of stdin, with its line.
median() { sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'; }

printf '%-14s %9s %7s %8s %8s %9s %8s %9s %7s %8s' \
	size spans series wall_s cpu_s rss_MB ns/span KB/span py_s ratio
[[ -n ${BASE_BIN:-} ]] && printf ' %9s %9s %9s' base_wall base_cpu base_MB
printf '\n'
"$work/benchgen" "${genargs[@]}" "$@" | while read -r name dir; do
	traces=()
	for f in "$dir"/traces-*.json; do [[ -f $f ]] && traces+=("$f"); done
	a=() b=() p=()
	for ((i = 0; i < RUNS; i++)); do
		a+=("$(measure "$work/a.log" "$work/pipeline-analyze" -q -o text "$dir")")
		[[ -n ${BASE_BIN:-} ]] && b+=("$(measure "$work/b.log" "$BASE_BIN" -q -o text "$dir")")
		# Python's json.load of ten 660 MB files needs more memory than the machine has.
		if [[ ${#traces[@]} -gt 0 && $name != 10M ]]; then
			p+=("$(measure "$work/p.log" python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "${traces[@]}")")
		else
			p+=("0 0 0")
		fi
	done
	read -r wall cpu rss < <(printf '%s\n' "${a[@]}" | median)
	read -r pywall _ _ < <(printf '%s\n' "${p[@]}" | median)
	bw='' bc='' br=0
	[[ -n ${BASE_BIN:-} ]] && read -r bw bc br < <(printf '%s\n' "${b[@]}" | median)
	spans=$("$work/pipeline-analyze" -q -o json "$dir" | python3 -c 'import json,sys; c=json.load(sys.stdin); print(sum(i.get("spans",0) for i in c.get("inputs",[])))' 2>/dev/null || echo 0)
	series=$(cat "$dir"/metrics_*.json | grep -o '"metric":' | wc -l || true)
	awk -v n="$name" -v sp="$spans" -v se="$series" -v w="$wall" -v c="$cpu" -v r="$rss" -v pw="$pywall" -v bw="$bw" -v bc="$bc" -v br="$br" 'BEGIN {
		printf "%-14s %9d %7d %8.2f %8.2f %9.0f %8.0f %9.2f %7.2f %8.2f",
			n, sp, se, w, c, r / 1024, (sp ? w * 1e9 / sp : 0), (sp ? r / sp : 0), pw, (pw > 0 ? w / pw : 0)
		if (bw != "") printf " %9.2f %9.2f %9.0f", bw, bc, br / 1024
		printf "\n" }'
done
echo "median of $RUNS runs (interleaved with BASE_BIN's when set); ratio = pipeline-analyze wall / python3 json.load wall on the same trace files (< 1 is faster; 0: not measured)"

# Per stage (issue 19): BenchmarkStages on the same bundles, RUNS runs each,
# the median wall and CPU ms of ingest (read + Finalize), graph, causal and
# render. The CPU times vary less than the wall times on a shared machine.
go test -c -o "$work/bench.test" ./bench
printf '\n%-10s %10s %10s %10s %10s %10s %10s %10s %10s\n' size ingest_ms ingest_cpu graph_ms graph_cpu causal_ms causal_cpu render_ms render_cpu
"$work/benchgen" "${genargs[@]}" "$@" | while read -r name _; do
	PA_BENCH_BIG=1 "$work/bench.test" -test.run '^$' -test.bench "Stages/$name\$" -test.benchtime 1x -test.count "$RUNS" 2>/dev/null |
		python3 -c '
import re, statistics, sys
runs = [dict((k, float(v)) for v, k in re.findall(r"([0-9.]+) ([a-z-]+-ms)", l)) for l in sys.stdin if l.startswith("BenchmarkStages/")]
if runs:
    cols = [f"{s}-{k}" for s in ("ingest", "graph", "causal", "render") for k in ("ms", "cpu-ms")]
    print(f"{sys.argv[1]:<10s} " + " ".join(f"{statistics.median(r[c] for r in runs):10.0f}" for c in cols))' "$name"
done
echo "median of $RUNS runs of BenchmarkStages (ms; ingest = read + Finalize)"

# Logs (issue 14): 1M Loki log lines (~280 MB in 8 files, generated once by
# bench.GenerateLogs and cached) read and templated by ingest.Read — parse,
# fold stack traces, mine templates, merge them across files, sort, derive
# the log series — through BenchmarkLogs, under /usr/bin/time -v.
# Target: <= 3 s wall, <= 500 MB peak RSS on the 2-core machine.
if [[ $# -eq 0 || " $* " == *" logs-1M "* ]]; then
	export PA_BENCH_BIG=1
	"$work/bench.test" -test.run '^$' -test.bench 'Logs/logs-1M$' -test.benchtime 1x >/dev/null # generate and cache once
	l=()
	for ((i = 0; i < RUNS; i++)); do
		l+=("$(measure "$work/l.log" "$work/bench.test" -test.run '^$' -test.bench 'Logs/logs-1M$' -test.benchtime 1x)")
	done
	read -r wall cpu rss < <(printf '%s\n' "${l[@]}" | median)
	mb=$(du -cm "${BENCH_LOG_ROOT:-$HOME/.cache/pipeline-analyze-bench/logs-v2}"/logs-1M/loki-*.json | tail -n 1 | cut -f1)
	printf 'logs-1M: 1,000,000 log lines, %s MB of Loki JSON: wall %s s, cpu %s s, peak RSS %.0f MB (median of %s runs; target 3 s, 500 MB)\n' \
		"$mb" "$wall" "$cpu" "$((rss / 1024))" "$RUNS"
fi
