#!/usr/bin/env bash
# alert-lag.sh: how the ranking holds up when the alert fires later than the
# development cases' alerts do (an alert rule's `for:` holds it back for
# minutes after the onset). For each lag, every case of the six sets is
# copied (symlinks) with every alert's startsAt moved later by the lag, and
# evaluated with the window reaching back to the target's onset (the
# default) and with it centred on the alert (--onset-lookback 0), beside
# the best comparison method. Prints AC@1 / Avg@5 per set.
# Usage: scripts/alert-lag.sh [LAG_SECONDS ...]   (default: 0 60 120 240)
set -euo pipefail
cd "$(dirname "$0")/.."
lags=("$@")
[ ${#lags[@]} -eq 0 ] && lags=(0 60 120 240)
data=../shared/data
sets=(nezha-ob nezha-tt-dev petshop-train petshop-dev changerca-dev llm-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -Wno-deprecated-declarations" # go-nvml's deprecation warnings
go build -o "$tmp/pa" ./cmd/pipeline-analyze
for lag in "${lags[@]}"; do
  python3 - "$data" "$tmp/lag$lag" "$lag" "${sets[@]}" <<'PY'
import json, os, sys, datetime
data, out, lag, sets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
for s in sets:
    for c in sorted(os.listdir(os.path.join(data, s))):
        src = os.path.join(data, s, c)
        if not os.path.isfile(os.path.join(src, "label.json")):
            continue
        dst = os.path.join(out, s, c)
        os.makedirs(dst)
        for f in os.listdir(src):
            if f != "alert.json":
                os.symlink(os.path.abspath(os.path.join(src, f)), os.path.join(dst, f))
                continue
            doc = json.load(open(os.path.join(src, f)))
            for a in doc.get("alerts", []):
                t = datetime.datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00"))
                a["startsAt"] = (t + datetime.timedelta(seconds=lag)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            json.dump(doc, open(os.path.join(dst, f), "w"))
PY
  dirs=()
  for s in "${sets[@]}"; do dirs+=("$tmp/lag$lag/$s"); done
  "$tmp/pa" eval -q --json "${dirs[@]}" > "$tmp/lag$lag.json"
  "$tmp/pa" eval -q --json --methods tcg --onset-lookback 0 "${dirs[@]}" > "$tmp/lag$lag-centred.json"
done
python3 - "$tmp" "${lags[@]}" <<'PY'
import json, sys, collections
tmp, lags = sys.argv[1], sys.argv[2:]
avg = lambda r: max(0, 6 - r) / 5 if r > 0 else 0
def load(p):
    agg = collections.defaultdict(lambda: [0, 0, 0.0])
    for c in json.load(open(p))["cases"]:
        a = agg[(c["set"], c["method"])]
        a[0] += 1; a[1] += c["rank"] == 1; a[2] += avg(c["rank"])
    return agg
print(f"{'alert later by':>14s}  {'set':14s}  {'tcg':>11s}  {'centred':>11s}  best comparison")
for lag in lags:
    full, cen = load(f"{tmp}/lag{lag}.json"), load(f"{tmp}/lag{lag}-centred.json")
    for s in sorted({k[0] for k in full}):
        f = lambda agg, m: f"{agg[(s, m)][1] / agg[(s, m)][0]:.2f} / {agg[(s, m)][2] / agg[(s, m)][0]:.2f}"
        others = [m for (t, m) in full if t == s and m != "tcg"]
        best = max(others, key=lambda m: (full[(s, m)][1], full[(s, m)][2]))
        print(f"{lag + ' s':>14s}  {s:14s}  {f(full, 'tcg'):>11s}  {f(cen, 'tcg'):>11s}  {best} {f(full, best)}")
PY
