#!/usr/bin/env bash
# Compares the bench package's benchmarks at two revisions (issue 19): builds
# the test binary of ./bench at OLD and at NEW (default: the working tree),
# runs them interleaved COUNT times each (old, new, old, new, … so that the
# shared machine's load falls on both alike), and prints benchstat's table.
#
# Usage: scripts/benchcmp.sh OLD [NEW] -- BENCH_REGEXP
#        e.g. scripts/benchcmp.sh HEAD~1 -- 'Stages/(10k-300|100k-3000)$'
# Env:   COUNT (default 6), BENCHTIME (default 1x), PA_BENCH_BIG (passed on),
#        OUT (directory for old.txt/new.txt; default a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

old=${1:?usage: benchcmp.sh OLD [NEW] -- BENCH_REGEXP}
shift
new=""
if [[ ${1:-} != "--" ]]; then
	new=${1:-}
	shift || true
fi
[[ ${1:-} == "--" ]] && shift
bench=${1:?missing BENCH_REGEXP}
count=${COUNT:-6}
benchtime=${BENCHTIME:-1x}
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations"
benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
[[ -x $benchstat ]] || { echo "benchcmp: benchstat missing (go install golang.org/x/perf/cmd/benchstat@latest)" >&2; exit 2; }

work=$(mktemp -d)
out=${OUT:-$work}
mkdir -p "$out"
cleanup() {
	for d in "$work"/src-*; do [[ -d $d ]] && git -C "$root" worktree remove --force "$d" >/dev/null 2>&1; done
	rm -rf "$work"
}
trap cleanup EXIT

build() { # build REV NAME: the bench test binary of REV ("" = working tree)
	local rev=$1 name=$2 src=$root
	if [[ -n $rev ]]; then
		src=$work/src-$name
		git -C "$root" worktree add --detach "$src" "$rev" >/dev/null 2>&1
	fi
	(cd "$src" && go test -c -o "$work/$name.test" ./bench)
}
build "$old" old
build "$new" new

: >"$out/old.txt"
: >"$out/new.txt"
for ((i = 0; i < count; i++)); do
	for side in old new; do
		"$work/$side.test" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.benchmem \
			| grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$out/$side.txt"
	done
done
# Keep the units worth comparing (time, the stages, memory); drop the
# counts every run repeats (spans, series, nodes, edges).
keep() {
	awk '/^Benchmark/ { l = $1 " " $2; for (i = 3; i < NF; i += 2) if ($(i + 1) ~ /^(ns\/op|[a-z-]+ms|B\/op|allocs\/op|ns\/span|heapsys-B\/span)$/) l = l " " $i " " $(i + 1); print l; next } { print }' "$1"
}
keep "$out/old.txt" >"$work/old"
keep "$out/new.txt" >"$work/new"
echo "old: ${old} · new: ${new:-working tree} · $count interleaved runs · load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$benchstat" old="$work/old" new="$work/new"
