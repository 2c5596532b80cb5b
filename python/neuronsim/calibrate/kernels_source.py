"""The text of the suite's kernels.py and driver.py, as `neuronsim calibrate kernels` writes
them (docs/calibration.md, "The cases").

The kernels are written against NKI's documented API (nki.language / nki.isa, the
output-first `dst=` convention of the current nki.isa pages, `nki.benchmark(warmup=,
iters=)` in the driver), so the same files run on a Trainium under neuronxcc/nki and here
under `python3 -m neuronsim.nki`. Every kernel takes one float32 HBM tensor `x`, whose
shape is the case's `shape` column (compute kernels read only its shape, so the driver
passes zeros), and returns one HBM tensor. Loops are `nl.static_range`: unrolled, the same
instructions on both.
"""

KERNELS = '''\
"""neuronsim calibration microbenchmarks (docs/calibration.md in neuronsim).

Each kernel isolates one family of cost parameters. Run them on a Trainium with
driver.py (nki.benchmark), or on neuronsim with `python3 -m neuronsim.nki driver.py`.
"""
try:  # current NKI
    import nki
    import nki.isa as nisa
    import nki.language as nl
except ImportError:  # neuronxcc's NKI
    import neuronxcc.nki as nki
    import neuronxcc.nki.isa as nisa
    import neuronxcc.nki.language as nl

OPS = 32  # compute instructions per compute kernel


# ---- DMA -------------------------------------------------------------------------------

@nki.jit
def dma_lone(x):
    """One small load and its store: the fixed cost of a transfer."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t)
    return out


@nki.jit
def dma_burst(x):
    """x is [1, 16 K]: K back-to-back 64-byte loads, then one store: descriptor
    generation."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.static_range(x.shape[1] // 16):
        t[:, 16 * i:16 * i + 16] = nl.load(x[:, 16 * i:16 * i + 16])
    nl.store(out, value=t)
    return out


@nki.jit
def dma_copy_large(x):
    """A large load and its store: on 8 partitions one DMA engine's bandwidth, on 128 all
    engines' (and the core's HBM share)."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t)
    return out


@nki.jit
def dma_row_load(x):
    """x is [P, B, 2R]: loads x[:, :, 0:R], rows of R elements, then stores the tile
    contiguously: the read side's small-row efficiency."""
    p, b, r2 = x.shape
    out = nl.ndarray((p, b, r2 // 2), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[:, :, 0:r2 // 2])
    nl.store(out, value=t)
    return out


@nki.jit
def dma_row_store(x):
    """x is [P, B, R]: loads it contiguously, stores it into out[:, :, 0:R] of a [P, B, 2R]
    tensor, rows of R elements: the write side's small-row efficiency."""
    p, b, r = x.shape
    out = nl.ndarray((p, b, 2 * r), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out[:, :, 0:r], value=t)
    return out


# ---- Vector, Scalar, GpSimd --------------------------------------------------------------

def _vector_tensor_scalar(x, dtype):
    """OPS independent tensor_scalar ops on the Vector engine over a [P, N] tile."""
    out = nl.ndarray((x.shape[0], 1), dtype=dtype, buffer=nl.shared_hbm)
    src = nl.zeros(x.shape, dtype=dtype, buffer=nl.sbuf)
    dst = nl.ndarray(x.shape, dtype=dtype, buffer=nl.sbuf)
    for _ in nl.static_range(OPS):
        nisa.tensor_scalar(dst=dst, data=src, op0=nl.multiply, operand0=2.0,
                           engine=nisa.vector_engine)
    nl.store(out, value=dst[:, 0:1])
    return out


@nki.jit
def vector_tensor_scalar_float32(x):
    return _vector_tensor_scalar(x, nl.float32)


@nki.jit
def vector_tensor_scalar_bfloat16(x):
    return _vector_tensor_scalar(x, nl.bfloat16)


@nki.jit
def vector_dependent_float32(x):
    """OPS tensor_scalar ops on the Vector engine, each reading the previous one's result:
    the dependent-instruction overhead of tiny instructions."""
    out = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.zeros(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    for _ in nl.static_range(OPS // 2):
        nisa.tensor_scalar(dst=b, data=a, op0=nl.add, operand0=1.0, engine=nisa.vector_engine)
        nisa.tensor_scalar(dst=a, data=b, op0=nl.add, operand0=1.0, engine=nisa.vector_engine)
    nl.store(out, value=a[:, 0:1])
    return out


def _scalar_activation(x, dtype):
    """OPS independent activations (exp) on the Scalar engine over a [P, N] tile."""
    out = nl.ndarray((x.shape[0], 1), dtype=dtype, buffer=nl.shared_hbm)
    src = nl.zeros(x.shape, dtype=dtype, buffer=nl.sbuf)
    dst = nl.ndarray(x.shape, dtype=dtype, buffer=nl.sbuf)
    for _ in nl.static_range(OPS):
        nisa.activation(dst=dst, op=nl.exp, data=src)
    nl.store(out, value=dst[:, 0:1])
    return out


@nki.jit
def scalar_activation_float32(x):
    return _scalar_activation(x, nl.float32)


@nki.jit
def scalar_activation_bfloat16(x):
    return _scalar_activation(x, nl.bfloat16)


@nki.jit
def gpsimd_iota_int32(x):
    """OPS iota instructions on the GpSimd engine filling a [P, N] tile."""
    out = nl.ndarray((x.shape[0], 1), dtype=nl.int32, buffer=nl.shared_hbm)
    dst = nl.ndarray(x.shape, dtype=nl.int32, buffer=nl.sbuf)
    for _ in nl.static_range(OPS):
        nisa.iota(dst=dst, pattern=[[1, x.shape[1]]], offset=0, channel_multiplier=0)
    nl.store(out, value=dst[:, 0:1])
    return out


# ---- Tensor engine ---------------------------------------------------------------------

def _matmul(x, dtype, stationaries, ops=OPS):
    """`ops` matmuls [128, 128].T @ [128, N] accumulated into one PSUM tile; the stationary
    alternates between `stationaries` tiles (1: loaded once)."""
    k, n = x.shape
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    st = [nl.zeros((k, 128), dtype=dtype, buffer=nl.sbuf) for _ in range(stationaries)]
    mv = nl.zeros((k, n), dtype=dtype, buffer=nl.sbuf)
    acc = nl.zeros((128, n), dtype=nl.float32, buffer=nl.psum)
    for i in nl.static_range(ops):
        nisa.nc_matmul(dst=acc, stationary=st[i % stationaries], moving=mv)
    res = nl.ndarray((128, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nl.store(out, value=res[:, 0:1])
    return out


@nki.jit
def matmul_bfloat16(x):
    return _matmul(x, nl.bfloat16, 1)


@nki.jit
def matmul_float32(x):
    return _matmul(x, nl.float32, 1)


@nki.jit
def matmul_stationary_bfloat16(x):
    return _matmul(x, nl.bfloat16, 2)


@nki.jit
def matmul_short_bfloat16(x):
    return _matmul(x, nl.bfloat16, 1, OPS // 4)


@nki.jit
def matmul_long_bfloat16(x):
    return _matmul(x, nl.bfloat16, 1, 4 * OPS)
'''

