"""In-process runs against CLI runs: N neuronsim.run calls of a small kernel in one
interpreter session, and N `neuronsim run` invocations of the same kernel with the same
inputs (.npy files, outputs written), each timed in wall-clock seconds. Speed is measured
here, never asserted by a test (tests/python/test_many_runs.py checks memory).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_runs.py [--runs N] [--build build]

The kernel is examples/asm/tiny_add.nasm (two fp32 [128, 512] inputs, one output: 5
instructions, 37.3 us of device time on trn2). Both sides do the same work per run: read
the inputs, simulate, return or write the output; the CLI side also starts a process and
reads the NEFF each time, which is the cost the module removes.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--build", default=os.path.join(SOURCE_DIR, "build"))
    parser.add_argument("--target", default="trn2")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import neuronsim

    exe = os.path.join(args.build, "neuronsim")
    work = tempfile.mkdtemp(prefix="neuronsim-bench-python-")
    neff = os.path.join(work, "tiny_add.neff")
    subprocess.run([exe, "asm", os.path.join(SOURCE_DIR, "examples", "asm", "tiny_add.nasm"),
                    "-o", neff], check=True, capture_output=True)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    b = rng.standard_normal((128, 512)).astype(np.float32)
    np.save(os.path.join(work, "a.npy"), a)
    np.save(os.path.join(work, "b.npy"), b)

    kernel = neuronsim.load_neff(neff)
    neuronsim.run(kernel, {"a": a, "b": b}, target=args.target)  # builds the core
    rss = {}
    start = time.perf_counter()
    for i in range(1, args.runs + 1):
        r = neuronsim.run(kernel, {"a": a, "b": b}, target=args.target)
        if i in (min(100, args.runs), args.runs):
            rss[i] = rss_kib()
    in_process = time.perf_counter() - start

    command = [exe, "run", neff, "-t", args.target, "-q", "--input",
               "a=" + os.path.join(work, "a.npy"), "--input", "b=" + os.path.join(work, "b.npy"),
               "--out-dir", os.path.join(work, "out")]
    start = time.perf_counter()
    for _ in range(args.runs):
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    cli = time.perf_counter() - start
    out = np.load(os.path.join(work, "out", "out.npy"))
    same = np.array_equal(out, r.outputs["out"])

    n = args.runs
    print("kernel tiny_add on %s, %d runs each (device time %.3f ns per run)"
          % (args.target, n, r.total_ns))
    print("in process (neuronsim.run): %8.3f s  = %7.3f ms per run" % (in_process,
                                                                       1e3 * in_process / n))
    print("CLI (neuronsim run):        %8.3f s  = %7.3f ms per run" % (cli, 1e3 * cli / n))
    print("in process is %.1fx faster; outputs identical: %s" % (cli / in_process, same))
    print("resident memory: %d KiB after run %d, %d KiB after run %d"
          % (rss[min(100, n)], min(100, n), rss[n], n))


if __name__ == "__main__":
    main()
