#!/usr/bin/env bash
# tests/hostile/hostile.sh CLASS: generated hostile inputs of one class (README.md here),
# each run by `neuronsim` under a 20 s timeout and a 2 GiB memory bound. A refused input
# must give exactly one line, "neuronsim: error: ...", and exit 1 (never 2, the internal-
# error code, never a signal). Classes: truncations lying-sizes extreme-numbers
# forged-traces links-devices killed-writers.
#   NEURONSIM, SOURCE_DIR, FORGE_TRACE (tests/hostile/forge_trace, built by CTest)
set -uo pipefail
class=${1:?usage: hostile.sh CLASS}
N=${NEURONSIM:?}
SRC=${SOURCE_DIR:?}
PY=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/neuronsim-hostile-$class.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0 cases=0
limit_kb=$((2 * 1024 * 1024))

fail() { echo "hostile/$class: FAIL: $*"; failures=$((failures + 1)); }

# refused NAME CMD...: a clean refusal. The memory bound: `ulimit -v` for commands that
# reserve no HBM; `run` reserves the target's HBM address space (96 GiB, never touched
# unless written), so for it the peak resident set (GNU time) is what is bounded. In the
# sanitizer build (ASAN_OPTIONS set) only exit, message and time are checked.
refused() {
  local name=$1; shift
  cases=$((cases + 1))
  local start=$SECONDS rc
  if [[ -n ${ASAN_OPTIONS:-} ]]; then  # sanitizer build: its shadow memory defeats ulimit -v
    timeout -s KILL 20 "$N" "$@" >out.txt 2>err.txt
    rc=$?
    echo 0 >rss.txt
  elif [[ $1 == run ]]; then
    timeout -s KILL 20 /usr/bin/time -f '%M' -o rss.txt "$N" "$@" >out.txt 2>err.txt
    rc=$?
  else
    (ulimit -v $limit_kb; exec timeout -s KILL 20 "$N" "$@") >out.txt 2>err.txt
    rc=$?
    echo 0 >rss.txt
  fi
  local took=$((SECONDS - start))
  local lines; lines=$(grep -c '' err.txt)
  if [[ $rc -ne 1 ]]; then
    fail "$name: exit $rc, not 1 ($(head -c 300 err.txt))"
  elif [[ $lines -ne 1 ]] || ! grep -q '^neuronsim: error: ' err.txt; then
    fail "$name: not one error line: $(head -c 300 err.txt)"
  elif ((took >= 20)); then
    fail "$name: took ${took} s"
  elif (($(tail -1 rss.txt) > limit_kb)); then
    fail "$name: peak memory $(tail -1 rss.txt) KB"
  else
    printf '  %-44s %s\n' "$name" "$(cut -c1-150 err.txt)"
  fi
}

# accepted NAME CMD...: must succeed (exit 0) in bounds: a hostile input that is valid.
accepted() {
  local name=$1; shift
  cases=$((cases + 1))
  local start=$SECONDS rc
  timeout -s KILL 20 "$N" "$@" >out.txt 2>err.txt
  rc=$?
  if [[ $rc -ne 0 ]]; then fail "$name: exit $rc ($(head -c 300 err.txt))"; else printf '  %-44s ok\n' "$name"; fi
}