DRIVER = '''\
"""Benchmarks every case of cases.csv with nki.benchmark and writes the measurements CSV
that `neuronsim calibrate fit` reads (docs/calibration.md in neuronsim).

On a Trainium:  python3 driver.py [-o measurements.csv] [--warmup 10] [--iters 100]
On neuronsim:   python3 -m neuronsim.nki driver.py ...
"""
import argparse
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402  (the file beside this one)

try:
    import nki
except ImportError:
    import neuronxcc.nki as nki


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="measurements.csv")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=100)
    a = ap.parse_args()
    with open(os.path.join(here, "cases.csv"), newline="") as f:
        cases = list(csv.DictReader(f))
    rows = []
    for c in cases:
        x = np.zeros([int(d) for d in c["shape"].split("x")], dtype=np.float32)
        bench = nki.benchmark(warmup=a.warmup, iters=a.iters)(getattr(kernels, c["function"]))
        bench(x)
        lat = bench.benchmark_result.nc_latency  # percentiles in microseconds
        rows.append({"kernel": c["kernel"], "shape": c["shape"], "dtype": c["dtype"],
                     "target": c["target"],
                     "measured_ns": "%.1f" % (lat.get_latency_percentile(50) * 1000.0),
                     "p99_ns": "%.1f" % (lat.get_latency_percentile(99) * 1000.0),
                     "warmup": a.warmup, "iters": a.iters})
        print("%-22s %-14s %-9s %12s ns" % (c["kernel"], c["shape"], c["dtype"],
                                             rows[-1]["measured_ns"]), flush=True)
    tmp = a.output + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, a.output)
    print("wrote %s (%d cases)" % (a.output, len(rows)))


if __name__ == "__main__":
    main()
'''
