"""NKI tutorial "RMSNorm" in neuronsim.nki, twice:

- `rmsnorm_tutorial`: the tutorial's nki.language version (square, sum, scale, rsqrt,
  multiply, multiply: one instruction each);
- `rmsnorm_fused`: the same computation in three nki.isa instructions per tile, as the
  hand-fused example (examples/rmsnorm.cpp) does it: activation square with scale
  1/sqrt(D) and add-reduce = mean(x^2); activation rsqrt with bias eps;
  scalar_tensor_tensor (x * rstd) * w.

y = x * rsqrt(mean(x^2, axis=1) + eps) * w. The tutorial broadcasts its [1, D] weight
tile to 128 partitions in every iteration (a Tensor-engine matmul with ones, as written);
the fused kernel has the DMA that loads w broadcast it (partition stride 0 in HBM).
The tutorial's one change: eps inside the rsqrt, as the hand-fused example has it.
"""
import math
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def rmsnorm_tutorial(a_tensor, g_tensor, eps=1e-6):
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    assert a_tensor.shape[1] == g_tensor.shape[0]
    ix, iw, iy = nl.mgrid[0:128, 0:1, 0:a_tensor.shape[1]]
    num_rows = a_tensor.shape[0]
    g_tile = nl.load(g_tensor.reshape((1, g_tensor.shape[0]))[iw, iy])
    for i in nl.affine_range(math.ceil(a_tensor.shape[0] / 128)):
        a_tile = nl.load(a_tensor[i * 128 + ix, iy], mask=(i * 128 + ix < num_rows))
        in_square = nl.square(a_tile)
        square_sum = nl.sum(in_square, axis=[1], dtype=nl.float32)
        mean = square_sum / a_tensor.shape[1]
        rms_reciprocal = nl.rsqrt(mean + eps)
        out_tile = nl.multiply(a_tile, rms_reciprocal)
        g_bcast = g_tile.broadcast_to((128, g_tensor.shape[0]))
        out_tile[...] = nl.multiply(out_tile, g_bcast, mask=(i * 128 + ix < num_rows))
        nl.store(out_tensor[i * 128 + ix, iy], value=out_tile, mask=(i * 128 + ix < num_rows))
    return out_tensor


@nki.jit
def rmsnorm_fused(x, w, eps=1e-6):
    N, D = x.shape
    y = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    w_tile = nl.load(w.reshape((1, D)).broadcast_to((128, D)))
    for i in nl.affine_range(N // 128):
        x_tile = nl.load(x[i * 128:(i + 1) * 128, :])
        squares = nl.ndarray((128, D), dtype=x.dtype, buffer=nl.sbuf)  # only their sum is used
        mean_sq = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=squares, op=nl.square, data=x_tile, scale=1 / math.sqrt(D),
                        reduce_op=nl.add, reduce_res=mean_sq)
        rstd = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=mean_sq, bias=eps)
        y_tile = nl.ndarray((128, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=y_tile, data=x_tile, op0=nl.multiply, operand0=rstd,
                                  op1=nl.multiply, operand1=w_tile)
        nl.store(y[i * 128:(i + 1) * 128, :], value=y_tile)
    return y


def reference(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


def inputs(shape=(256, 512), seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape, dtype=np.float32), rng.random(shape[1], dtype=np.float32)


def check(target="trn2"):
    x, w = inputs()
    for kernel in (rmsnorm_tutorial, rmsnorm_fused):
        np.testing.assert_allclose(nki.simulate(kernel, x, w, target=target), reference(x, w),
                                   rtol=1e-3, atol=1e-3)
    # bf16 in and out, as the hand-fused example: bf16's 8-bit mantissa bounds the error.
    xb, wb = nki.typed(x, nl.bfloat16), nki.typed(w, nl.bfloat16)
    np.testing.assert_allclose(nki.simulate(rmsnorm_fused, xb, wb, target=target), reference(x, w),
                               rtol=3e-2, atol=3e-2)
    return nki.benchmark(rmsnorm_fused, xb, wb, target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"rmsnorm (tutorial and fused) match numpy; fused bf16: {r}")
