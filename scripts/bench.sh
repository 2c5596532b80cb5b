#!/usr/bin/env bash
# Runs the benchmark suite (bench/suite) of a Release build and writes its results as
# JSON (Google Benchmark's format) and as a Markdown table, every simulation speed beside
# its ratio to the bare SystemC ceiling measured in the same run (docs/performance.md).
#
#   scripts/bench.sh [BUILD_DIR (build-rel)] [OUT_DIR (BUILD_DIR/bench-results)] [bench_suite flags]
#
# Configure the build once: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-rel}
out=${2:-$build/bench-results}
shift $(($# < 2 ? $# : 2))
cmake --build "$build" --target bench_suite neuronsim -j2 >/dev/null
mkdir -p "$out"
"$build/bench/bench_suite" --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@" \
  >"$out/bench.txt"
/usr/bin/python3 - "$out/bench.json" >"$out/bench.md" <<'PY'
import json, re, sys
data = json.load(open(sys.argv[1]))
ctx = data["context"]
ceiling = float(ctx.get("systemc_ceiling_instr_per_s", "nan"))
print(f"SystemC ceiling: {ceiling / 1e6:.2f} M instr/s (five threads, semaphore-chained, timed waits)\n")
print("| benchmark | wall ms | instr/s | vs ceiling | other |")
print("|---|---:|---:|---:|---|")
skip = {"instr/s", "vs_ceiling"}
def fmt(v):
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.4g}"
for b in data["benchmarks"]:
    if b.get("error_occurred"):
        print(f"| {b['name']} | error: {b.get('error_message', '')} | | | |")
        continue
    name = b["name"].replace("/real_time", "").replace("/manual_time", "")
    name = re.sub(r"/iterations:[0-9]+/repeats:1", "", name)
    ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    ips = f"{b['instr/s'] / 1e6:.3f} M" if "instr/s" in b else ""
    ratio = f"{b['vs_ceiling']:.3f}" if "vs_ceiling" in b else ""
    known = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
             "iterations", "real_time", "cpu_time", "time_unit", "family_index",
             "per_family_instance_index", "aggregate_name", "aggregate_unit"}
    other = ", ".join(f"{k} {fmt(v)}" for k, v in b.items()
                      if k not in known and k not in skip and isinstance(v, (int, float)))
    print(f"| {name} | {ms:.3f} | {ips} | {ratio} | {other} |")
PY
cat "$out/bench.md"
