#!/usr/bin/env bash
# Checks that a speed change changes no output (issue 19): builds
# pipeline-analyze at a base revision and from the working tree, writes the
# `-o json` scorecard of every development case (../shared/data/*/*/) and of
# any extra bundle with both binaries, and diffs them byte for byte. It also
# diffs (issue 45) the compare reports (`compare -o json BEFORE AFTER` on each
# pair of consecutive cases of a set, and `compare --before-at --after-at` on
# the first case of each set) and the canary reports (`compare --canary auto`
# on every changerca-dev case). With EVAL=1 it also runs `pipeline-analyze
# eval` on each development set with both and diffs the tables (the "median
# time per case" line excepted). With MCP=1 (the default) it also runs, for
# the first two cases of each set and for the demo incident (simulate
# --fault gpu_bandwidth_contention --seed 42, as the demo), one
# `pipeline-analyze mcp --root` session with each binary — initialize, then
# tools/call analyze (detail summary and full) and compare (summary) — and
# diffs the JSON-RPC responses byte for byte; and on the demo incident one
# session of calls the tools refuse (their errors' text byte for byte;
# MCP_ERRORS_SHOW=FILE keeps the new binary's responses).
#
# Usage: scripts/scorecards-identical.sh [BASE_REV] [EXTRA_DIR...]
#        BASE_REV defaults to HEAD (the last commit: checks uncommitted work);
#        EXTRA_DIR are further incident directories (e.g. the bench bundles).
# Env:   OLD_BIN / NEW_BIN to use prebuilt binaries instead of building;
#        DATA (default ../shared/data); EVAL=1; FORMATS (default "json");
#        DOT=1 also compares the graph (--dot) of each case;
#        COMPARE=0 skips the compare and canary reports; MCP=0 the MCP sessions.
# Exit:  0 all identical, 1 some differ (their diffs are printed), 2 set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

