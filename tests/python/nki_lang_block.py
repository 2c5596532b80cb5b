"""Block dimensions (NKI pages nki.language.par_dim and nki.language.ndarray): a
(B, nl.par_dim(P), F) tile is B tiles of P partitions, B * F elements per partition,
indexed one block at a time; kernels written in the documented NKI API, against numpy."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
import neuronsim.nki.isa as nisa


@nki.jit
def block_scale(a):
    # 8 blocks of [128, 4096] fp32: 128 KiB per partition, all live at once.
    n_blocks, free = a.shape[0] // 128, a.shape[1]
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    tiles = nl.ndarray((n_blocks, nl.par_dim(128), free), dtype=a.dtype, buffer=nl.sbuf)
    for b in nl.affine_range(n_blocks):
        tiles[b] = nl.load(a[b * 128:(b + 1) * 128, :])  # the DMA writes the block itself
    for b in nl.affine_range(n_blocks):
        nl.store(out[b * 128:(b + 1) * 128, :], value=nl.multiply(tiles[b], float(b + 1)))
    return out


@nki.jit
def block_grid_index(a):
    # Blocks indexed with an index grid: t[b, i_p, i_f]; nl.zeros with a block dim.
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    acc = nl.zeros((2, nl.par_dim(128), a.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    for b in nl.affine_range(2):
        acc[b, i_p, i_f] = nl.add(acc[b, i_p, i_f], nl.load(a[b * 128 + i_p, i_f]))
        nl.store(out[b * 128 + i_p, i_f], value=acc[b, i_p, i_f])
    return out


@nki.jit
def psum_blocks(lhsT, rhs):
    # Four PSUM blocks of one bank each ([128, 512] fp32), one matmul group per block.
    out = nl.ndarray((128, 4 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.ndarray((4, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    lt = nl.load(lhsT)
    for n in nl.affine_range(4):
        rt = nl.load(rhs[:, n * 512:(n + 1) * 512])
        res[n] = nisa.nc_matmul(lt, rt)
    for n in nl.affine_range(4):
        nl.store(out[:, n * 512:(n + 1) * 512], value=nl.copy(res[n]))
    return out


@nki.jit
def block_accumulate(x, w):
    # The Mamba tutorial's pattern: an accumulator with a block per channel tile,
    # updated by `acc[t, 0:P, 0:L] += ...` for every state s.
    S, C, L = x.shape
    P = nl.tile_size.pmax
    n_tiles = C // P
    out = nl.ndarray((C, L), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((n_tiles, nl.par_dim(P), L), dtype=x.dtype)
    for s in nl.affine_range(S):
        for t in nl.affine_range(n_tiles):
            xs = nl.load(x[s, t * P:(t + 1) * P, 0:L])
            ws = nl.load(w[t * P:(t + 1) * P, s])  # [P, 1]: a per-partition scale
            acc[t, 0:P, 0:L] += nl.multiply(xs, ws)
    for t in nl.affine_range(n_tiles):
        nl.store(out[t * P:(t + 1) * P, 0:L], acc[t, 0:P, 0:L])
    return out


@nki.jit
def matmul_blocked(lhsT, rhs, TILES_M=2, TILES_N=2, TILES_K=4):
    # The blocked-matmul pattern of NKI's matmul tutorial (neuronxcc era): operand blocks
    # with a block dimension, an index grid per tile, `res[...] += nl.matmul(...)` into a
    # zeroed PSUM tile, and an SBUF accumulator with three block dimensions.
    K, M = lhsT.shape
    N = rhs.shape[1]
    TM, TK, TN = 128, 128, 512
    BM, BN, BK = TM * TILES_M, TN * TILES_N, TK * TILES_K
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for n in nl.affine_range(N // BN):
        acc = nl.zeros((M // BM, TILES_M, TILES_N, nl.par_dim(TM), TN), dtype=nl.float32,
                       buffer=nl.sbuf)
        for k in nl.sequential_range(K // BK):
            i_rhs = nl.mgrid[0:TK, 0:BN]
            rhs_tiles = nl.ndarray((TILES_K, nl.par_dim(TK), BN), dtype="bfloat16", buffer=nl.sbuf)
            for bk in nl.affine_range(TILES_K):
                rhs_tiles[bk, i_rhs.p, i_rhs.x] = nl.load(
                    rhs[(TILES_K * k + bk) * TK + i_rhs.p, BN * n + i_rhs.x], dtype="bfloat16")
            for m in nl.affine_range(M // BM):
                i_lhsT = nl.mgrid[0:TK, 0:BM]
                lhsT_tiles = nl.ndarray((TILES_K, nl.par_dim(TK), BM), dtype="bfloat16",
                                        buffer=nl.sbuf)
                for bk in nl.affine_range(TILES_K):
                    lhsT_tiles[bk, i_lhsT.p, i_lhsT.x] = nl.load(
                        lhsT[(TILES_K * k + bk) * TK + i_lhsT.p, BM * m + i_lhsT.x],
                        dtype="bfloat16")
                i_l = nl.mgrid[0:TK, 0:TM]
                i_r = nl.mgrid[0:TK, 0:TN]
                i_o = nl.mgrid[0:TM, 0:TN]
                for bn in nl.affine_range(TILES_N):
                    for bm in nl.affine_range(TILES_M):
                        res = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(TILES_K):
                            res[...] += nl.matmul(lhsT_tiles[bk, i_l.p, bm * TM + i_l.x],
                                                  rhs_tiles[bk, i_r.p, bn * TN + i_r.x],
                                                  transpose_x=True)
                        acc[m, bm, bn, i_o.p, i_o.x] += res[i_o.p, i_o.x]
        for m in nl.affine_range(M // BM):
            for bm in nl.affine_range(TILES_M):
                i_res = nl.mgrid[0:TM, 0:TN]
                packed = nl.ndarray((TM, BN), dtype=nl.float32, buffer=nl.sbuf)
                for bn in nl.affine_range(TILES_N):
                    packed[i_res.p, bn * TN + i_res.x] = nl.copy(acc[m, bm, bn, i_res.p, i_res.x])
                nl.store(out[(TILES_M * m + bm) * TM + i_res.p, BN * n + nl.arange(BN)[None, :]],
                         value=packed)
    return out


@nki.jit
def unmarked_block(a):
    t = nl.ndarray((256, 128, 4), dtype=a.dtype, buffer=nl.sbuf)
    return t


@nki.jit
def whole_block_operand(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.zeros((2, nl.par_dim(128), 8), dtype=nl.float32, buffer=nl.sbuf)
    nl.store(out, value=nl.exp(t))
    return out


class Blocks(unittest.TestCase):
    def test_blocks_fit_and_compute(self):
        a = np.random.default_rng(0).random((1024, 4096), dtype=np.float32)
        want = a * np.repeat(np.arange(1, 9, dtype=np.float32), 128)[:, None]
        for target in ("trn1", "trn2"):
            np.testing.assert_array_equal(nki.simulate(block_scale, a, target=target), want)
        asm = block_scale.trace(a).asm()
        self.assertNotIn("tensor_copy", asm)  # loads land in their blocks
        self.assertIn("sbuf _sbuf uint8[128, ", asm)
        pool = int(asm.split("sbuf _sbuf uint8[128, ")[1].split("]")[0])
        self.assertGreaterEqual(pool, 8 * 4096 * 4)  # B * F * 4 bytes per partition
        r = nki.benchmark(block_scale, a, target="trn2")
        self.assertGreater(r.latency_ns, 0)

    def test_block_grid_index(self):
        a = np.random.default_rng(1).random((256, 64), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(block_grid_index, a), a)

    def test_psum_blocks(self):
        rng = np.random.default_rng(2)
        lhsT = rng.standard_normal((128, 128), dtype=np.float32)
        rhs = rng.standard_normal((128, 2048), dtype=np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(psum_blocks, lhsT, rhs, target=target),
                                       lhsT.T @ rhs, rtol=1e-4, atol=1e-3)

    def test_block_accumulate(self):
        rng = np.random.default_rng(3)
        x = rng.random((4, 256, 512), dtype=np.float32)
        w = rng.random((256, 4), dtype=np.float32)
        want = np.einsum("scl,cs->cl", x.astype(np.float64), w)
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(block_accumulate, x, w, target=target), want,
                                       rtol=1e-5)

    def test_matmul_blocked(self):
        rng = np.random.default_rng(4)
        lhsT = rng.standard_normal((1024, 512), dtype=np.float32)
        rhs = rng.standard_normal((1024, 2048), dtype=np.float32)
        def bf(x):  # fp32 -> bf16 (round to nearest even) -> fp32
            u = x.view(np.uint32).astype(np.uint64)
            return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)

        want = bf(lhsT).T.astype(np.float64) @ bf(rhs)
        for target in ("trn1", "trn2"):
            got = nki.simulate(matmul_blocked, lhsT, rhs, target=target)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
        asm = matmul_blocked.trace(lhsT, rhs).asm()
        self.assertEqual(asm.count("    matmul "), (512 // 128) * (2048 // 512) * (1024 // 128))
        r = nki.benchmark(matmul_blocked, lhsT, rhs, target="trn2")
        self.assertGreater(r.latency_ns, 0)

    def test_unmarked_partition_dim(self):
        with self.assertRaises(nki.NkiError) as cm:
            unmarked_block.trace(np.ones((128, 4), np.float32))
        msg = str(cm.exception)
        self.assertIn("nki_lang_block.py:", msg)
        self.assertIn("nl.par_dim", msg)

    def test_whole_block_operand(self):
        with self.assertRaises(nki.NkiError) as cm:
            whole_block_operand.trace(np.ones((128, 8), np.float32))
        self.assertIn("t[b]", str(cm.exception))
        self.assertIn("nki_lang_block.py:", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
