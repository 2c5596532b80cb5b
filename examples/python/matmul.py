"""NKI tutorial "matrix multiplication" in neuronsim.nki: the basic 64x128x512 kernel
and the tiled one (result[M,N] = lhsT[K,M].T @ rhs[K,N]), in NKI's current nki.isa
style (dst first), with its bodies unchanged but for the imports."""
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def matmul_basic(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_ and K == 128 and M == 64 and N == 512
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    lhs_tile = nl.ndarray(lhsT.shape, dtype=lhsT.dtype, buffer=nl.sbuf)
    rhs_tile = nl.ndarray(rhs.shape, dtype=rhs.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=lhs_tile, src=lhsT)
    nisa.dma_copy(dst=rhs_tile, src=rhs)
    result_psum = nl.ndarray(result.shape, dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(result_psum, lhs_tile, rhs_tile)
    result_sbuf = nl.ndarray(result_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=result_sbuf, src=result_psum)
    nisa.dma_copy(dst=result, src=result_sbuf)
    return result


@nki.jit
def matmul_tiled(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_, "lhsT and rhs must have the same contraction dimension"
    TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
    TILE_K = nl.tile_size.pmax  # 128
    TILE_N = nl.tile_size.gemm_moving_fmax  # 512
    assert M % TILE_M == 0 and N % TILE_N == 0 and K % TILE_K == 0
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhsT_tile,
                              src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=rhs_tile,
                              src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
            res_sb = nl.ndarray(res_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_sb, src=res_psum)
            nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N],
                          src=res_sb)
    return result


def inputs(K=512, M=256, N=1024, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((K, M), dtype=np.float32), rng.standard_normal((K, N), dtype=np.float32)


def check(target="trn2"):
    lhsT, rhs = inputs()
    np.testing.assert_allclose(nki.simulate(matmul_tiled, lhsT, rhs, target=target), lhsT.T @ rhs,
                               rtol=1e-3, atol=1e-3)
    a, b = lhsT[:128, :64], rhs[:128, :512]
    np.testing.assert_allclose(nki.simulate(matmul_basic, a, b, target=target), a.T @ b,
                               rtol=1e-3, atol=1e-3)
    # bf16 inputs (the Tensor engine's fast path), fp32 accumulation in PSUM.
    lb, rb = nki.typed(lhsT, nl.bfloat16), nki.typed(rhs, nl.bfloat16)
    np.testing.assert_allclose(nki.simulate(matmul_tiled, lb, rb, target=target), lhsT.T @ rhs,
                               rtol=5e-2, atol=0.5)
    return nki.benchmark(matmul_tiled, lb, rb, target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"matmul (basic and tiled) match numpy; tiled bf16: {r}")
