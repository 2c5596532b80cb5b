#!/bin/bash
# neuronsim run launch.json: a hand-written two-launch sequence (out = (a + b) * c, the
# intermediate t passed on the host) runs with the right values, profiles, views, exports
# and compares; the host model's sync mode changes end-to-end time but not device time;
# a missing NEFF, a mismatched tensor shape and a failing child are clear errors that
# leave no profile behind.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# OUT = A op B over fp32 [128, 512], loaded and stored by DMA. WAIT lets a test make the
# Vector engine wait for a semaphore nobody signals (a deadlock in the child).
kernel() {  # name a b out op wait
  cat <<NASM
kernel $1 target=trn2
tensor $2 fp32[128, 512] input
tensor $3 fp32[128, 512] input
tensor $4 fp32[128, 512] output
sbuf xa fp32[128, 512]
sbuf xb fp32[128, 512]
sbuf xo fp32[128, 512]
sem a_loaded = 0
sem b_loaded = 0
sem added = 0
sem stored = 0
sem never = 0
queue loads  first_engine=0 engines=8
queue stores first_engine=8 engines=8
sync:
    dma_copy xa, $2, queue=loads  signal a_loaded
    dma_copy xb, $3, queue=loads  signal b_loaded
    dma_copy $4, xo, queue=stores  wait added>=1  signal stored
    nop  wait stored>=1
vector:
    tensor_tensor xo, xa, xb, op=$5  wait a_loaded>=1, b_loaded>=1$6  signal added
NASM
}
kernel add_ab a b t add "" > add.nasm
kernel mul_tc t c out multiply "" > mul.nasm
kernel mul_stuck t c out multiply ", never>=1" > stuck.nasm
mkdir -p prog
"$NEURONSIM" asm add.nasm -o prog/add.neff
"$NEURONSIM" asm mul.nasm -o prog/mul.neff
"$NEURONSIM" asm stuck.nasm -o prog/stuck.neff

sequence() {  # second-neff [shape-of-t]
  cat <<JSON
{"format": "neuronsim-launch-sequence", "version": 1, "program": "axpb", "mode": "eager",
 "tensors": [{"name": "a", "dtype": "fp32", "shape": [128, 512], "role": "input"},
             {"name": "b", "dtype": "fp32", "shape": [128, 512], "role": "input"},
             {"name": "c", "dtype": "fp32", "shape": [128, 512], "role": "input"},
             {"name": "t", "dtype": "fp32", "shape": ${2:-[128, 512]}, "role": "intermediate"},
             {"name": "out", "dtype": "fp32", "shape": [128, 512], "role": "output"}],
 "launches": [{"name": "add_0", "neff": "add.neff", "op": "add", "nodes": ["n0"]},
              {"name": "mul_1", "neff": "$1", "op": "mul", "nodes": ["n1"]}]}
JSON
}
sequence mul.neff > prog/launch.json
inputs=(--input a=fill:1.5 --input b=fill:2 --input c=fill:0.5)

"$NEURONSIM" run prog/launch.json "${inputs[@]}" --out-dir out --profile-dir P > run.txt ||
  fail "sequence run failed"
grep -q "end to end" run.txt || fail "no end-to-end time"
# (1.5 + 2) * 0.5 = 1.75 everywhere: the intermediate reached the second launch.
/usr/bin/python3 - <<'PY' || fail "wrong output values"
import struct
data = open("out/out.npy", "rb").read()
hlen = struct.unpack("<H", data[8:10])[0]
assert "(128, 512)" in data[10:10 + hlen].decode()
values = struct.unpack("<%df" % (128 * 512), data[10 + hlen:])
assert all(v == 1.75 for v in values), values[:4]
PY
[ ! -e out/t.npy ] || fail "an intermediate was written as an output"

# The sequence profile: host.json and one profile per launch, device times consistent.
[ -f P/host.json ] && [ -d P/launch_000 ] && [ -d P/launch_001 ] || fail "profile layout"
/usr/bin/python3 - <<'PY' || fail "bad host.json"
import json
h = json.load(open("P/host.json"))
assert h["format"] == "neuronsim-host-trace" and h["version"] == 1
assert h["program"] == "axpb" and h["mode"] == "eager" and h["target"] == "trn2"
for k in ("framework_dispatch_ns", "runtime_call_ns", "sync_ns", "async", "queue_depth"):
    assert "value" in h["host_model"][k] and "unit" in h["host_model"][k], k
L = h["launches"]
assert [l["profile"] for l in L] == ["launch_000", "launch_001"]
assert abs(sum(l["device_ns"] for l in L) - h["device_ns"]) < 1e-6
for a, b in zip(L, L[1:]):
    assert b["device"]["start_ns"] >= a["device"]["end_ns"], "device runs launches one at a time"
