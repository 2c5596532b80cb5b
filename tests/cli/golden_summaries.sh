#!/bin/bash
# Golden whole-run summaries of the examples: every builder example, assembly example and
# example graph (eager and fused), timing only, on every target. The summary (total time,
# per-engine busy / wait / idle, DMA and memory totals) is compared with
# tests/golden/<case>.txt, so any change of timing shows up here as a diff to review.
# After an intended change: UPDATE_GOLDEN=1 bash tests/cli/golden_summaries.sh
# (with NEURONSIM and SOURCE_DIR set), then read the diff before committing it.
set -euo pipefail
: "${NEURONSIM:?set NEURONSIM to the neuronsim program}"
: "${SOURCE_DIR:?set SOURCE_DIR to the source tree}"
golden="$SOURCE_DIR/tests/golden"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

check() {  # name, then the command whose output is the summary
  local name=$1
  shift
  "$@" >"$work/$name.txt" 2>&1 || { echo "FAIL: $name: command failed:" >&2; cat "$work/$name.txt" >&2; failed=1; return; }
  if [[ "${UPDATE_GOLDEN:-}" == 1 ]]; then
    cp "$work/$name.txt" "$golden/$name.txt"
  elif ! diff -u "$golden/$name.txt" "$work/$name.txt"; then
    echo "FAIL: $name differs from tests/golden/$name.txt" >&2
    failed=1
  fi
}

for target in trn1 trn2 trn3; do
  for example in matmul softmax rmsnorm; do
    "$NEURONSIM" example "$example" -t "$target" -o "$work/$example-$target.neff" >/dev/null
    check "example-$example-$target" "$NEURONSIM" run "$work/$example-$target.neff" --timing-only
  done
  for nasm in "$SOURCE_DIR"/examples/asm/*.nasm; do
    name=$(basename "$nasm" .nasm)
    "$NEURONSIM" asm "$nasm" -o "$work/$name.neff" >/dev/null
    check "asm-$name-$target" "$NEURONSIM" run "$work/$name.neff" --timing-only --target "$target"
  done
  for graph in rmsnorm rmsnorm_small softmax_small softmax_naive_small mlp_small rmsnorm_3d \
      softmax_vocab; do
    for mode in eager fused; do
      "$NEURONSIM" compile "$SOURCE_DIR/examples/rmsnorm/$graph.json" --mode "$mode" \
        --target "$target" -o "$work/$graph-$mode-$target" >/dev/null
      check "graph-$graph-$mode-$target" "$NEURONSIM" run \
        "$work/$graph-$mode-$target/launch.json" --timing-only --target "$target"
    done
  done
done
exit $failed