base=${1:-HEAD}
[[ $# -gt 0 ]] && shift
data=${DATA:-../shared/data}
formats=${FORMATS:-json}
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations"

work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

old=${OLD_BIN:-}
if [[ -z $old ]]; then
	git worktree add --detach "$work/src" "$base" >/dev/null 2>&1 || { echo "scorecards-identical: cannot check out $base" >&2; exit 2; }
	(cd "$work/src" && go build -o "$work/old" ./cmd/pipeline-analyze) || exit 2
	old=$work/old
fi
new=${NEW_BIN:-}
if [[ -z $new ]]; then
	go build -o "$work/new" ./cmd/pipeline-analyze || exit 2
	new=$work/new
fi

cases=()
if [[ -d $data ]]; then
	for d in "$data"/*/*/; do
		[[ -f $d/alert.json || -f $d/label.json ]] && cases+=("${d%/}")
	done
fi
cases+=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
	echo "scorecards-identical: no cases under $data and no extra directories" >&2
	exit 2
fi

# Same working directory and the same path for both binaries: the scorecard
# names its inputs by the path it was given.
n=0 differ=0
for c in "${cases[@]}"; do
	for f in $formats; do
		dot=()
		[[ ${DOT:-} == 1 ]] && dot=(--dot "$work/dot")
		rm -f "$work/dot" "$work/odot"
		"$old" -q "${dot[@]}" -o "$f" "$c" >"$work/o" 2>"$work/oe" && orc=0 || orc=$?
		[[ -f $work/dot ]] && mv "$work/dot" "$work/odot"
		"$new" -q "${dot[@]}" -o "$f" "$c" >"$work/n" 2>"$work/ne" && nrc=0 || nrc=$?
		[[ ${DOT:-} == 1 ]] && { cmp -s "$work/odot" "$work/dot" 2>/dev/null || { [[ ! -f $work/odot && ! -f $work/dot ]]; } || echo "  (graph DOT differs)" >>"$work/ne"; }
		n=$((n + 1))
		if [[ $orc != "$nrc" ]] || ! cmp -s "$work/o" "$work/n" || ! cmp -s "$work/oe" "$work/ne"; then
			differ=$((differ + 1))
			echo "DIFFERS: $c ($f; exit $orc → $nrc)"
			diff "$work/o" "$work/n" | head -n 20 || true
			diff "$work/oe" "$work/ne" | head -n 5 || true
		fi
	done
done
if [[ -n ${OLD_BIN:-} ]]; then
	basename=$OLD_BIN
else
	basename=$(git rev-parse --short "$base" 2>/dev/null || echo "$base")
fi
echo "scorecards: $n compared ($formats), $((n - differ)) identical, $differ differ (base $basename)"

# same ARGS...: runs both binaries with ARGS and counts whether stdout,
# stderr and the exit status are the same. A base that differs is run up to
# four more times: before issue 45 a canary score (and a rollout item's
# effect) summed a map in its random order, so the base's last digits vary
# from run to run; a match on a rerun counts as identical, with a note.
same() {
	"$old" "$@" >"$work/o" 2>"$work/oe" && orc=0 || orc=$?
	"$new" "$@" >"$work/n" 2>"$work/ne" && nrc=0 || nrc=$?
	[[ $nrc == 0 && -s $work/n ]] || failed=$((failed + 1))
	local try=1
	while [[ $try -lt 5 ]] && { [[ $orc != "$nrc" ]] || ! cmp -s "$work/o" "$work/n" || ! cmp -s "$work/oe" "$work/ne"; }; do
		[[ $try == 1 ]] && cp "$work/o" "$work/o1" && cp "$work/oe" "$work/oe1" && orc1=$orc
		try=$((try + 1))
		"$old" "$@" >"$work/o" 2>"$work/oe" && orc=0 || orc=$?
	done
	if [[ $try -gt 1 ]]; then
		if [[ $orc == "$nrc" ]] && cmp -s "$work/o" "$work/n" && cmp -s "$work/oe" "$work/ne"; then
			echo "note: the base's output varies from run to run on $*: run $try of it matched"
			return
		fi
		mv "$work/o1" "$work/o" && mv "$work/oe1" "$work/oe" && orc=$orc1
	fi
	if [[ $orc != "$nrc" ]] || ! cmp -s "$work/o" "$work/n" || ! cmp -s "$work/oe" "$work/ne"; then
		differ=$((differ + 1)) cdiffer=$((cdiffer + 1))
		echo "DIFFERS: $* (exit $orc → $nrc)"
		diff "$work/o" "$work/n" | head -n 20 || true
		diff "$work/oe" "$work/ne" | head -n 5 || true
	fi
}

if [[ ${COMPARE:-1} == 1 && -d $data ]]; then
	ncmp=0 ncan=0 cdiffer=0 failed=0
	for s in "$data"/*/; do
		prev=
		for d in "$s"*/; do
			[[ -f $d/alert.json || -f $d/label.json ]] || continue
			d=${d%/}
			if [[ -z $prev ]]; then
				# One input, two windows of it (the relative times are
				# resolved against the data's end).
				same compare -q -o json --window 2m --before-at now-10m --after-at now-2m "$d"
				ncmp=$((ncmp + 1))
			else
				same compare -q -o json "$prev" "$d"
				ncmp=$((ncmp + 1))
			fi
			prev=$d
		done
	done
	cmpdiffer=$cdiffer cmpfailed=$failed
	for d in "$data"/changerca-dev/*/; do
		[[ -d $d ]] || continue
		same compare -q -o json --canary auto "${d%/}"
		ncan=$((ncan + 1))
	done
	echo "compare reports: $ncmp compared, $((ncmp - cmpdiffer)) identical, $cmpdiffer differ ($cmpfailed without a report)"
	echo "canary reports: $ncan compared, $((ncan - cdiffer + cmpdiffer)) identical, $((cdiffer - cmpdiffer)) differ ($((failed - cmpfailed)) without a report)"
fi

# mcp_session BIN ROOT OUT REQUEST...: one MCP server on stdio, each request
# line sent once the previous request's response is read (a notification
# has none); the responses, then whatever the server writes after its input
# closes, and its exit status, go to OUT.
mcp_session() {
	local bin=$1 root=$2 out=$3 line r
	shift 3
	: >"$out"
	coproc MCP { "$bin" mcp --root "$root" 2>&1; }
	# bash unsets MCP and MCP_PID once the server exits: keep copies.
	local pid=$MCP_PID in out_fd
	exec {in}>&"${MCP[1]}" {out_fd}<&"${MCP[0]}"
	for r in "$@"; do
		printf '%s\n' "$r" >&"$in" 2>/dev/null || {
			echo "(server gone)" >>"$out"
			break
		}
		[[ $r == *'"id":'* ]] || continue
		IFS= read -r line <&"$out_fd" || {
			echo "(no response)" >>"$out"
			break
		}
		printf '%s\n' "$line" >>"$out"
	done
	[[ -n ${MCP[1]:-} ]] && exec {MCP[1]}>&-
	exec {in}>&-
	cat <&"$out_fd" >>"$out" || true
	exec {out_fd}<&-
	local rc=0
	wait "$pid" 2>/dev/null || rc=$?
	echo "exit $rc" >>"$out"
}

# mcp_same ROOT CASE [CASE2]: the same session with both binaries — analyze
# CASE (summary, full), compare CASE CASE2 when given — diffed.
mcp_same() {
	local root=$1 c1=$2 c2=${3:-}
	local reqs=('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scorecards-identical","version":"1"}}}'
		'{"jsonrpc":"2.0","method":"notifications/initialized"}'
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyze","arguments":{"paths":["'"$c1"'"],"detail":"summary"}}}'
		'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"analyze","arguments":{"paths":["'"$c1"'"],"detail":"full"}}}')
	[[ -n $c2 ]] && reqs+=('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"compare","arguments":{"paths":["'"$c1"'","'"$c2"'"],"detail":"summary"}}}')
	mcp_session "$old" "$root" "$work/mo" "${reqs[@]}"
	mcp_session "$new" "$root" "$work/mn" "${reqs[@]}"
	nmcp=$((nmcp + 1))
	if ! cmp -s "$work/mo" "$work/mn"; then
		differ=$((differ + 1)) mdiffer=$((mdiffer + 1))
		echo "DIFFERS: mcp session on $c1${c2:+ and $c2}"
		diff "$work/mo" "$work/mn" | cut -c1-300 | head -n 20 || true
	elif [[ $(grep -c '"isError":true\|(no response)' "$work/mn") != 0 ]]; then
		mfailed=$((mfailed + 1))
	fi
}

# mcp_errors ROOT CASE: one session of calls the tools refuse — the
# analysis', compare's, canary mode's and --profile's usage and runtime
# errors, a duration the flag parser would refuse, a line long enough to be
# cut — with both binaries, diffed: the tool errors' text byte for byte.
mcp_errors() {
	local root=$1 c=$2 i=1 a
	local long
	long=$(printf 'svc%.0s' {1..120})
	local reqs=('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scorecards-identical","version":"1"}}}'
		'{"jsonrpc":"2.0","method":"notifications/initialized"}')
	for a in '"name":"analyze","arguments":{"paths":["'"$c"'"],"target":"no-such-service"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"target":"'"$long"':latency"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"window":"bogus"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"window":"-5m"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"method":"nope"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"at":"yesterday"}' \
		'"name":"analyze","arguments":{"paths":["'"$c"'"],"at":"2001-01-01T00:00:00Z"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'"]}' \
		'"name":"compare","arguments":{"paths":["'"$c"'","'"$c"'"],"baseline_group":"version=v1"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'"],"canary":"auto","before_at":"now-5m"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'"],"canary":"   "}' \
		'"name":"compare","arguments":{"paths":["'"$c"'"],"before_at":"soon","after_at":"now"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'"],"before_at":"now-2m","after_at":"later"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'","'"$c"'"],"target":"no-such-service:latency"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'","'"$c"'"],"window":"0s"}' \
		'"name":"compare","arguments":{"paths":["'"$c"'/alert.json","'"$c"'/alert.json"],"profile":true}'; do
		i=$((i + 1))
		reqs+=('{"jsonrpc":"2.0","id":'$i',"method":"tools/call","params":{'"$a"'}}')
	done
	mcp_session "$old" "$root" "$work/eo" "${reqs[@]}"
	mcp_session "$new" "$root" "$work/en" "${reqs[@]}"
	nmcp=$((nmcp + 1))
	if ! cmp -s "$work/eo" "$work/en"; then
		differ=$((differ + 1)) mdiffer=$((mdiffer + 1))
		echo "DIFFERS: mcp error session on $c"
		diff "$work/eo" "$work/en" | cut -c1-600 | head -n 40 || true
	fi
	if [[ -n ${MCP_ERRORS_SHOW:-} ]]; then
		cp "$work/en" "$MCP_ERRORS_SHOW"
	fi
}

if [[ ${MCP:-1} == 1 ]]; then
	nmcp=0 mdiffer=0 mfailed=0
	if [[ -d $data ]]; then
		droot=$(cd "$data" && pwd)
		for s in "$droot"/*/; do
			ds=()
			for d in "$s"*/; do
				[[ -f $d/alert.json || -f $d/label.json ]] && ds+=("$(basename "$s")/$(basename "$d")")
				[[ ${#ds[@]} == 2 ]] && break
			done
			[[ ${#ds[@]} == 0 ]] && continue
			mcp_same "$droot" "${ds[@]}"
		done
	fi
	mkdir -p "$work/mcproot"
	"$new" simulate --fault gpu_bandwidth_contention --seed 42 --out "$work/mcproot/demo" >/dev/null 2>&1 || { echo "scorecards-identical: cannot simulate the demo" >&2; exit 2; }
	mcp_same "$work/mcproot" demo
	mcp_errors "$work/mcproot" demo
	echo "mcp sessions: $nmcp compared, $((nmcp - mdiffer)) identical, $mdiffer differ ($mfailed with a tool error)"
fi

if [[ ${EVAL:-} == 1 && -d $data ]]; then
	for s in "$data"/*/; do
		s=${s%/}
		"$old" eval -q "$s" 2>&1 | grep -v 'median time per case' >"$work/eo" || true
		"$new" eval -q "$s" 2>&1 | grep -v 'median time per case' >"$work/en" || true
		if cmp -s "$work/eo" "$work/en"; then
			echo "eval $(basename "$s"): identical ($(grep -m1 '^overall' "$work/en" | tr -s ' ' | cut -c1-60))"
		else
			differ=$((differ + 1))
			echo "eval $(basename "$s"): DIFFERS"
			diff "$work/eo" "$work/en" | head -n 20 || true
		fi
	done
fi
[[ $differ -eq 0 ]]
