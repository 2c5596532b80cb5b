"""The RMSNorm study (reference section 8) from Python, on one target (trn2 by default):

- eager: one NKI kernel per operation (square, mean, rsqrt(+eps), multiply, multiply),
  each reading its inputs from HBM and writing its result back, as separate launches
  (device times added; no host overhead counted);
- NKI tutorial: the tutorial's nki.language RMSNorm, one kernel;
- NKI fused: three nki.isa instructions per tile (examples/python/rmsnorm.py);
- hand-fused: the C++ example `neuronsim example rmsnorm` (serial, 2 and 4 buffers),
  the reference the NKI kernel is measured against.

    PYTHONPATH=build/python python3 examples/python/rmsnorm_study.py [--target trn2]
        [--shapes 1024x2048,4096x4096] [--neuronsim build/neuronsim]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import neuronsim  # noqa: E402
from neuronsim import nki  # noqa: E402
import neuronsim.nki.language as nl  # noqa: E402

import rmsnorm  # noqa: E402


# --- eager: one kernel per op, HBM in and out --------------------------------------------

@nki.jit
def eager_square(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.square(t))
    return out


@nki.jit
def eager_mean(x):
    out = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.mean(t, axis=1))
    return out


@nki.jit
def eager_rsqrt(ms, eps=1e-6):
    out = nl.ndarray(ms.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(ms.shape[0] // 128):
        t = nl.load(ms[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.rsqrt(t + eps))
    return out


@nki.jit
def eager_mul_rows(x, r):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        s = nl.load(r[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(t, s, dtype=x.dtype))
    return out


@nki.jit
def eager_mul_weight(x, w):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    D = x.shape[1]
    wt = nl.load(w.reshape((1, D)).broadcast_to((128, D)))
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(t, wt))
    return out


def eager(x, w, target):
    """Each op as its own launch; the intermediate results pass through HBM (bf16 for
    full-size tensors, fp32 for the per-row statistics)."""
    bf = lambda a: nki.typed(a, nl.bfloat16)  # noqa: E731
    total = 0.0
    sq = nki.simulate(eager_square, bf(x), target=target)
    total += nki.benchmark(eager_square, bf(x), target=target).latency_ns
    ms = nki.simulate(eager_mean, bf(sq), target=target)
    total += nki.benchmark(eager_mean, bf(sq), target=target).latency_ns
    r = nki.simulate(eager_rsqrt, ms, target=target)
    total += nki.benchmark(eager_rsqrt, ms, target=target).latency_ns
    y1 = nki.simulate(eager_mul_rows, bf(x), r, target=target)
    total += nki.benchmark(eager_mul_rows, bf(x), r, target=target).latency_ns
    y = nki.simulate(eager_mul_weight, bf(y1), bf(w), target=target)
    total += nki.benchmark(eager_mul_weight, bf(y1), bf(w), target=target).latency_ns
    return total, y


def hand_fused(rows, cols, target, buffers, neuronsim_bin):
    """The C++ example's device time with `buffers` buffers per stage (1: serial)."""
    with tempfile.TemporaryDirectory() as d:
        neff = os.path.join(d, "rmsnorm.neff")
        cmd = [neuronsim_bin, "example", "rmsnorm", "--rows", str(rows), "--cols", str(cols),
               "-t", target, "-o", neff, "--buffers", str(buffers)]
        subprocess.run(cmd, check=True, capture_output=True)
        return neuronsim.run(neuronsim.load_neff(neff), target=target, timing_only=True).total_ns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default="trn2")
    ap.add_argument("--shapes", default="1024x2048,4096x4096")
    root = os.path.dirname(os.path.dirname(HERE))
    ap.add_argument("--neuronsim", default=os.environ.get("NEURONSIM", os.path.join(root, "build", "neuronsim")))
    args = ap.parse_args()
    print(f"RMSNorm on {args.target}, bf16, device time in us; ratios to the hand-fused "
          "example (NKI fused against 4 buffers, reuse0 against double buffering; the "
          "allocator's next-fit placement multi-buffers both as deep as SBUF allows)")
    # The same fused kernel with reuse_delay=0: since tiles live to their last use and are
    # placed next fit, it buffers as deeply as the default (docs/python.md, "Allocation").
    fused_reuse0 = nki.jit(rmsnorm.rmsnorm_fused.fn, name="rmsnorm_fused_reuse0", reuse_delay=0)
    print(f"{'shape':>11s} {'eager':>9s} {'NKI tutorial':>13s} {'NKI fused':>10s} "
          f"{'fused reuse0':>13s} {'hand serial':>12s} {'hand db':>9s} {'hand 4 buf':>11s}"
          "   fused/hand 4  reuse0/hand db")
    for shape in args.shapes.split(","):
        rows, cols = (int(v) for v in shape.split("x"))
        x, w = rmsnorm.inputs((rows, cols))
        xb, wb = nki.typed(x, nl.bfloat16), nki.typed(w, nl.bfloat16)
        t_eager, y = eager(x, w, args.target)
        ref = rmsnorm.reference(x, w)
        assert np.allclose(y, ref, rtol=5e-2, atol=5e-2), "eager RMSNorm does not match numpy"
        t_tut = nki.benchmark(rmsnorm.rmsnorm_tutorial, xb, wb, target=args.target).latency_ns
        t_fused = nki.benchmark(rmsnorm.rmsnorm_fused, xb, wb, target=args.target).latency_ns
        t_r0 = nki.benchmark(fused_reuse0, xb, wb, target=args.target).latency_ns
        t_serial = hand_fused(rows, cols, args.target, 1, args.neuronsim)
        t_db = hand_fused(rows, cols, args.target, 2, args.neuronsim)
        t_b4 = hand_fused(rows, cols, args.target, 4, args.neuronsim)
        print(f"{shape:>11s} {t_eager / 1e3:9.1f} {t_tut / 1e3:13.1f} {t_fused / 1e3:10.1f} "
              f"{t_r0 / 1e3:13.1f} {t_serial / 1e3:12.1f} {t_db / 1e3:9.1f} {t_b4 / 1e3:11.1f}"
              f"   {t_fused / t_b4:12.2f}  {t_r0 / t_db:14.2f}", flush=True)


if __name__ == "__main__":
    main()
