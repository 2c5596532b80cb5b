#!/usr/bin/env bash
# The Llama decoder layer at full size (docs/compiler.md, "A transformer decoder layer"):
# compiled eager and fused, run timing only on trn1 and trn2 with profiles, and one HTML
# report per target comparing eager (the baseline) with fused.
#
#   examples/transformer/run.sh [out_dir] [graph]
#
# NEURONSIM names the binary (default build/neuronsim). Timing only: the numbers do not
# depend on the values (tests/py/compiler_transformer.py checks the values at a reduced
# size; bench/decoder_layer.py --numerics times a full-numerics run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
neuronsim=${NEURONSIM:-build/neuronsim}
out=${1:-transformer_out}
graph=${2:-$here/decoder_layer.json}
mkdir -p "$out"
for target in trn1 trn2; do
  for mode in eager fused; do
    "$neuronsim" compile "$graph" --mode "$mode" -t "$target" -o "$out/$mode-$target" >/dev/null
    echo "== $mode on $target"
    "$neuronsim" run "$out/$mode-$target/launch.json" --timing-only -q \
      --profile-dir "$out/profile-$mode-$target" | grep "end to end"
  done
  "$neuronsim" report "$out/profile-eager-$target" "$out/profile-fused-$target" \
    -o "$out/report-$target.html"
  echo "report: $out/report-$target.html"
done
