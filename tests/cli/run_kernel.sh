#!/bin/bash
# neuronsim run: outputs as .npy with the right values, statistics as JSON, a timing-only
# run with the same statistics, and errors that name what is wrong without writing files.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# out = a + b, [128, 512] fp32, loaded and stored by DMA (like examples/asm/tiny_add.nasm).
cat > add.nasm <<'NASM'
kernel add target=trn1
tensor a   fp32[128, 512] input
tensor b   fp32[128, 512] input
tensor out fp32[128, 512] output
sbuf xa fp32[128, 512]
sbuf xb fp32[128, 512]
sbuf xo fp32[128, 512]
sem a_loaded = 0
sem b_loaded = 0
sem added = 0
sem stored = 0
queue loads  first_engine=0 engines=8
queue stores first_engine=8 engines=8
sync:
    dma_copy xa, a, queue=loads  signal a_loaded
    dma_copy xb, b, queue=loads  signal b_loaded
    dma_copy out, xo, queue=stores  wait added>=1  signal stored
    nop  wait stored>=1
vector:
    tensor_tensor xo, xa, xb, op=add  wait a_loaded>=1, b_loaded>=1  signal added
NASM
"$NEURONSIM" asm add.nasm -o add.neff

"$NEURONSIM" run add.neff --input a=fill:1.5 --input b=fill:2 --out-dir out \
  --stats-json full.json > full.txt || fail "run failed"
[ -f out/out.npy ] || fail "no out/out.npy"
grep -q "neuroncore cycles" full.txt || fail "no total in the summary"
grep -q "^vector       1" full.txt || fail "no vector row in the table"

# Every element of out.npy is 3.5 (standard library only: no numpy needed).
/usr/bin/python3 - <<'PY' || fail "wrong output values"
import struct
data = open("out/out.npy", "rb").read()
assert data[:6] == b"\x93NUMPY", "not a .npy file"
hlen = struct.unpack("<H", data[8:10])[0]
header = data[10:10 + hlen].decode()
assert "'<f4'" in header and "(128, 512)" in header, header
values = struct.unpack("<%df" % (128 * 512), data[10 + hlen:])
assert all(v == 3.5 for v in values), values[:4]
PY

# Statistics: present, with units, and the engine times add up to the total.
/usr/bin/python3 - <<'PY' || fail "bad statistics JSON"
import json
s = json.load(open("full.json"))["stats"]
total = s["total_time_ns"]["value"]
assert total > 0 and s["total_time_ns"]["unit"] == "ns"
assert s["dma_transfer_count"]["value"] == 3
assert s["hbm_read_bytes"]["value"] == 2 * 128 * 512 * 4
assert s["hbm_write_bytes"]["value"] == 128 * 512 * 4
for e in ["tensor", "vector", "scalar", "gpsimd", "sync"]:
    parts = sum(s[f"{e}_engine_{k}"]["value"] for k in
                ["busy_ns", "semaphore_wait_ns", "port_wait_ns", "dma_queue_wait_ns", "idle_ns"])
    assert abs(parts - total) < 0.01, (e, parts, total)
PY

# Timing only: the same statistics, no outputs needed or written.
"$NEURONSIM" run add.neff --timing-only --out-dir out2 --stats-json timing.json > timing.txt
[ ! -e out2/out.npy ] || fail "timing-only wrote outputs"
diff <(grep -v timing_only full.json) <(grep -v timing_only timing.json) ||
  fail "timing-only statistics differ from the full run"

# Same input, byte-identical outputs and statistics.
"$NEURONSIM" run add.neff --input a=uniform:-1,1 --input b=normal:0,1 --seed 7 --out-dir r1 \
  --stats-json r1.json > /dev/null
"$NEURONSIM" run add.neff --input a=uniform:-1,1 --input b=normal:0,1 --seed 7 --out-dir r2 \
  --stats-json r2.json > /dev/null
cmp r1/out.npy r2/out.npy || fail "outputs differ between identical runs"
cmp r1.json r2.json || fail "statistics differ between identical runs"

