#!/bin/bash
# examples/rmsnorm/rmsnorm_hand_128x2048.nasm is the assembly of the builder-made
# hand-fused RMSNorm (examples/rmsnorm.cpp): it must stay identical to what
# `neuronsim example` prints, and it must assemble and run.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file="$SOURCE_DIR/examples/rmsnorm/rmsnorm_hand_128x2048.nasm"

"$NEURONSIM" example rmsnorm --double-buffer --rows 128 --cols 2048 -t trn2 --asm "$work/gen.nasm"
grep -v '^#' "$file" > "$work/checked_in.nasm"
if ! diff -u "$work/checked_in.nasm" "$work/gen.nasm"; then
  echo "FAIL: $file differs from the builder's kernel; regenerate it (command in its header)" >&2
  exit 1
fi
"$NEURONSIM" asm "$file" -o "$work/hand.neff"
"$NEURONSIM" example rmsnorm --double-buffer --rows 128 --cols 2048 -t trn2 -o "$work/built.neff"
cmp "$work/hand.neff" "$work/built.neff" || { echo "FAIL: assembled NEFF differs" >&2; exit 1; }
"$NEURONSIM" run "$work/hand.neff" --input x=normal:0,1 --input w=ones --out-dir "$work/out" >/dev/null
[ -f "$work/out/y.npy" ] || { echo "FAIL: no output" >&2; exit 1; }
echo "ok: checked-in assembly matches the builder, assembles to the same NEFF and runs"
