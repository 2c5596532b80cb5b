#!/usr/bin/env bash
# The main job: the RMSNorm profiling study of a PyTorch user on Trainium (reference
# section 8), reproduced on the simulated NeuronCore. Three variants of
#     y = x * rsqrt(mean(x^2) + eps) * w        x: [N, D] bf16, w: [D] bf16
#   eager     examples/rmsnorm/rmsnorm.json compiled --mode eager: one kernel per op,
#             an HBM round trip and a host dispatch per op (PyTorch eager)
#   compiled  the same graph compiled --mode fused: one kernel (torch.compile)
#   hand      examples/rmsnorm.cpp, the hand-fused double-buffered kernel (torch.rms_norm)
# each run as a launch sequence with the host/runtime model (docs/host-model.md), at an
# LLM shape [4096, 4096] and a small one [128, 2048], on trn1 and trn2. Prints the
# comparisons, checks the three outputs agree, and writes profiles and an HTML report
# per case under out/rmsnorm-study/. Sets up (packages, build) first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
ns=$PWD/build/neuronsim
out=out/rmsnorm-study
rm -rf "$out" && mkdir -p "$out"

# A one-launch sequence around the hand-fused NEFF, so that it pays the same host costs.
hand_launch() {  # dir N D
  cat > "$1/launch.json" <<JSON
{"format": "neuronsim-launch-sequence", "version": 1, "program": "rmsnorm_hand", "mode": "manual",
 "tensors": [{"name": "x", "dtype": "bf16", "shape": [$2, $3], "role": "input"},
             {"name": "w", "dtype": "bf16", "shape": [$3], "role": "input"},
             {"name": "y", "dtype": "bf16", "shape": [$2, $3], "role": "output"}],
 "launches": [{"name": "rms_norm", "neff": "rmsnorm.neff", "op": "rms_norm", "nodes": []}]}
JSON
}

summary=()
for target in trn1 trn2; do
  for case in "4096 4096 rmsnorm" "128 2048 rmsnorm_small"; do
    read -r n d graph <<<"$case"
    dir="$out/$target-${n}x$d"
    mkdir -p "$dir/hand"
    "$ns" compile "examples/rmsnorm/$graph.json" --mode eager --target "$target" -o "$dir/eager" >/dev/null
    "$ns" compile "examples/rmsnorm/$graph.json" --mode fused --target "$target" -o "$dir/compiled" >/dev/null
    "$ns" example rmsnorm --double-buffer --rows "$n" --cols "$d" -t "$target" -o "$dir/hand/rmsnorm.neff" >/dev/null
    hand_launch "$dir/hand" "$n" "$d"
    for v in eager compiled hand; do
      "$ns" run "$dir/$v/launch.json" --target "$target" --seed 1 \
        --input x=normal:0,1 --input w=normal:1,0.1 \
        --out-dir "$dir/$v/out" --profile-dir "$dir/profile-$v" >"$dir/$v/run.txt"
    done
    echo
    echo "=== RMSNorm [$n, $d] bf16 on $target: eager vs compiled vs hand-fused ==="
    (cd "$dir" && "$ns" compare profile-eager profile-compiled profile-hand)
    (cd "$dir" && "$ns" view profile-eager | sed -n '/^op /,/^dispatch gaps/p')
    "$ns" report "$dir/profile-eager" "$dir/profile-compiled" "$dir/profile-hand" \
      -o "$dir/report.html"
    # The three variants compute the same function: compiled and hand agree exactly
    # (fp32 on chip, one bf16 rounding); eager rounds every intermediate to bf16.
    /usr/bin/python3 - "$dir" <<'PY'
import sys, numpy as np
d = sys.argv[1]
e, c, h = (np.load(f"{d}/{v}/out/y.npy").astype(np.float64) for v in ("eager", "compiled", "hand"))
assert np.array_equal(c, h), "compiled and hand-fused outputs differ"
rel = np.max(np.abs(e - h) / np.maximum(np.abs(h), 1e-3))
assert rel < 5 * 2**-8, f"eager differs from fused by {rel:.3g} (relative)"
print(f"outputs: compiled == hand-fused bit for bit; eager within {rel:.2g} relative (bf16 intermediates)")
PY
    echo "report: $dir/report.html"
    total() { sed -n 's/^end to end: \([0-9.]*\) ns.*/\1/p' "$dir/$1/run.txt"; }
    summary+=("$target [$n, $d]|$(total eager)|$(total compiled)|$(total hand)")
  done
done

echo
echo "=== End-to-end time (host dispatch included), microseconds ==="
printf '%-18s %12s %12s %12s %16s %16s\n' case eager compiled hand-fused "eager/compiled" "compiled/hand"
for row in "${summary[@]}"; do
  IFS='|' read -r name e c h <<<"$row"
  awk -v n="$name" -v e="$e" -v c="$c" -v h="$h" \
    'BEGIN { printf "%-18s %12.1f %12.1f %12.1f %15.2fx %15.3fx\n", n, e/1000, c/1000, h/1000, e/c, c/h }'
done