# Errors: one line naming the problem, non-zero exit, no output files.
if "$NEURONSIM" run add.neff --input a=ones --out-dir bad 2> err.txt; then fail "missing input accepted"; fi
grep -q "inputs not given: 'b'" err.txt || fail "missing input not named: $(cat err.txt)"
[ ! -e bad/out.npy ] || fail "an output was written after an error"
if "$NEURONSIM" run add.neff --input c=ones 2> err.txt; then fail "unknown input accepted"; fi
grep -q "no input tensor named 'c'" err.txt || fail "unknown input not named: $(cat err.txt)"

# A deadlock is an error naming the blocked engine and semaphore.
sed -e 's/wait a_loaded>=1, b_loaded>=1/wait a_loaded>=2, b_loaded>=1/' -e 's/^kernel add/kernel dead/' add.nasm > dead.nasm
"$NEURONSIM" asm dead.nasm -o dead.neff
if "$NEURONSIM" run dead.neff --timing-only 2> err.txt; then fail "deadlock not detected"; fi
grep -q "deadlock" err.txt || fail "no deadlock message: $(cat err.txt)"
grep -q "dead.neff: kernel 'dead'" err.txt || fail "deadlock message does not name the file"
grep -Eq "vector\[0\] tensor_tensor( \(line [0-9]+\))?: waits for semaphore 'a_loaded' = 1, wants >= 2" err.txt ||
  fail "deadlock message does not name the wait: $(cat err.txt)"
# --cores N: the kernel on N cores of one device at once, beside a core alone. trn1 has 2
# cores; each core's row reports the same time as the lone core (two cores together ask
# for less than the chip's HBM bandwidth), the outputs are core 0's.
"$NEURONSIM" run add.neff --cores 2 --input a=fill:1.5 --input b=fill:2 --out-dir cores \
  --stats-json cores.json > cores.txt || fail "--cores 2 failed"
grep -q "on 2 of the 2 cores of one trn1 device" cores.txt || fail "no device line: $(cat cores.txt)"
alone=$(sed -n 's/^alone (its own HBM): \([0-9.]*\) ns.*/\1/p' cores.txt)
[ -n "$alone" ] || fail "no lone-core time: $(cat cores.txt)"
[ "$(grep -cE "^ +[01] +$alone +[0-9]+ +1\.000x" cores.txt)" = 2 ] || fail "core rows: $(cat cores.txt)"
cmp cores/out.npy out/out.npy || fail "--cores outputs differ from a lone run's"
/usr/bin/python3 -c 'import json; d = json.load(open("cores.json")); assert len(d["cores"]) == 2 and d["alone"]["total_time_ns"]["value"] > 0' ||
  fail "bad --cores statistics"
if "$NEURONSIM" run add.neff --cores 3 --input a=ones --input b=ones 2> err.txt; then fail "3 trn1 cores accepted"; fi
grep -q "trn1 has 2 NeuronCores per chip; asked for 3" err.txt || fail "core count error: $(cat err.txt)"
if "$NEURONSIM" run add.neff --cores 2 --timing-only --profile-dir p 2> err.txt; then fail "--cores with --profile-dir accepted"; fi
grep -q "do not go together" err.txt || fail "--cores/--profile-dir error: $(cat err.txt)"

# Integers for a float tensor: refused, naming the tensor, unless ,cast (or --raw-bits).
/usr/bin/python3 -c '
import struct
hdr = "{\x27descr\x27: \x27<i4\x27, \x27fortran_order\x27: False, \x27shape\x27: (128, 512), }"
hdr += " " * (117 - len(hdr)) + "\n"
open("ints.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + hdr.encode()
                             + struct.pack("<i", 2) * (128 * 512))'
if "$NEURONSIM" run add.neff --input a=ints.npy --input b=zeros 2> err.txt > /dev/null; then
  fail "integers for an fp32 tensor accepted"
fi
grep -q "tensor a is fp32 but the file holds integers" err.txt || fail "integer input error: $(cat err.txt)"
"$NEURONSIM" run add.neff --input a=ints.npy,cast --input b=fill:1.5 --out-dir cast > /dev/null ||
  fail ",cast refused"
/usr/bin/python3 -c '
import struct
d = open("cast/out.npy", "rb").read()
assert struct.unpack("<f", d[-4:])[0] == 3.5' || fail ",cast did not convert the values"
echo "ok"
