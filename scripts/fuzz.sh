#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with Debian's clang in their own tree and runs each
# for a bounded time on corpora seeded from the examples (fuzz/README.md).
#   FUZZ_SECONDS  per target (default 20)        FUZZ_BUILD  the tree (default build-fuzz)
#   NEURONSIM     a built neuronsim that makes the seeds (default build/neuronsim)
#   FUZZ_TARGETS  which targets (default: all)   FUZZ_PARALLEL  targets at a time (default nproc)
# Exit status: 0 no finding; 1 a finding (the input is saved under $FUZZ_BUILD/findings/,
# to be added as a regression test), or a build failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILD:-build-fuzz}
neuronsim=${NEURONSIM:-build/neuronsim}
cxx=$(command -v clang++-14 || command -v clang++ || true)
[[ -n $cxx ]] || { echo "fuzz: clang is not installed (scripts/setup.sh)" >&2; exit 1; }
[[ -x $neuronsim ]] || { echo "fuzz: $neuronsim not built (it makes the seeds)" >&2; exit 1; }

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEURONSIM_FUZZ=ON -DNEURONSIM_BUILD_TESTS=ON \
  "${launcher[@]}" >/dev/null
cmake --build "$build" --target fuzz_all -j"${FUZZ_JOBS:-2}" 2>&1 | grep -Ev '^\[|^Consolidate' || true
[[ -x $build/fuzz/fuzz_npy ]] || { echo "fuzz: the build failed" >&2; exit 1; }
[[ ${FUZZ_BUILD_ONLY:-0} == 1 ]] && exit 0

# Seeds: every example input of each kind, made by the regular build.
seeds=$(mktemp -d "${TMPDIR:-/tmp}/neuronsim-fuzz-seeds.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds"/{neff,asm,ntff,host_json,config,graph,launch,npy,descriptor}
printf '\x01' >"$seeds/descriptor/right"  # a zero byte is each field's right value
cp examples/asm/*.nasm examples/rmsnorm/*.nasm "$seeds/asm/"
cp examples/rmsnorm/*.json "$seeds/graph/"
cp config/targets/*.json "$seeds/config/"
cp examples/configs/*.json "$seeds/config/" 2>/dev/null || true
for f in examples/asm/*.nasm; do
  "$neuronsim" asm "$f" -o "$seeds/neff/$(basename "$f" .nasm).neff" >/dev/null
done
"$neuronsim" compile examples/rmsnorm/rmsnorm_small.json --mode eager -o "$seeds/prog" >/dev/null
cp "$seeds"/prog/*.neff "$seeds/neff/"
cp "$seeds/prog/launch.json" "$seeds/launch/eager.json"
"$neuronsim" compile examples/rmsnorm/softmax_small.json -o "$seeds/prog2" >/dev/null
cp "$seeds/prog2/launch.json" "$seeds/launch/fused.json"
"$neuronsim" run "$seeds/neff/tiny_add.neff" --input a=uniform:-1,1 --input b=ones -q \
  --save-inputs "$seeds/npy" --profile-dir "$seeds/p1" >/dev/null
cp "$seeds"/p1/*.ntff "$seeds/ntff/"
"$neuronsim" run "$seeds/prog/launch.json" --timing-only -q --profile-dir "$seeds/p2" >/dev/null
cp "$seeds/p2/host.json" "$seeds/host_json/"

declare -A corpus=([fuzz_neff]=neff [fuzz_neff_payload]=neff [fuzz_asm]=asm [fuzz_ntff]=ntff
  [fuzz_host_json]=host_json [fuzz_config]=config [fuzz_graph]=graph [fuzz_launch]=launch
  [fuzz_npy]=npy [fuzz_descriptor]=descriptor)
targets=${FUZZ_TARGETS:-"fuzz_neff fuzz_neff_payload fuzz_asm fuzz_ntff fuzz_host_json fuzz_config fuzz_graph fuzz_launch fuzz_npy fuzz_descriptor"}
mkdir -p "$build/findings"
# One target per core at a time (FUZZ_PARALLEL, default nproc): each libFuzzer run is one
# process on one core, so on CI's 2 cores running them two at a time halves the wall time
# without shortening any target's FUZZ_SECONDS. Results are printed in the targets' order.
fuzz_one() {
  local t=$1 work="$build/corpus/$1" asan=detect_leaks=1
  mkdir -p "$work"
  # fuzz_descriptor runs SystemC, which switches thread stacks: the SystemC suppressions of
  # the sanitizer build (tests/sanitizer/asan.supp), and no LeakSanitizer, which cannot see
  # main's stack across the switches and reports libFuzzer's own corpus as leaked.
  [[ $t == fuzz_descriptor ]] && asan="detect_leaks=0:suppressions=$root/tests/sanitizer/asan.supp"
  # libFuzzer: -max_total_time bounds the run, -timeout one input, -rss_limit_mb memory.
  if ASAN_OPTIONS=$asan UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=0 -artifact_prefix="$build/findings/$t-" \
    "$work" "$seeds/${corpus[$t]}" >"$build/findings/$t.log" 2>&1; then
    echo "fuzz: $t: $(grep -Eo '#[0-9]+' "$build/findings/$t.log" | tail -1 | tr -d '#') runs, no finding" \
      >"$build/findings/$t.result"
  else
    {
      echo "fuzz: $t: FINDING (see $build/findings/$t.log)"
      grep -E 'ERROR|SUMMARY|fuzz:|Test unit written' "$build/findings/$t.log" | head -5
    } >"$build/findings/$t.result"
    return 1
  fi
}
parallel=${FUZZ_PARALLEL:-$(nproc)}
running=0
for t in $targets; do
  rm -f "$build/findings/$t.result"
  if ((running >= parallel)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true
# The status comes from each target's result file, not from wait: wait -n has reaped some.
status=0
for t in $targets; do
  if [[ -f $build/findings/$t.result ]]; then
    cat "$build/findings/$t.result"
    if grep -q FINDING "$build/findings/$t.result"; then status=1; fi
  else
    echo "fuzz: $t: no result (see $build/findings/$t.log)"
    status=1
  fi
done
exit $status