# Material: a small NEFF, its profile, a compiled program and a sequence profile.
"$N" asm "$SRC/examples/asm/tiny_add.nasm" -o k.neff >/dev/null || exit 1
"$N" run k.neff --input a=ones --input b=ones -q --profile-dir prof >/dev/null || exit 1
"$N" compile "$SRC/examples/rmsnorm/rmsnorm_small.json" --mode eager -o prog >/dev/null || exit 1
"$N" run prog/launch.json --timing-only -q --profile-dir seqprof >/dev/null || exit 1
ntff=$(ls prof/*.ntff)
cat >"$work/rehash.py" <<'PYEOF'
# rehash.py IN.neff OUT.neff PAYLOAD_FILE: OUT = IN's header made valid for a new payload
# (SHA-256, the uuid derived from it, data_size), so the reader gets past the hash check.
import hashlib, struct, sys
b = open(sys.argv[1], 'rb').read(); payload = open(sys.argv[3], 'rb').read()
h = bytearray(b[:1024]); old = hashlib.sha256(b[1024:]).digest(); new = hashlib.sha256(payload).digest()
i = h.find(old); h[i:i + 32] = new
def uuid(d):
    u = bytearray(d[:16]); u[6] = (u[6] & 0x0f) | 0x80; u[8] = (u[8] & 0x3f) | 0x80; return bytes(u)
k = h.find(uuid(old)); h[k:k + 16] = uuid(new)
if struct.unpack_from('<Q', h, 16)[0] == len(b) - 1024: struct.pack_into('<Q', h, 16, len(payload))
open(sys.argv[2], 'wb').write(bytes(h) + payload)
PYEOF

case $class in
truncations)
  size=$(stat -c %s k.neff)
  for cut in 0 1 100 1023 1024 1100 $((size / 2)) $((size - 9)) $((size - 1)); do
    head -c $cut k.neff >t.neff
    refused "neff cut at $cut of $size" run t.neff --timing-only
  done
  nsize=$(stat -c %s "$ntff")
  for cut in 0 4 16 $((nsize / 2)) $((nsize - 8)) $((nsize - 1)); do
    rm -rf tp && cp -r prof tp && head -c $cut "$ntff" >"tp/$(basename "$ntff")"
    refused "ntff cut at $cut of $nsize: view" view tp
  done
  "$N" run k.neff --input a=ones --input b=ones -q --save-inputs npy >/dev/null
  for cut in 0 6 10 60 128 1000; do
    head -c $cut npy/a.npy >a.npy
    refused "npy cut at $cut" run k.neff --input a=a.npy --input b=ones
  done
  for f in prog/launch.json "$SRC/examples/rmsnorm/rmsnorm_small.json" seqprof/host.json; do
    s=$(stat -c %s "$f")
    head -c $((s / 2)) "$f" >half.json
    case $f in
    *launch.json) mkdir -p lj && cp prog/*.neff lj/ && cp half.json lj/launch.json
      refused "launch.json cut in half" run lj/launch.json --timing-only ;;
    *host.json) rm -rf sp && cp -r seqprof sp && cp half.json sp/host.json
      refused "host.json cut in half: view" view sp
      refused "host.json cut in half: report" report sp -o r.html ;;
    *) refused "graph cut in half" compile half.json -o out ;;
    esac
  done
  # Cut inside the second load's operands, wherever the file's comments put it.
  cut=$(grep -bo "dma_copy xb, b, queue=lo" "$SRC/examples/asm/tiny_add.nasm" | cut -d: -f1)
  head -c $((cut + 24)) "$SRC/examples/asm/tiny_add.nasm" >t.nasm
  refused "assembly cut mid-statement" asm t.nasm -o t2.neff
  ;;
lying-sizes)
  sed 's/tensor out fp32\[128, 512\] output/&\ntensor big fp32[1024, 786432] output/' \
    "$SRC/examples/asm/tiny_add.nasm" >big.nasm
  "$N" asm big.nasm -o big.neff --limit tensor_bytes=4G >/dev/null
  refused "NEFF declaring a 3 GiB output" run big.neff --timing-only
  refused "3 GiB output: asm" asm big.nasm -o x.neff
  # 40 tensors of 1 GiB: within tensor_bytes, past trn1's 32 GiB of HBM.
  { sed -n '1,/^tensor out/p' "$SRC/examples/asm/tiny_add.nasm"
    for i in $(seq 1 40); do echo "tensor g$i fp32[1024, 262144] output"; done
    sed -n '/^tensor out/,$p' "$SRC/examples/asm/tiny_add.nasm" | tail -n +2; } >hbm.nasm
  "$N" asm hbm.nasm -o hbm.neff --limit kernel_tensor_bytes=64G >/dev/null
  refused "NEFF declaring 40 GiB (HBM capacity)" run hbm.neff -t trn1 --timing-only --limit kernel_tensor_bytes=64G
  refused "NEFF declaring 40 GiB (kernel limit)" run hbm.neff --timing-only
  $PY - <<'PYEOF'
import struct
def npy(name, shape, descr='<f4', data=b''):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
    open(name, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data)
npy('huge.npy', '(4294967296, 4294967296)')
npy('wrap.npy', '(4611686018427387904, 8)')
npy('lies.npy', '(128, 512)', data=b'\0' * 100)
PYEOF
  for f in huge wrap lies; do refused "npy $f" run k.neff --input a=$f.npy --input b=ones; done
  $PY - <<'PYEOF'
import json
j = json.load(open('prog/launch.json'))
j['tensors'][0]['shape'] = [1 << 40, 1 << 20]
import os; os.makedirs('ls', exist_ok=True)
json.dump(j, open('ls/launch.json', 'w'))
j = json.load(open('prog/launch.json')); j['launches'] = j['launches'] * 1000
for i, l in enumerate(j['launches']): l['name'] = 'l%d' % i
os.makedirs('many', exist_ok=True); json.dump(j, open('many/launch.json', 'w'))
g = {"format": "neuronsim-graph", "version": 1, "name": "rows",
     "inputs": [{"name": "x", "dtype": "bf16", "shape": [1 << 30, 1]}],
     "nodes": [{"id": "y", "op": "add", "args": ["x", 1.0]}], "outputs": ["y"]}
json.dump(g, open('rows30.json', 'w'))
g["inputs"][0]["shape"] = [1 << 29, 1]; json.dump(g, open('rows29.json', 'w'))
nodes = []; prev = "x"
for i in range(12000):
    nodes.append({"id": "n%d" % i, "op": "add", "args": [prev, 1.0]}); prev = "n%d" % i
json.dump({"format": "neuronsim-graph", "version": 1, "name": "chain",
           "inputs": [{"name": "x", "dtype": "fp32", "shape": [128, 64]}],
           "nodes": nodes, "outputs": [prev]}, open('chain.json', 'w'))
PYEOF
  cp prog/*.neff ls/
  refused "launch.json tensor of 2^60 elements" run ls/launch.json --timing-only
  cp prog/*.neff many/
  refused "launch.json with 6000 launches" run many/launch.json --timing-only --limit launches=5000
  refused "graph input [2^30, 1]" compile rows30.json -o o30
  refused "graph input [2^29, 1] (instructions)" compile rows29.json -o o29 --limit instructions=1048576
  refused "graph of 12,000 nodes" compile chain.json -o oc
  # A payload entry that claims more bytes than it holds, behind a valid hash.
  $PY - <<'PYEOF'
import gzip
b = open('k.neff', 'rb').read(); tar = bytearray(gzip.decompress(b[1024:]))
tar[124:136] = b'77777777777\0'  # def.json's size field: 8 GiB
open('lie.payload', 'wb').write(gzip.compress(bytes(tar)))
import zlib  # 2 GiB of zeros, compressed a MiB at a time (about 2 MB)
z = zlib.compressobj(1, zlib.DEFLATED, 31); mib = bytes(1 << 20)
open('bomb.payload', 'wb').write(b''.join(z.compress(mib) for _ in range(2048)) + z.flush())
PYEOF
  $PY rehash.py k.neff lie.neff lie.payload
  refused "tar entry claiming 8 GiB" run lie.neff --timing-only
  $PY rehash.py k.neff bomb.neff bomb.payload
  refused "gzip bomb (2 GiB of zeros)" run bomb.neff --timing-only
  # Payloads libarchive alone would accept: an uncompressed tar, a bad gzip CRC-32, bytes
  # after the gzip stream (each behind a valid hash).
  $PY - <<'PYEOF'
import gzip
p = open('k.neff', 'rb').read()[1024:]
open('plain.payload', 'wb').write(gzip.decompress(p))
bad = bytearray(p); bad[-8] ^= 1; open('crc.payload', 'wb').write(bytes(bad))
open('trail.payload', 'wb').write(p + b'junk')
PYEOF
  for f in plain crc trail; do
    $PY rehash.py k.neff $f.neff $f.payload
    refused "NEFF payload: $f" run $f.neff --timing-only
  done
  head -c $((300 * 1024 * 1024)) /dev/zero >zeros.neff
  refused "300 MiB NEFF (file size limit)" run zeros.neff
  ;;
extreme-numbers)
  for v in 1e400 -1 0 1e-300 5e-324 1e300 '"fast"' true null '[1]'; do
    echo "{\"dma\": {\"hbm_bytes_per_ns\": $v}}" >o.json
    refused "config hbm_bytes_per_ns = $v" run k.neff --timing-only --override o.json
    echo "{\"host\": {\"sync_ns\": $v}}" >o.json
    if [[ $v == 0 || $v == 1e-300 ]]; then  # a latency of (almost) nothing is sane
      accepted "config host.sync_ns = $v" config -t trn2 --override o.json
    else
      refused "config host.sync_ns = $v" config -t trn2 --override o.json
    fi
  done
  echo '{"hbm": {"capacity_bytes": 18446744073709551615}}' >o.json
  # The HBM maps 64 MiB chunks on first touch: even a capacity of 2^64 - 1 costs nothing.
  accepted "config capacity 2^64-1" run k.neff --timing-only --override o.json
  for v in true 1e400 '"neuronsim-graph", "format": 1' '{}'; do
    sed "s/\"format\": \"neuronsim-graph\"/\"format\": $v/" "$SRC/examples/rmsnorm/rmsnorm_small.json" >g.json
    refused "graph \"format\": $v" compile g.json -o og
    sed "s/\"format\": \"neuronsim-launch-sequence\"/\"format\": $v/" prog/launch.json >prog/bad.json
    refused "launch.json \"format\": $v" run prog/bad.json --timing-only
    rm -rf sp && cp -r seqprof sp
    sed "s/\"format\": \"neuronsim-host-trace\"/\"format\": $v/" seqprof/host.json >sp/host.json
    refused "host.json \"format\": $v: view" view sp
    refused "host.json \"format\": $v: report" report sp -o r.html
  done
  for v in 1e400 -1 0 1.5 '"1"' 18446744073709551616; do
    sed "0,/128,/s//$v,/" "$SRC/examples/rmsnorm/rmsnorm_small.json" >g.json
    refused "graph shape $v" compile g.json -o og
    sed "0,/128,/s//$v,/" prog/launch.json >prog/bad.json
    refused "launch.json shape $v" run prog/bad.json --timing-only
  done
  for v in 4294967296 -1 1e400; do
    sed "s/sem a_loaded = 0/sem a_loaded = $v/" "$SRC/examples/asm/tiny_add.nasm" >s.nasm
    refused "semaphore initial value $v" asm s.nasm -o s.neff
  done
  refused "--limit with a huge value" run k.neff --limit tensor_bytes=99999999999999999999999
  refused "--limit unknown" run k.neff --limit nonsense=1
  ;;
forged-traces)
  for mode in bytes-max late; do
    rm -rf f && cp -r prof f && "$FORGE_TRACE" $mode "$ntff" "f/$(basename "$ntff")"
    accepted "trace $mode: view" view f
    accepted "trace $mode: export" export f --perfetto f.json
  done
  # 2^64-1 ps in all: the report's tick loop once wrapped and never ended; it must finish.
  rm -rf f && cp -r prof f && "$FORGE_TRACE" total-max "$ntff" "f/$(basename "$ntff")"
  accepted "trace total 2^64-1 ps: view" view f
  cases=$((cases + 1))
  timeout -s KILL 20 "$N" report f -o r.html >out.txt 2>err.txt
  rc=$?
  if [[ $rc -eq 137 ]]; then
    fail "trace total 2^64-1 ps: report: still running after 20 s (killed)"
  elif [[ $rc -ne 0 && $rc -ne 1 ]]; then
    fail "trace total 2^64-1 ps: report: exit $rc"
  else
    echo "  trace total 2^64-1 ps: report             exit $rc"
  fi
  rm -rf f && cp -r prof f
  $PY - "f/$(basename "$ntff")" <<'PYEOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[-1] ^= 0xff; open(p, 'wb').write(b)
PYEOF
  refused "trace with a bad checksum" view f
  rm -rf f && cp -r prof f && cp prog/00_sq.neff "f/$(basename prof/*.neff)"
  refused "trace beside another kernel's NEFF" view f
  rm -rf f && cp -r seqprof f
  sed -i 's/"total_ns": [0-9.]*/"total_ns": 1e400/' f/host.json
  refused "host.json total 1e400: view" view f
  refused "host.json total 1e400: report" report f -o r.html
  refused "host.json total 1e400: export" export f --perfetto f.json
  ;;
links-devices)
  mkfifo fifo.neff fifo.json fifo.npy fifo.nasm
  for f in /dev/zero /dev/null fifo.neff; do refused "NEFF from $f" run $f; done
  refused "assembly from a FIFO" asm fifo.nasm -o x.neff
  refused "assembly from /dev/zero" asm /dev/zero -o x.neff
  refused "graph from a FIFO" compile fifo.json -o o
  refused "config from /dev/zero" run k.neff --override /dev/zero
  refused ".npy input from a FIFO" run k.neff --input a=fifo.npy --input b=ones
  refused ".npy input from /dev/zero" run k.neff --input a=/dev/zero --input b=ones
  refused "NEFF is a directory" run prog
  mkdir -p out && $PY - <<'PYEOF'
