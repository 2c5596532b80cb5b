"""The GEMM table of docs/compiler.md ("Matmul", measurements): for each target and size,
`neuronsim example matmul --double-buffer` (bf16) run timing only and with full numerics.

    NEURONSIM=build/neuronsim /usr/bin/python3 bench/gemm_table.py [--sizes 512,2048,4096]
        [--targets trn1,trn2] [--dtype bf16] [--no-numerics]

Columns: simulated device time; Tensor engine busy time / device time; ideal PE time /
device time, the ideal being M*N*K / (128 * 128) Tensor cycles for bf16 (128 x 128 MACs a
cycle: a [128, 512] moving tensor against a [128, 128] stationary takes 512 cycles,
docs/cost-model.md), half that for fp8 where the target doubles it, four times for fp32;
HBM bytes read + written against the minimum (A and B read once, C written once); the
simulator's wall time, timing only and with full numerics (inputs generated).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

NEURONSIM = os.environ.get("NEURONSIM", "build/neuronsim")
SIZES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1}


def timed(cmd):
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def stats_of(path):
    with open(path) as f:
        return {k: v["value"] for k, v in json.load(f)["stats"].items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="512,2048,4096")
    ap.add_argument("--targets", default="trn1,trn2")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--no-numerics", action="store_true")
    args = ap.parse_args()
    elem = SIZES[args.dtype]
    print("| target | M=N=K | device time | Tensor busy | ideal / device | HBM bytes "
          "(x minimum) | wall, timing only | wall, numerics |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for target in args.targets.split(","):
            for size in map(int, args.sizes.split(",")):
                neff = os.path.join(work, f"{target}_{size}.neff")
                subprocess.run([NEURONSIM, "example", "matmul", "--double-buffer", "--rows",
                                str(size), "--cols", str(size), "--inner", str(size),
                                "--dtype", args.dtype, "-t", target, "-o", neff], check=True)
                js = os.path.join(work, "stats.json")
                wall_t = timed([NEURONSIM, "run", neff, "--timing-only", "--stats-json", js])
                s = stats_of(js)
                wall_n = None
                if not args.no_numerics:
                    wall_n = timed([NEURONSIM, "run", neff, "--seed", "1", "--input",
                                    "a=normal:0,1", "--input", "b=normal:0,1"])
                device = s["total_time_ns"]
                ghz = s["tensor_clock_cycles"] / device
                cycles = size**3 / (128 * 128)
                if args.dtype == "fp32":
                    cycles *= 4
                elif args.dtype.startswith("fp8") and target != "trn1":
                    cycles /= 2  # trn2/trn3 double-row fp8 (reference section 1)
                busy = s["tensor_engine_busy_ns"] / device
                hbm = s["hbm_read_bytes"] + s["hbm_write_bytes"]
                out = 4 if args.dtype == "fp32" else 2
                minimum = 2 * size * size * elem + size * size * out
                numerics = f"{wall_n:.2f} s" if wall_n is not None else "-"
                print(f"| {target} | {size} | {device / 1000:.1f} us | {100 * busy:.1f}% | "
                      f"{100 * cycles / ghz / device:.1f}% | {hbm / 2**20:.1f} MiB "
                      f"({hbm / minimum:.2f}x) | {wall_t:.2f} s | {numerics} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
