#!/usr/bin/env bash
# neuronsim calibrate end to end (docs/calibration.md): kernels -> the driver under
# neuronsim.nki -> measure under a perturbed config -> fit (twice: the same bytes) -> run
# with the override as a target file and as --override. A few cases and the two perturbed
# parameters (--parameters) keep the fit short.
set -euo pipefail
: "${NEURONSIM:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PKG="$(dirname "$NEURONSIM")/python"

"$NEURONSIM" calibrate kernels -o "$T/suite" -t trn2 >/dev/null
for f in kernels.py driver.py cases.csv neffs/dma_lone_1x16_float32.neff; do
  [ -s "$T/suite/$f" ] || { echo "FAIL: kernels wrote no $f"; exit 1; }
done
[ "$(($(wc -l <"$T/suite/cases.csv") - 1))" = "$(ls "$T/suite/neffs" | wc -l)" ] ||
  { echo "FAIL: one NEFF per case"; exit 1; }

# The driver runs unedited under neuronsim's NKI (nki.benchmark), and its CSV is what
# measure gives on the stock preset.
(cd "$T" && PYTHONPATH="$PKG" /usr/bin/python3 -m neuronsim.nki suite/driver.py -o driver.csv \
  --warmup 0 --iters 1 >/dev/null)
"$NEURONSIM" calibrate measure "$T/suite" -t trn2 -o "$T/stock.csv" >/dev/null
/usr/bin/python3 - "$T/driver.csv" "$T/stock.csv" <<'PY'
import csv, sys
d = {(r["kernel"], r["shape"], r["dtype"]): float(r["measured_ns"]) for r in csv.DictReader(open(sys.argv[1]))}
s = {(r["kernel"], r["shape"], r["dtype"]): float(r["measured_ns"]) for r in csv.DictReader(open(sys.argv[2]))}
assert d.keys() == s.keys() and len(d) > 20, (len(d), len(s))
bad = [k for k in d if abs(d[k] - s[k]) > 0.1]  # the driver rounds to 0.1 ns
assert not bad, bad
PY

cat >"$T/perturbed.json" <<'JSON'
{"base": "trn2", "dma": {"fixed_latency_ns": 840.0}, "clocks": {"tensor_ghz": 2.0}}
JSON
"$NEURONSIM" calibrate measure "$T/suite" -t "$T/perturbed.json" -o "$T/all.csv" >/dev/null
{ head -1 "$T/all.csv"; grep -E '^(dma_lone|matmul,128x512,bfloat16|matmul,128x128,bfloat16),' "$T/all.csv"; } >"$T/m.csv"
[ "$(wc -l <"$T/m.csv")" = 4 ] || { echo "FAIL: subset"; cat "$T/m.csv"; exit 1; }

FITTED=dma.fixed_latency_ns,clocks.tensor_ghz
"$NEURONSIM" calibrate fit "$T/m.csv" -t trn2 -o "$T/fit1.json" --report "$T/r1.md" \
  --parameters "$FITTED" >/dev/null
"$NEURONSIM" calibrate fit "$T/m.csv" -t trn2 -o "$T/fit3.json" --report "$T/r3.md" \
  --parameters "$FITTED" >/dev/null
cmp "$T/fit1.json" "$T/fit3.json" && cmp "$T/r1.md" "$T/r3.md" || { echo "FAIL: not deterministic"; exit 1; }
grep -q '"base": "trn2"' "$T/fit1.json" || { echo "FAIL: no base"; exit 1; }
grep -q '^| matmul | 128x512 | bfloat16 |' "$T/r1.md" || { echo "FAIL: report rows"; exit 1; }

# The override runs, as a target file and as --override, and gives the fit's time (the
# report's "after") and the perturbed values.
neff="$T/suite/neffs/matmul_128x512_bfloat16.neff"
want=$(grep '^| matmul | 128x512 | bfloat16 |' "$T/r1.md" | cut -d'|' -f7)
for how in "-t $T/fit1.json" "-t trn2 --override $T/fit1.json"; do
  # shellcheck disable=SC2086
  got=$("$NEURONSIM" run "$neff" $how --timing-only --stats-json - 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["stats"]["total_time_ns"]["value"])')
  /usr/bin/python3 -c "import sys; g, w = float('$got'), float('$want'); sys.exit(abs(g / w - 1) > 0.001)" ||
    { echo "FAIL: run $how gave $got ns, the fit $want"; exit 1; }
done
grep -q '"fixed_latency_ns": 840' "$T/fit1.json" && grep -q '"tensor_ghz": 2.0' "$T/fit1.json" ||
  { echo "FAIL: not recovered"; cat "$T/fit1.json"; exit 1; }
echo "calibrate: ok"