import json, os
j = json.load(open('prog/launch.json'))
for name, neff in [('abs', '/etc/passwd'), ('up', '../prog/00_sq.neff'), ('dev', '/dev/zero')]:
    os.makedirs(name, exist_ok=True)
    k = json.loads(json.dumps(j)); k['launches'][0]['neff'] = neff
    json.dump(k, open(name + '/launch.json', 'w'))
PYEOF
  for d in abs up dev; do refused "launch.json naming $d" run $d/launch.json --timing-only; done
  mkdir -p linked && cp prog/* linked/ && ln -sf /etc/passwd linked/00_sq.neff
  refused "launch.json NEFF symlinked outside" run linked/launch.json --timing-only
  refused "launch.json NEFF symlinked: errors never echo the file" run linked/launch.json --allow-outside-files --timing-only
  grep -q root err.txt && fail "the error quotes /etc/passwd"
  cp /etc/passwd passwd.json
  refused "a launch.json that is /etc/passwd" run passwd.json
  grep -q root err.txt && fail "the error quotes /etc/passwd"
  # Planted symlinks at outputs: the link is replaced, its target never written.
  echo victim >victim.txt
  mkdir -p o1 && ln -s "$work/victim.txt" o1/out.npy
  accepted "run --out-dir over a planted symlink" run k.neff --input a=ones --input b=ones --out-dir o1
  [[ $(cat victim.txt) == victim ]] || fail "run --out-dir wrote through a symlink"
  ln -s "$work/victim.txt" r.html
  accepted "report -o over a planted symlink" report prof -o r.html
  [[ $(cat victim.txt) == victim ]] || fail "report -o wrote through a symlink"
  [[ -L r.html ]] && fail "report -o left the symlink"
  ln -s "$work/victim.txt" .r2.html.tmp-neuronsim
  accepted "report -o beside the old fixed temp name" report prof -o r2.html
  [[ $(cat victim.txt) == victim ]] || fail "report -o wrote through the old temp name"
  ln -sfn "$work/victim.txt" pl
  refused "compile -o onto a symlink" compile "$SRC/examples/rmsnorm/rmsnorm_small.json" -o pl
  mkdir -p notprog && touch notprog/keep
  refused "compile -o onto a directory that is not a program" compile "$SRC/examples/rmsnorm/rmsnorm_small.json" -o notprog
  [[ -e notprog/keep ]] || fail "compile -o removed an unrelated directory"
  # Outputs that are streams are written in place, never replaced by a file: as root, a
  # rename over /dev/null once replaced the machine's /dev/null. A private character
  # device (the null device's numbers; needs root, else skipped), a FIFO with a reader,
  # and a symlink to the device (like /dev/stdout).
  if mknod -m 666 null_dev c 1 3 2>/dev/null; then
    ln -s "$work/null_dev" null_link
    accepted "example -o a character device" example rmsnorm -o null_dev
    accepted "disasm -o a character device" disasm k.neff -o null_dev
    accepted "report -o a character device" report prof -o null_dev
    accepted "export to a character device" export prof --perfetto null_dev
    accepted "example -o a symlink to a character device" example rmsnorm -o null_link
    [[ -c null_dev ]] || fail "a writer replaced a character device with a file"
    [[ -L null_link ]] || fail "a writer replaced a symlink to a character device"
    compgen -G ".null_*.tmp-neuronsim-*" >/dev/null && fail "a stream output left a temporary file"
  else
    echo "  character device outputs                  skipped (mknod needs root)"
  fi
  mkfifo out_fifo
  (cat out_fifo >fifo_bytes &)
  accepted "disasm -o a FIFO" disasm k.neff -o out_fifo
  [[ -p out_fifo ]] || fail "disasm -o replaced a FIFO with a file"
  sleep 0.2
  [[ -s fifo_bytes ]] || fail "disasm -o wrote nothing into the FIFO"
  ;;
killed-writers)
  # SIGKILL at random points; whatever is left must be either absent, whole, or refused
  # cleanly by its reader. References are taken from undisturbed runs.
  "$N" run k.neff --input a=ones --input b=ones -q --profile-dir kp >/dev/null
  "$N" view kp >ref_view.txt
  "$N" report prof -o ref.html >/dev/null
  "$N" run prog/launch.json --timing-only -q >ref_seq.txt
  RANDOM=13
  for i in $(seq 1 12); do
    delay=$(printf '0.%03d' $((RANDOM % 400)))
    rm -rf kp kc kr.html
    timeout -s KILL "$delay" "$N" run k.neff --input a=ones --input b=ones -q --profile-dir kp >/dev/null 2>&1
    cases=$((cases + 1))
    if [[ -e kp ]]; then
      "$N" view kp >v.txt 2>err.txt; rc=$?
      if [[ $rc -eq 0 ]]; then cmp -s v.txt ref_view.txt || fail "run --profile-dir killed at $delay: a different profile was accepted"
      elif [[ $rc -ne 1 ]]; then fail "run --profile-dir killed at $delay: view exit $rc"; fi
    fi
    timeout -s KILL "$delay" "$N" compile "$SRC/examples/rmsnorm/rmsnorm_small.json" --mode eager -o kc >/dev/null 2>&1
    cases=$((cases + 1))
    if [[ -e kc ]]; then
      "$N" run kc/launch.json --timing-only -q >s.txt 2>err.txt; rc=$?
      if [[ $rc -eq 0 ]]; then cmp -s s.txt ref_seq.txt || fail "compile -o killed at $delay: a different program ran"
      elif [[ $rc -ne 1 ]]; then fail "compile -o killed at $delay: run exit $rc"; fi
    fi
    # Over an existing program: the old one stays whole or the new one is whole.
    "$N" compile "$SRC/examples/rmsnorm/softmax_small.json" --mode eager -o kc2 >/dev/null 2>&1
    timeout -s KILL "$delay" "$N" compile "$SRC/examples/rmsnorm/rmsnorm_small.json" --mode eager -o kc2 >/dev/null 2>&1
    cases=$((cases + 1))
    "$N" run kc2/launch.json --timing-only -q >/dev/null 2>err.txt; rc=$?
    [[ $rc -eq 0 ]] || fail "compile -o over a program killed at $delay: run exit $rc ($(head -c 200 err.txt))"
    timeout -s KILL "$delay" "$N" report prof -o kr.html >/dev/null 2>&1
    cases=$((cases + 1))
    if [[ -e kr.html ]]; then cmp -s kr.html ref.html || fail "report -o killed at $delay: a partial report"; fi
  done
  echo "  12 kills each of run --profile-dir, compile -o (new and over an old program), report -o"
  ;;
*) echo "hostile.sh: unknown class $class" >&2; exit 2 ;;
esac

echo "hostile/$class: $cases cases, $failures failed"
((failures == 0))
