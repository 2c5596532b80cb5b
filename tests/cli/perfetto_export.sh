#!/bin/bash
# The Perfetto export's defects of issue 14, each checked on the exported JSON, and every
# export through the strict trace-event checker (tests/tools/perfetto_check.py):
#   - no pid 0 (Perfetto's idle process);
#   - the HBM bandwidth counter closes at the run's exact end, so in a launch sequence
#     whose launches run back to back it never drops to 0 at a boundary after the next
#     launch began (its samples strictly increase in time);
#   - the host's final sync is on the timeline, so the trace ends at the end-to-end time;
#     a synchronous host has a sync after every launch;
#   - no flow arrow starts or ends on a zero-length slice.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
check="$SOURCE_DIR/tests/tools/perfetto_check.py"

# [4096, 4096] eager RMSNorm: each launch is longer than the host's dispatch, so the
# launches after the second run back to back on the device.
"$NEURONSIM" compile "$SOURCE_DIR/examples/rmsnorm/rmsnorm.json" --mode eager -t trn2 -o eager >/dev/null
"$NEURONSIM" run eager/launch.json --timing-only --profile-dir P >/dev/null
"$NEURONSIM" run eager/launch.json --timing-only --profile-dir P_sync \
  --override "$SOURCE_DIR/examples/configs/host_sync.json" >/dev/null
"$NEURONSIM" example rmsnorm --double-buffer -t trn2 -o r.neff >/dev/null
"$NEURONSIM" run r.neff --input x=normal:0,1 --input w=ones --profile-dir K >/dev/null
for p in P P_sync K P/launch_001; do
  "$NEURONSIM" export "$p" --perfetto "$(basename "$p").json" >/dev/null
  /usr/bin/python3 "$check" "$(basename "$p").json" || fail "strict check of $p"
done

/usr/bin/python3 - <<'PY' || fail "Perfetto export content"
import json
from decimal import Decimal

def load(path):
    return json.load(open(path), parse_float=Decimal)

def slices(doc, pid, lane):
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    return sorted((e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"]
                  if e["ph"] == "X" and e["pid"] == pid and names[(pid, e["tid"])] == lane)

for path in ("P.json", "P_sync.json", "K.json", "launch_001.json"):
    assert all(e["pid"] != 0 for e in load(path)["traceEvents"]), path + ": pid 0"

# Single kernel: the closing HBM sample is at the run's exact end (ps), not rounded up.
k = load("K.json")
end_us = Decimal(k["otherData"]["total_time_ps"]) / Decimal(10**6)
hbm = [e for e in k["traceEvents"] if e["ph"] == "C" and e["name"].startswith("HBM")]
assert hbm[-1]["ts"] == end_us, (hbm[-1]["ts"], end_us)
assert all(e["ts"] < end_us for e in hbm[:-1])

for path, synchronous in (("P.json", False), ("P_sync.json", True)):
    doc = load(path)
    total_us = Decimal(str(doc["otherData"]["total_ns"])) / 1000
    device = slices(doc, 1000, "device execution")
    sync = slices(doc, 1000, "sync")
    # The trace ends at the end-to-end time, with the host's last sync.
    last = max(e["ts"] + e.get("dur", 0) for e in doc["traceEvents"] if e["ph"] == "X")
    assert abs(last - total_us) < Decimal("0.000001"), (path, last, total_us)
    assert sync[-1] == (device[-1][1], last), (path, sync[-1], device[-1])
    assert len(sync) == (len(device) if synchronous else 1), (path, len(sync))
    # Back-to-back launches: the HBM counter has one sample at each boundary, the next
    # launch's first, and none of the previous launch's after it.
    hbm = [e for e in doc["traceEvents"] if e["ph"] == "C" and e["name"].startswith("HBM")]
    times = [e["ts"] for e in hbm]
    touching = [a[1] for a, b in zip(device, device[1:]) if a[1] == b[0]]
    if not synchronous:
        assert touching, "no back-to-back launches: the test lost its point"
    for b in touching:
        assert times.count(b) == 1, (path, b, times.count(b))
    # The counter's last sample closes at the last launch's end.
    assert hbm[-1]["ts"] == device[-1][1] and hbm[-1]["args"]["read"] == 0, hbm[-1]
print("perfetto content ok")
PY
echo "perfetto_export: ok"
