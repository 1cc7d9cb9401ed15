#!/usr/bin/env bash
# logs-ablation.sh: the logs issue's check — does a set rank as well with its
# log files as without them? Evaluates the default method on each case of
# the given sets twice: as it is, and with every log file (names containing
# "logs") left out through a symlinked copy, then prints AC@1 and Avg@5 per
# fault type side by side.
# Usage: scripts/logs-ablation.sh [SET_DIR ...]   (default: ../shared/data/nezha-tt-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
sets=("$@")
[ ${#sets[@]} -eq 0 ] && sets=(../shared/data/nezha-tt-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations" # go-nvml's deprecation warnings
go build -o "$tmp/pa" ./cmd/pipeline-analyze
nolog=()
for s in "${sets[@]}"; do
  name=$(basename "$s")
  for c in "$s"/*/; do
    [ -f "$c/label.json" ] || continue
    d="$tmp/nolog/$name/$(basename "$c")"
    mkdir -p "$d"
    for f in "$c"*; do
      case $(basename "$f") in *logs*) ;; *) ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$d/";; esac
    done
  done
  nolog+=("$tmp/nolog/$name")
done
"$tmp/pa" eval -q --json --methods tcg "${sets[@]}" > "$tmp/with.json"
"$tmp/pa" eval -q --json --methods tcg "${nolog[@]}" > "$tmp/without.json"
python3 - "$tmp/with.json" "$tmp/without.json" <<'PY'
import json, sys, collections
def load(p):
    return {(c["set"], c["case"]): c for c in json.load(open(p))["cases"] if c["method"] == "tcg"}
w, wo = load(sys.argv[1]), load(sys.argv[2])
agg = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
avg = lambda r: max(0, 6 - r) / 5 if r > 0 else 0
for k, c in sorted(w.items()):
    o = wo[k]
    for key in ((c["set"], c["fault"]), (c["set"], "all")):
        a = agg[key]
        a[0] += 1; a[1] += c["rank"] == 1; a[2] += o["rank"] == 1; a[3] += avg(c["rank"]); a[4] += avg(o["rank"])
print(f"{'set':16s} {'fault':16s} {'n':>3s}  with logs AC@1/Avg@5  without AC@1/Avg@5")
for (s, f), a in sorted(agg.items(), key=lambda x: (x[0][0], x[0][1] == "all", x[0][1])):
    n = a[0]
    print(f"{s:16s} {f:16s} {n:3d}  {a[1]/n:9.2f} / {a[3]/n:.2f}      {a[2]/n:7.2f} / {a[4]/n:.2f}")
PY
