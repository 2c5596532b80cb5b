#!/bin/bash
# neuronsim run --profile-dir on real example kernels: the profile opens, view / export /
# compare work on it, the Perfetto JSON is well formed (slices on a track never overlap,
# every flow has both ends, each inside a slice), a swapped NEFF is refused, and a failed
# run leaves no profile behind.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

"$NEURONSIM" example rmsnorm --double-buffer --rows 512 --cols 1024 -o db.neff
"$NEURONSIM" example rmsnorm --rows 512 --cols 1024 -o serial.neff
"$NEURONSIM" example matmul -o mm.neff

"$NEURONSIM" run db.neff --input x=normal:0,1 --input w=ones --profile-dir P_db > run_db.txt ||
  fail "profiled run failed"
ls P_db/neff_*.neff P_db/*_instid_0_vnc_0.ntff > /dev/null || fail "profile files missing"
grep -q "^profile: " run_db.txt || fail "run does not name the profile"
grep -q "^host model " run_db.txt || fail "run does not report the host model"
"$NEURONSIM" run serial.neff --timing-only --profile-dir P_serial > /dev/null ||
  fail "timing-only profiled run failed"
"$NEURONSIM" run mm.neff --timing-only --profile-dir P_mm > /dev/null || fail "matmul run failed"

# view: text and JSON; the run's total equals the profile's.
"$NEURONSIM" view P_db > view.txt || fail "view failed"
grep -q "Stall attribution" view.txt || fail "view has no stall attribution"
"$NEURONSIM" view P_db --json > view.json || fail "view --json failed"
run_ns=$(sed -n 's/^total: \([0-9.]*\) ns.*/\1/p' run_db.txt)
/usr/bin/python3 - "$run_ns" <<'PY' || fail "view --json disagrees with the run"
import json, sys
v = json.load(open("view.json"))
total_ps = None
def find(o):
    global total_ps
    if isinstance(o, dict):
        for k, x in o.items():
            if k == "total_time_ps": total_ps = x
            find(x)
    elif isinstance(o, list):
        for x in o: find(x)
find(v)
assert total_ps is not None, "no total_time_ps"
assert abs(total_ps / 1000.0 - float(sys.argv[1])) < 0.001, (total_ps, sys.argv[1])
PY

# export: well-formed Perfetto JSON.
for p in P_db P_mm; do
  "$NEURONSIM" export "$p" --perfetto "$p.json" || fail "export $p failed"
  /usr/bin/python3 "$SOURCE_DIR/tests/tools/perfetto_check.py" "$p.json" ||
    fail "strict Perfetto check of $p"
  /usr/bin/python3 - "$p.json" <<'PY' || fail "bad Perfetto JSON from $p"
import json, sys
from decimal import Decimal
doc = json.load(open(sys.argv[1]), parse_float=Decimal)
events = doc["traceEvents"]
tracks = {}
for e in events:
    if e["ph"] == "X":
        tracks.setdefault((e["pid"], e["tid"]), []).append((Decimal(e["ts"]), Decimal(e["dur"])))
assert tracks, "no slices"
for key, slices in tracks.items():
    slices.sort()
    for (t0, d0), (t1, _) in zip(slices, slices[1:]):
        assert t0 + d0 <= t1, ("overlap on track", key, t0, d0, t1)
flows = {}
for e in events:
    if e["ph"] in "sf":
        flows.setdefault(e["id"], []).append(e)
for fid, ends in flows.items():
    assert sorted(x["ph"] for x in ends) == ["f", "s"], ("flow without both ends", fid)
    for x in ends:
        ts = Decimal(x["ts"])
        inside = any(t <= ts <= t + d for t, d in tracks.get((x["pid"], x["tid"]), []))
        assert inside, ("flow end outside any slice", fid, x)
print(len(events), "events,", len(flows), "flows")
PY
done

# compare: serial vs double-buffered.
"$NEURONSIM" compare P_serial P_db > compare.txt || fail "compare failed"
grep -q "speedup" compare.txt || fail "compare has no speedup row"
"$NEURONSIM" compare P_serial P_db --json > compare.json || fail "compare --json failed"

# A profile whose NEFF was swapped for another kernel's is refused.
mkdir swapped
cp P_db/*.ntff swapped/
cp P_serial/neff_*.neff "swapped/$(basename P_db/neff_*.neff)"
if "$NEURONSIM" view swapped > /dev/null 2> swapped.err; then fail "swapped NEFF accepted"; fi
grep -q "error" swapped.err || fail "no error for the swapped NEFF"

# A second kernel's profile is not mixed into an existing profile directory.
if "$NEURONSIM" run mm.neff --timing-only --profile-dir P_db > /dev/null 2> mixed.err; then
  fail "two kernels' profiles mixed in one directory"
fi
grep -q "another kernel" mixed.err || fail "unclear error for a reused directory"

# A failed run (an input not given) leaves no profile directory.
if "$NEURONSIM" run db.neff --profile-dir P_failed > /dev/null 2> failed.err; then
  fail "run without inputs succeeded"
fi
[ ! -e P_failed ] || fail "a failed run left a profile behind"
echo "profile_runs: ok"
