#!/usr/bin/env bash
# The main job: RMSNorm on a simulated NeuronCore, compared variant by variant.
# Sets up (packages, build) first, then runs the study into out/rmsnorm-study/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
ns=build/neuronsim
out=out/rmsnorm-study
rm -rf "$out" && mkdir -p "$out"

for target in trn1 trn2; do
  for shape in "4096 4096" "128 2048"; do
    set -- $shape
    for variant in serial double-buffered; do
      flag=""; [ "$variant" = double-buffered ] && flag=--double-buffer
      neff="$out/rmsnorm_${target}_${1}x${2}_${variant}.neff"
      "$ns" example rmsnorm --rows "$1" --cols "$2" $flag -t "$target" -o "$neff"
      echo "== hand-fused RMSNorm, $variant, [$1, $2] bf16 on $target"
      "$ns" run "$neff" --target "$target" --timing-only | sed -n '2p'
    done
  done
done
