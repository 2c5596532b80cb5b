"""Tracing speed of neuronsim.nki: how long the Python front end takes against the
simulation of what it made. Speed is measured here, never asserted by a test
(tests/python/nki_trace_speed.py runs this with --smoke to check it runs).

    PYTHONPATH=build/python /usr/bin/python3 bench/nki_trace.py [--target trn2] [--smoke]

The kernel is the NKI matrix multiplication tutorial's tiled kernel as written in
examples/python/matmul.py (`matmul_tiled`: two DMAs and one matmul per (m, n, k) tile,
a copy and a store per (m, n)), bf16. For K x M x N growing by doubling it reports the
instruction count, the front end's seconds (tracing the Python plus lowering to
assembly), instructions per second (constant when tracing is linear), the seconds of
TracedKernel.kernel (the Kernel the lowering built alongside the text, checked and
validated; assembling the text before 2026-12-04) and the simulation's (neuronsim.run, timing_only=True), and the front end's
time over the simulation's. Then the tutorial's published shape end to end: the tutorial
benchmarks [4096, 8192] @ [8192, 8192] (M=4096, K=8192, N=8192; NKI tutorial "Matrix
multiplication", "Testing Correctness and Benchmarking"). Every time is also given as a
ratio to a hello-world Python process (`python3 -c pass`) timed in the same run, so runs
on different machines compare. Each time is also given in CPU seconds of this process
(time.process_time): on a machine shared with other jobs the wall times stretch with the
load, the CPU times much less.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "python"))


def hello_world_seconds(runs=5):
    """The fastest of `runs` starts of a Python process that does nothing."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def measure(K, M, N, target):
    import neuronsim
    from neuronsim import nki
    import neuronsim.nki.language as nl
    import matmul

    lhsT = np.zeros((K, M), np.float32)
    rhs = np.zeros((K, N), np.float32)
    args = (nki.typed(lhsT, nl.bfloat16), nki.typed(rhs, nl.bfloat16))
    kernel = nki.jit(matmul.matmul_tiled.fn)  # a fresh kernel: no cached trace
    c0, t0 = time.process_time(), time.perf_counter()
    traced = kernel.trace(*args, target=target)
    c1, t1 = time.process_time(), time.perf_counter()
    assembled = traced.kernel
    t2 = time.perf_counter()
    c2 = time.process_time()
    result = neuronsim.run(assembled, {"lhsT": lhsT, "rhs": rhs}, target=target,
                           timing_only=True)
    c3, t3 = time.process_time(), time.perf_counter()
    instructions = sum(1 for line in traced.asm().splitlines()
                       if line.startswith("    ") and not line.lstrip().startswith("#"))
    return {"instructions": instructions, "trace": t1 - t0, "assemble": t2 - t1,
            "simulate": t3 - t2, "device_us": result.total_ns / 1e3,
            "trace_cpu": c1 - c0, "simulate_cpu": c3 - c2}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="trn2")
    parser.add_argument("--smoke", action="store_true",
                        help="small sizes only, no published shape (does it run end to end)")
    args = parser.parse_args()

    hello = hello_world_seconds()
    print(f"hello-world python process: {hello * 1e3:.1f} ms (the baseline)")
    sizes = [(512, 256, 1024), (1024, 512, 1024)] if args.smoke else [
        (1024, 1024, 2048), (2048, 1024, 2048), (2048, 2048, 2048), (4096, 2048, 2048),
        (4096, 2048, 4096)]
    print(f"\nmatmul_tiled bf16 on {args.target}: front end = trace + lowering to assembly")
    head = (f"{'K x M x N':>18s} {'instrs':>8s} {'front s':>8s} {'instr/s':>9s} "
            f"{'asm s':>7s} {'sim s':>7s} {'front/sim':>9s} {'front/hello':>11s} "
            f"{'front cpu s':>11s} {'sim cpu s':>9s} {'cpu front/sim':>13s}")
    print(head)
    for K, M, N in sizes:
        r = measure(K, M, N, args.target)
        print(f"{f'{K}x{M}x{N}':>18s} {r['instructions']:8d} {r['trace']:8.2f} "
              f"{r['instructions'] / r['trace']:9.0f} {r['assemble']:7.2f} {r['simulate']:7.2f} "
              f"{r['trace'] / r['simulate']:9.1f} {r['trace'] / hello:11.1f} "
              f"{r['trace_cpu']:11.2f} {r['simulate_cpu']:9.2f} "
              f"{r['trace_cpu'] / r['simulate_cpu']:13.1f}", flush=True)
    if args.smoke:
        return
    K, M, N = 8192, 4096, 8192
    r = measure(K, M, N, args.target)
    print(f"\npublished shape [4096,8192] @ [8192,8192] (K={K}, M={M}, N={N}), {args.target}: "
          f"{r['instructions']} instructions; trace {r['trace']:.2f} s "
          f"({r['instructions'] / r['trace']:.0f} instr/s, {r['trace'] / hello:.0f}x hello-world), "
          f"assemble {r['assemble']:.2f} s, simulate {r['simulate']:.2f} s "
          f"(front end / simulation {r['trace'] / r['simulate']:.1f}x); CPU seconds: "
          f"front end {r['trace_cpu']:.2f}, simulate {r['simulate_cpu']:.2f} "
          f"({r['trace_cpu'] / r['simulate_cpu']:.1f}x); "
          f"device time {r['device_us'] / 1e3:.2f} ms")


if __name__ == "__main__":
    main()