for l in L:
    fd, rc, dv = l["framework_dispatch"], l["runtime_call"], l["device"]
    assert fd["end_ns"] <= rc["start_ns"] <= rc["end_ns"] <= dv["start_ns"]
    assert abs(dv["end_ns"] - dv["start_ns"] - l["device_ns"]) < 1e-6
    assert abs(l["host_ns"] - (fd["end_ns"] - fd["start_ns"]) - (rc["end_ns"] - rc["start_ns"])) < 1e-6
assert h["total_ns"] >= L[-1]["device"]["end_ns"]
PY

"$NEURONSIM" view P > view.txt || fail "view of a sequence failed"
grep -q "device time" view.txt && grep -q "dispatch gaps" view.txt || fail "view lacks columns"
"$NEURONSIM" view P --json > view.json || fail "view --json failed"
/usr/bin/python3 -c '
import json; v = json.load(open("view.json"))
assert [o["op"] for o in v["ops"]] == ["add", "mul"] and v["ops"][0]["launches"] == 1
assert abs(v["dispatch_gap_ns"] - (v["total_ns"] - v["device_ns"])) < 1e-6' ||
  fail "view --json content"
"$NEURONSIM" view P/launch_001 > /dev/null || fail "a launch profile does not open alone"

"$NEURONSIM" export P --perfetto p.json || fail "export of a sequence failed"
/usr/bin/python3 "$SOURCE_DIR/tests/tools/perfetto_check.py" p.json || fail "strict Perfetto check"
/usr/bin/python3 - <<'PY' || fail "bad sequence Perfetto JSON"
import json
from decimal import Decimal
events = json.load(open("p.json"), parse_float=Decimal)["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "thread_name"}
host = {n for (pid, _), n in names.items() if pid == 1000}
assert host == {"framework dispatch", "runtime calls", "device execution", "sync"}, host
assert "vector" in {n for (pid, _), n in names.items() if pid == 1}
tracks = {}
for e in events:
    if e["ph"] == "X":
        tracks.setdefault((e["pid"], e["tid"]), []).append((Decimal(e["ts"]), Decimal(e["dur"])))
for key, s in tracks.items():
    s.sort()
    for (t0, d0), (t1, _) in zip(s, s[1:]):
        assert t0 + d0 <= t1, ("overlap", names.get(key), t0, d0, t1)
# The second launch's vector work lies inside its device execution on the host lane.
dev = sorted(tracks[[k for k, n in names.items() if k[0] == 1000 and n == "device execution"][0]])
vec = sorted(tracks[[k for k, n in names.items() if k[0] == 1 and n == "vector"][0]])
assert len(dev) == 2 and len(vec) == 2
for (d, dd), (v, vd) in zip(dev, vec):
    assert d <= v and v + vd <= d + dd, (d, dd, v, vd)
flows = {}
for e in events:
    if e["ph"] in "sf":
        flows.setdefault(e["id"], []).append(e["ph"])
assert flows and all(sorted(v) == ["f", "s"] for v in flows.values())
PY

# The host in sync mode: same device time, a longer end to end.
echo '{"host": {"async": false}}' > sync.json
"$NEURONSIM" run prog/launch.json "${inputs[@]}" --config sync.json --timing-only \
  --profile-dir P_sync > /dev/null || fail "sync-mode run failed"
"$NEURONSIM" compare P P_sync > compare.txt || fail "compare of sequences failed"
grep -q "2 launches" compare.txt || fail "compare does not show launches"
"$NEURONSIM" compare P P_sync --json > compare.json || fail "compare --json failed"
/usr/bin/python3 -c '
import json; c = json.load(open("compare.json"))
a, s = c["sequences"]
assert abs(a["device_ns"] - s["device_ns"]) < 1e-6, (a, s)
assert s["total_ns"] > a["total_ns"], (a, s)' || fail "sync mode should be slower end to end"

# Errors: clear, non-zero, and no profile left behind.
expect_error() {  # pattern launch.json
  if "$NEURONSIM" run "$2" "${inputs[@]}" --profile-dir P_bad > /dev/null 2> err.txt; then
    fail "accepted: $2"
  fi
  grep -q "$1" err.txt || { cat err.txt >&2; fail "unclear error for $2"; }
  [ ! -e P_bad ] || fail "a failed sequence left a profile behind"
  ! ls -d P_bad.partial-* > /dev/null 2>&1 || fail "a failed sequence left its staging folder"
}
sequence missing.neff > prog/missing.json
expect_error "missing.neff not found" prog/missing.json
sequence mul.neff "[128, 256]" > prog/shape.json
expect_error "tensor 't' is fp32\[128, 512\] in the NEFF but fp32\[128, 256\] in the program" \
  prog/shape.json
sequence stuck.neff > prog/stuck.json
expect_error "stuck.neff" prog/stuck.json
grep -qi "deadlock\|never\|stuck\|blocked" err.txt || { cat err.txt >&2; fail "child error text lost"; }
echo "launch_sequence: ok"
