"""nisa.nc_matmul's tiling mode (NKI page nki.isa.nc_matmul, "Tiling mode"): tile_size
(row_size, column_size) of 128, 64 or 32 (32 on NeuronCore-v3 or newer), tile_position
(start_row, start_column) a multiple of the size, both or neither, the stationary within the
tile, no column tiling with perf_mode double_row. A kernel in the shape real ones use (a
64-deep contraction per matmul, each on a quarter of the array, accumulating) matches numpy
on trn1 and trn2 and benchmarks; the page's rules are errors at the kernel's line. The
tiling is checked, not timed: each matmul runs on the whole array, one at a time."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl

GROUP = 64


@nki.jit
def quadrant_matmuls(a_t, b):
    # out [M, N] = a_t.T @ b for a_t [K, M], b [K, N] with M = 64: each 64-row K slice runs
    # on its own row tile, the result in one column tile, accumulating in one PSUM tile.
    k, m = a_t.shape
    n = b.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    for g in nl.affine_range(k // GROUP):
        st = nl.ndarray((GROUP, m), dtype=a_t.dtype, buffer=nl.sbuf)
        mv = nl.ndarray((GROUP, n), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=st, src=a_t[g * GROUP:(g + 1) * GROUP, :])
        nisa.dma_copy(dst=mv, src=b[g * GROUP:(g + 1) * GROUP, :])
        nisa.nc_matmul(ps, st, mv, tile_position=((g % 2) * GROUP, 0),
                       tile_size=(GROUP, GROUP), accumulate=(g > 0))
    res = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def tiled(a_t, b, tile_position, tile_size, perf_mode=nisa.matmul_perf_mode.none):
    k, m = a_t.shape[0], a_t.shape[-1]
    out = nl.ndarray((m, b.shape[-1]), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.load(a_t)
    mv = nl.load(b)
    ps = nl.ndarray((m, b.shape[-1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, st, mv, tile_position=tile_position, tile_size=tile_size,
                   perf_mode=perf_mode)
    nl.store(out, nl.copy(ps))
    return out


class PeTiling(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(7)
        self.a_t = rng.standard_normal((256, 64)).astype(np.float32)
        self.b = rng.standard_normal((256, 512)).astype(np.float32)

    def test_row_and_column_tiles_match_numpy_on_trn1_and_trn2(self):
        want = self.a_t.T @ self.b
        for target in ("trn1", "trn2"):
            with self.subTest(target=target):
                got = nki.simulate(quadrant_matmuls, self.a_t, self.b, target=target)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)

    def test_benchmarks(self):
        # Four matmuls [64 x 64] x [64 x 512] on the whole array one at a time (not timed as
        # parallel tiles): the tiled kernel benchmarks, giving a latency.
        lat = nki.benchmark(quadrant_matmuls, self.a_t, self.b, target="trn2").latency_ns
        self.assertGreater(lat, 0)

    def test_32_wide_tiles_on_trn2_not_trn1(self):
        a, b = self.a_t[:32, :32], self.b[:32, :]
        got = nki.simulate(tiled, a, b, (32, 96), (32, 32), target="trn2")
        np.testing.assert_allclose(got, a.T @ b, rtol=1e-4, atol=1e-3)
        with self.assertRaisesRegex(nki.NkiError, "32-wide tiles need NeuronCore-v3"):
            nki.simulate(tiled, a, b, (32, 96), (32, 32), target="trn1")

    def test_the_page_rules_are_errors_at_the_kernel_line(self):
        a, b = self.a_t[:64, :], self.b[:64, :]
        cases = [
            (((0, 0), ()), "tile_position and tile_size must both be set"),
            (((0, 0), (48, 64)), "row_size and column_size must each be 128, 64 or 32"),
            (((32, 0), (64, 64)), "start_row must be a multiple of row_size 64"),
            (((0, 128), (64, 64)), "start_column of column_size 64, each below 128"),
            (((0, 0), (32, 64)), r"stationary \[64, 64\] exceeds the row tile"),
            (((0, 0), (64, 32)), r"stationary \[64, 64\] exceeds the column tile"),
        ]
        for (pos, size), message in cases:
            with self.subTest(pos=pos, size=size):
                with self.assertRaisesRegex(nki.NkiError, "nki_pe_tiling.py:[0-9]+.*" + message):
                    nki.simulate(tiled, a, b, pos, size, target="trn2")

    def test_double_row_refuses_column_tiling(self):
        a = np.zeros((128, 2, 64), dtype=np.float32)
        b = np.zeros((128, 2, 512), dtype=np.float32)
        with self.assertRaisesRegex(nki.NkiError, "double_row cannot be combined with column"):
            nki.simulate(tiled, nki.typed(a, nl.float8_e4m3), nki.typed(b, nl.float8_e4m3),
                         (0, 0), (128, 64), nisa.matmul_perf_mode.double_row, target="trn2")


if __name__ == "__main__":
    unittest.main()
