#!/usr/bin/env bash
# The issue-11 scale check: a 10 M-instruction kernel (a semaphore chain of nops over the
# five engines, 2 M each, as bench/suite's chain kernel) is assembled, loaded and run with
# tracing on, each step a whole `neuronsim` process whose peak resident memory GNU time
# reports. Not part of CI (about a minute and a half); docs/performance.md has the figures.
#
#   bench/ten_million.sh [build-dir] [instructions-per-engine]
set -euo pipefail
build=${1:-build}
per_engine=${2:-2000000}
exe=$(realpath "$build/neuronsim")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$per_engine" > "$work/chain.nasm" <<'PY'
import sys
n = int(sys.argv[1])
engines = ["sync", "tensor", "scalar", "vector", "gpsimd"]
out = sys.stdout
out.write("kernel chain target=trn2\n\n")
for e in engines:
    out.write(f"sem s_{e} = 0\n")
for k, e in enumerate(engines):
    out.write(f"\n{e}:\n")
    lines = []
    for i in range(n):
        if k == 0:
            lines.append(f"    nop  signal s_{e}\n")
        else:
            lines.append(f"    nop  wait s_{engines[k - 1]}>={i + 1}  signal s_{e}\n")
        if len(lines) == 65536:
            out.write("".join(lines))
            lines = []
    out.write("".join(lines))
PY

measure() {  # label, command...: wall seconds and peak RSS
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null
  read -r secs kib < "$work/time"
  printf '%-28s %8.2f s %10.1f MiB peak\n' "$label" "$secs" "$(echo "$kib / 1024" | bc -l)"
}

# The assembly (~410 MiB) and the NEFF (~280 MiB) are past the default file-size limits
# (docs/limits.md), which are for hostile input; a kernel this size raises them.
limits=(--limit text_file_bytes=1073741824 --limit neff_file_bytes=1073741824)
total=$((per_engine * 5))
echo "kernel: $total instructions, $(du -m "$work/chain.nasm" | cut -f1) MiB of assembly"
measure "asm (assemble + write)" "$exe" asm "$work/chain.nasm" "${limits[@]}" -o "$work/chain.neff"
echo "neff: $(du -m "$work/chain.neff" | cut -f1) MiB"
measure "neff info (load)" "$exe" neff info "$work/chain.neff" "${limits[@]}"
measure "run (timing only)" "$exe" run "$work/chain.neff" "${limits[@]}" --timing-only
measure "run --profile-dir (trace)" "$exe" run "$work/chain.neff" "${limits[@]}" --profile-dir "$work/profile"
echo "trace: $(du -m "$work/profile" | cut -f1) MiB"
