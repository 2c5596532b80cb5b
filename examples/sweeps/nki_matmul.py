"""An NKI matmul with its schedule as parameters, for the tile-size autotune
(autotune.json, docs/sweeps.md): result[M, N] = lhsT[K, M].T @ rhs[K, N], the NKI
tutorial's tiled matmul (examples/python/matmul.py) with its tile sizes taken from the
call instead of fixed at the Tensor engine's maxima, and one schedule choice:

  TILE_M   stationary free size per matmul, at most 128 (nl.tile_size.gemm_stationary_fmax)
  TILE_K   contraction rows per matmul, at most 128 partitions (nl.tile_size.pmax)
  TILE_N   moving free size per matmul, at most 512 (nl.tile_size.gemm_moving_fmax, one
           PSUM bank of fp32)
  REUSE_LHS  load a row block's lhsT tiles once and keep them for every column tile (the
           NKI matmul tutorial's "reuse the stationary" optimisation) instead of loading
           them again for each output tile
  REUSE_RHS  load every rhs tile once, before the first row block, and keep them all in
           SBUF for every row block (rhs is [K, N]: K*N*2/128 bytes per partition, 8 KiB
           at the spec's size) instead of loading them again for each row block

A tile size that breaks a limit is the simulator's error for that point (a row marked
error), as the compiler would refuse it.
"""
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from neuronsim import nki


@nki.jit
def matmul(lhsT, rhs, TILE_M=128, TILE_K=128, TILE_N=512, REUSE_LHS=False, REUSE_RHS=False):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_, "lhsT and rhs must have the same contraction dimension"
    assert M % TILE_M == 0 and N % TILE_N == 0 and K % TILE_K == 0, "tiles must divide the shapes"
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    rhs_kept = {}
    if REUSE_RHS:
        for n in nl.affine_range(N // TILE_N):
            for k in nl.affine_range(K // TILE_K):
                t = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=rhs[k * TILE_K:(k + 1) * TILE_K,
                                             n * TILE_N:(n + 1) * TILE_N])
                rhs_kept[k, n] = t
    for m in nl.affine_range(M // TILE_M):
        kept = []
        if REUSE_LHS:
            for k in nl.affine_range(K // TILE_K):
                t = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=lhsT[k * TILE_K:(k + 1) * TILE_K,
                                               m * TILE_M:(m + 1) * TILE_M])
                kept.append(t)
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                if REUSE_LHS:
                    lhsT_tile = kept[k]
                else:
                    lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K,
                                                          m * TILE_M:(m + 1) * TILE_M])
                if REUSE_RHS:
                    rhs_tile = rhs_kept[k, n]
                else:
                    rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K,
                                                        n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
            res_sb = nl.ndarray(res_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_sb, src=res_psum)
            nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N],
                          src=res_sb)
    return result
