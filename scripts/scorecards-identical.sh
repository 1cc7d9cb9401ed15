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
# time per case" line excepted).
#
# Usage: scripts/scorecards-identical.sh [BASE_REV] [EXTRA_DIR...]
#        BASE_REV defaults to HEAD (the last commit: checks uncommitted work);
#        EXTRA_DIR are further incident directories (e.g. the bench bundles).
# Env:   OLD_BIN / NEW_BIN to use prebuilt binaries instead of building;
#        DATA (default ../shared/data); EVAL=1; FORMATS (default "json");
#        DOT=1 also compares the graph (--dot) of each case;
#        COMPARE=0 skips the compare and canary reports.
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
