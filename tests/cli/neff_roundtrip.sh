#!/bin/bash
# asm -> neff info -> disasm -> asm gives a byte-identical NEFF; the payload lists and
# extracts with ordinary tools after skipping the 1024-byte header (docs/neff.md).
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the repository}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# A kernel using several engines, a constant, waits and signals (written inline so this
# test does not depend on the examples).
cat > rich.nasm <<'NASM'
kernel rich target=trn2
tensor x  bf16[128, 128] input
tensor w  fp32[128, 1] constant = 0.5
tensor y  fp32[128, 128] output
sbuf xt bf16[128, 128]
sbuf wt fp32[128, 1]
sbuf yt fp32[128, 128]
psum acc fp32[128, 128]
sem loaded = 0
sem mm = 0
sem act = 0
sem done = 0
queue q first_engine=0 engines=1
sync:
    dma_copy xt, x, queue=q  signal loaded
    dma_copy wt, w, queue=q  signal loaded
    dma_copy y, yt, queue=q  wait act>=1  signal done
    nop  wait done>=1
tensor:
    matmul acc, xt, xt  wait loaded>=2  signal mm
scalar:
    activation yt, acc, func=exp  wait mm>=1
    activation yt, yt, func=rsqrt, scale=2.0, bias=wt  signal act
NASM
kernels=(rich.nasm)
if [[ -f "$SOURCE_DIR/examples/asm/tiny_add.nasm" ]]; then
  cp "$SOURCE_DIR/examples/asm/tiny_add.nasm" tiny_add.nasm
  kernels+=(tiny_add.nasm)
fi

for src in "${kernels[@]}"; do
  name=${src%.nasm}
  "$NEURONSIM" asm "$src" -o "$name.neff"
  "$NEURONSIM" neff info "$name.neff" > "$name.info"
  grep -q "^kernel *$name\$" "$name.info" || fail "$name: info lacks the kernel name"
  grep -Eq '^hash +[0-9a-f]{64}$' "$name.info" || fail "$name: info lacks the hash"
  grep -Eq '^profile_id +[0-9]+ ' "$name.info" || fail "$name: info lacks the profile id"
  "$NEURONSIM" neff info --json "$name.neff" > "$name.json"
  /usr/bin/python3 - "$name.json" "$name" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
assert info["kernel"] == sys.argv[2], info["kernel"]
assert info["header"]["header_size"] == 1024
assert len(info["hash"]) == 64
assert info["profile_id"] < 10**15
assert info["uuid"][14] == "8", info["uuid"]  # RFC 9562 version 8
assert info["instructions"]["total"] == sum(
    v for k, v in info["instructions"].items() if k != "total")
PY
  "$NEURONSIM" disasm "$name.neff" -o "$name.dis.nasm"
  "$NEURONSIM" disasm "$name.neff" > "$name.stdout.nasm"
  cmp "$name.dis.nasm" "$name.stdout.nasm" || fail "$name: disasm -o and stdout differ"
  "$NEURONSIM" asm "$name.dis.nasm" -o "$name.again.neff"
  cmp "$name.neff" "$name.again.neff" || fail "$name: asm -> disasm -> asm changed the NEFF"
  # Deterministic: assembling twice (a second apart) gives the same bytes.
  sleep 1
  "$NEURONSIM" asm "$src" -o "$name.twice.neff"
  cmp "$name.neff" "$name.twice.neff" || fail "$name: two assemblies differ"

  # The payload is an ordinary gzip tarball after the header.
  listing=$(tail -c +1025 "$name.neff" | tar -tzvf -)
  echo "$listing" | grep -q ' def.json$' || fail "$name: no def.json in: $listing"
  echo "$listing" | grep -q ' sg00/vector.bin$' || fail "$name: no sg00/vector.bin"
  mkdir "$name.x"
  tail -c +1025 "$name.neff" | tar -xzf - -C "$name.x"
  grep -q "\"kernel\": \"$name\"" "$name.x/def.json" || fail "$name: def.json lacks the kernel"
  [[ -f "$name.x/sg00/sync.bin" ]] || fail "$name: sg00/sync.bin not extracted"
  # The header's hash is the SHA-256 of exactly that payload.
  want=$(grep -E '^hash ' "$name.info" | awk '{print $2}')
  got=$(tail -c +1025 "$name.neff" | sha256sum | awk '{print $1}')
  [[ "$want" == "$got" ]] || fail "$name: header hash $want, payload sha256 $got"
done

# The constant's bytes are stored as a file: 128 fp32 0.5 values.
[[ $(stat -c %s rich.x/sg00/const_000001.bin) == 512 ]] || fail "constant file size"
# --target overrides the kernel's own target and is recorded in def.json.
"$NEURONSIM" asm rich.nasm -o rich.trn1.neff --target trn1
grep -q '"target": "trn1"' <(tail -c +1025 rich.trn1.neff | tar -xzOf - def.json) ||
  fail "--target trn1 not recorded"
# Default output name: the input with extension .neff.
cp rich.nasm default.nasm
"$NEURONSIM" asm default.nasm
[[ -f default.neff ]] || fail "default output name"
echo "neff_roundtrip: ok"
