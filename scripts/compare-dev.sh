#!/usr/bin/env bash
# compare-dev.sh: compare's acceptance tables on every development case
# under ../shared/data (docs/commands.md's "compare" figures):
#   - pre-onset window vs incident window, and two clean pre-onset windows
#     (quiet pairs: chosen before any injected or labelled disturbance);
#   - the incident pairs whose pre-onset window is clean (no other labelled
#     injection in it or in the window before it), as their own rows;
#   - canary mode (--canary auto) on every case with rollout events.
# Usage: scripts/compare-dev.sh [OUTDIR]   (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go test ./compare -count=1 -timeout 30m -run 'TestDevelopmentCases' -devreport "$out/pairs.txt" >/dev/null
go test ./compare/canary -count=1 -timeout 30m -run 'TestCanaryDevelopmentCases' -canaryreport "$out/canary.txt" >/dev/null
echo "== window pairs (pre-onset vs incident; two quiet pre-onset windows; incident pairs whose pre-onset window is clean)"
awk 'NF == 0 { if (++blank == 2) exit } { print }' "$out/pairs.txt"
echo "== canary mode (--canary auto)"
sed -n '1,/^$/p' "$out/canary.txt"
echo "(per-case lines: $out/pairs.txt, $out/canary.txt)"
