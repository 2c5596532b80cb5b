"""Indirect DMA with the runtime index outside the first dimension (issue 23): the index tile
in a middle or the last dimension of an HBM tensor (`data[b, idx_tile, :]`,
`data[b, idx_tile]`, `data[:, idx_tile]`), and `t.ap(pattern, offset, vector_offset=idx,
indirect_dim=0)` (page "NKI Access Patterns", as nki-samples' MoE kernels gather tokens).
Each against numpy on trn1 and trn2; what the model does not cover is an NkiError at the
kernel's line."""
import os
import unittest

import numpy as np

import neuronsim
from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import line_of

HERE = os.path.abspath(__file__)
TARGETS = ("trn1", "trn2")


@nki.jit
def gather_middle(data, idx):
    # data [B, N, F]: out[p, :] = data[2, idx[p], :]
    out = nl.ndarray((idx.shape[0], data.shape[2]), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    nl.store(out, nl.load(data[2, idx_tile, :]))
    return out


@nki.jit
def gather_middle_all_batches(data, idx):
    # data [B, N, F]: out[p, b, :] = data[b, idx[p], :] (numpy's data[:, idx, :], index axis first)
    out = nl.ndarray((idx.shape[0], data.shape[0], data.shape[2]), dtype=data.dtype,
                     buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    nl.store(out, nl.load(data[:, idx_tile, :]))
    return out


@nki.jit
def gather_last_of_row(data, idx):
    # data [M, N]: out[p, 0] = data[3, idx[p]] (elements of one row: a free-dimension gather)
    out = nl.ndarray((idx.shape[0], 1), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    nl.store(out, nl.load(data[3, idx_tile]))
    return out


@nki.jit
def gather_columns(data, idx):
    # data [M, N]: out[p, m] = data[m, idx[p]] (columns, each landing as one partition row)
    out = nl.ndarray((idx.shape[0], data.shape[0]), dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(idx.shape[0])[:, None]
    idx_tile = nl.load(idx[i_p, 0])
    nl.store(out, nl.load(data[:, idx_tile[i_p, 0]]))
    return out


@nki.jit
def scatter_middle(data, idx, rows):
    # out = data; out[1, idx[p], :] = rows[p, :]
    out = nl.ndarray(data.shape, dtype=data.dtype, buffer=nl.shared_hbm)
    for b in range(data.shape[0]):
        nl.store(out[b], nl.load(data[b]))
    idx_tile = nl.load(idx)
    nl.store(out[1, idx_tile, :], value=nl.load(rows))
    return out


@nki.jit
def gather_ap(hidden, idx):
    # nki-samples' MoE token gather: rows idx[p] of hidden [T, H], columns 32..32+W.
    T, H = hidden.shape
    n, W = idx.shape[0], 64
    out = nl.ndarray((n, W), dtype=hidden.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.ndarray((n, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=idx_tile, src=idx)
    rows = nl.ndarray((n, W), dtype=hidden.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=hidden.ap(pattern=[[H, n], [1, W]], offset=32,
                                          vector_offset=idx_tile, indirect_dim=0))
    nisa.dma_copy(dst=out, src=rows)
    return out


@nki.jit
def scatter_ap(base, idx, rows):
    # out = base; rows of out picked by idx take rows (a scatter through .ap(vector_offset=)).
    T, H = base.shape
    out = nl.ndarray(base.shape, dtype=base.dtype, buffer=nl.shared_hbm)
    for h in range(T // 128):
        nl.store(out[h * 128:(h + 1) * 128], nl.load(base[h * 128:(h + 1) * 128]))
    idx_tile = nl.load(idx)
    nisa.dma_copy(dst=out.ap(pattern=[[H, idx.shape[0]], [1, H]], offset=0,
                             vector_offset=idx_tile, indirect_dim=0), src=nl.load(rows))
    return out


class IndexInAnotherDimension(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(23)

    def test_gather_over_a_middle_dimension(self):
        data = self.rng.standard_normal((4, 200, 48)).astype(np.float32)
        idx = self.rng.integers(0, 200, (96, 1)).astype(np.int32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(gather_middle, data, idx,
                                                           target=target), data[2, idx[:, 0]])
                np.testing.assert_array_equal(
                    nki.simulate(gather_middle_all_batches, data, idx, target=target),
                    np.moveaxis(data[:, idx[:, 0], :], 1, 0))

    def test_gather_over_the_free_dimension(self):
        data = self.rng.standard_normal((8, 300)).astype(np.float32)
        idx = self.rng.integers(0, 300, (128, 1)).astype(np.int32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(
                    nki.simulate(gather_last_of_row, data, idx, target=target),
                    data[3, idx[:, 0]][:, None])
                np.testing.assert_array_equal(
                    nki.simulate(gather_columns, data, idx, target=target), data[:, idx[:, 0]].T)

    def test_scatter_into_a_middle_dimension(self):
        data = self.rng.standard_normal((3, 128, 16)).astype(np.float32)
        idx = self.rng.permutation(128)[:64].astype(np.int32)[:, None]
        rows = self.rng.standard_normal((64, 16)).astype(np.float32)
        want = data.copy()
        want[1, idx[:, 0]] = rows
        for target in TARGETS:
            np.testing.assert_array_equal(
                nki.simulate(scatter_middle, data, idx, rows, target=target), want)

    def test_one_gpsimd_gather_whose_rows_step_the_indexed_dimension(self):
        data = np.zeros((4, 200, 48), np.float32)
        idx = np.zeros((96, 1), np.int32)
        asm = gather_middle.trace(data, idx).asm()
        gathers = [l for l in asm.splitlines() if "src_index=" in l]
        self.assertEqual(len(gathers), 1, asm)

    def test_out_of_range_index_in_a_middle_dimension_fails_the_launch(self):
        data = np.ones((4, 200, 48), np.float32)
        idx = np.zeros((96, 1), np.int32)
        idx[7, 0] = 200
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(gather_middle, data, idx)
        self.assertIn("partition 7 holds row index 200", str(cm.exception))
        self.assertIn("200 rows", str(cm.exception))

    def test_a_per_partition_free_index_is_refused_at_its_line(self):
        @nki.jit
        def per_partition(data, idx):
            out = nl.ndarray((128, 1), dtype=data.dtype, buffer=nl.shared_hbm)
            i_p = nl.arange(128)[:, None]
            idx_tile = nl.load(idx[i_p, 0])
            nl.store(out, nl.load(data[i_p, idx_tile[i_p, 0]]))
            return out
        with self.assertRaises(nki.NkiError) as cm:
            per_partition.trace(np.ones((128, 64), np.float32), np.zeros((128, 1), np.int32))
        msg = str(cm.exception)
        self.assertIn(f"{HERE}:{line_of(per_partition.fn, 'data[i_p, idx_tile')}:", msg)
        self.assertIn("per-partition gather", msg)
        self.assertIn("reshape((-1, 1))", msg)

    def test_two_index_tiles_are_refused(self):
        @nki.jit
        def two(data, idx):
            out = nl.ndarray((4, 1), dtype=data.dtype, buffer=nl.shared_hbm)
            t = nl.load(idx)
            nl.store(out, nl.load(data[t, t]))
            return out
        with self.assertRaises(nki.NkiError) as cm:
            two.trace(np.ones((16, 16), np.float32), np.zeros((4, 1), np.int32))
        self.assertIn("one runtime index tile", str(cm.exception))


class ApVectorOffset(unittest.TestCase):
    def test_gather_rows_through_ap_matches_numpy(self):
        rng = np.random.default_rng(5)
        hidden = rng.standard_normal((500, 256)).astype(np.float32)
        idx = rng.integers(0, 500, (100, 1)).astype(np.int32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(gather_ap, hidden, idx, target=target),
                                              hidden[idx[:, 0], 32:96])

    def test_scatter_rows_through_ap_matches_numpy(self):
        rng = np.random.default_rng(6)
        base = rng.standard_normal((256, 32)).astype(np.float32)
        idx = rng.permutation(256)[:128].astype(np.int32)[:, None]
        rows = rng.standard_normal((128, 32)).astype(np.float32)
        want = base.copy()
        want[idx[:, 0]] = rows
        for target in TARGETS:
            np.testing.assert_array_equal(nki.simulate(scatter_ap, base, idx, rows, target=target),
                                          want)

    def test_rows_an_index_may_name_end_with_the_tensor(self):
        # From offset 32 with rows of 64 elements, row 499 is the last that fits in [500, 256].
        hidden = np.ones((500, 256), np.float32)
        idx = np.zeros((100, 1), np.int32)
        idx[3, 0] = 500
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(gather_ap, hidden, idx)
        self.assertIn("partition 3 holds row index 500, outside src's 500 rows", str(cm.exception))

    def test_unmodelled_ap_forms_are_refused_at_their_line(self):
        def kernel_with(call):
            @nki.jit
            def k(data, idx):
                out = nl.ndarray((4, 8), dtype=data.dtype, buffer=nl.shared_hbm)
                t = nl.load(idx)
                rows = nl.ndarray((4, 8), dtype=data.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rows, src=call(data, t))
                nl.store(out, rows)
                return out
            return k
        cases = [
            (lambda d, t: d.ap([[16, 4], [1, 8]], vector_offset=t, indirect_dim=1),
             "indirect_dim=1 is not modelled"),
            (lambda d, t: d.ap([[16, 4], [1, 8]], scalar_offset=t), "scalar_offset="),
            (lambda d, t: d.ap([[16, 5], [1, 8]], vector_offset=t), "holds 4 indices"),
            (lambda d, t: d.ap([[16, 4], [1, 8]], offset=250, vector_offset=t),
             "outside the tensor's 256"),
        ]
        for call, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(nki.NkiError) as cm:
                    kernel_with(call).trace(np.ones((16, 16), np.float32),
                                            np.zeros((4, 1), np.int32))
                self.assertIn(text, str(cm.exception))
                self.assertIn(HERE, str(cm.exception))


@nki.jit
def gather_skip(data, idx, fill):
    # oob_mode.skip (the dma_copy page): rows with an out-of-range index keep dst's values.
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    rows = nl.load(fill)
    nisa.dma_copy(dst=rows, src=data[idx_tile, :], oob_mode=nisa.oob_mode.skip)
    nl.store(out, rows)
    return out


@nki.jit
def gather_skip_load_mode(data, idx, fill):
    # The earlier dma_copy page's mode= keyword, on a gather through .ap(vector_offset=).
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    rows = nl.load(fill)
    nisa.dma_copy(dst=rows, src=data.ap(pattern=[[data.shape[1], idx.shape[0]],
                                                 [1, data.shape[1]]],
                                        vector_offset=idx_tile, indirect_dim=0),
                  mode=nisa.oob_mode.skip)
    nl.store(out, rows)
    return out


@nki.jit
def scatter_skip(base, idx, rows):
    # Padding rows (index -1 or past the end) of a scatter are dropped (vLLM's KV-cache
    # update with oob_mode.skip).
    out = nl.ndarray(base.shape, dtype=base.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(base))
    idx_tile = nl.load(idx)
    nl.store(out[idx_tile, :], value=nl.load(rows), oob_mode=nisa.oob_mode.skip)
    return out


class OobMode(unittest.TestCase):
    def test_skip_leaves_out_of_range_rows_of_a_gather(self):
        rng = np.random.default_rng(7)
        data = rng.standard_normal((200, 32)).astype(np.float32)
        fill = np.full((64, 32), -7.0, np.float32)
        idx = rng.integers(0, 200, (64, 1)).astype(np.int32)
        idx[[3, 10, 63], 0] = [200, -1, 5000]
        want = data[np.clip(idx[:, 0], 0, 199)]
        want[[3, 10, 63]] = -7.0
        for kernel in (gather_skip, gather_skip_load_mode):
            for target in TARGETS:
                with self.subTest(kernel=kernel.fn.__name__, target=target):
                    np.testing.assert_array_equal(
                        nki.simulate(kernel, data, idx, fill, target=target), want)

    def test_skip_drops_out_of_range_rows_of_a_scatter(self):
        rng = np.random.default_rng(8)
        base = rng.standard_normal((100, 16)).astype(np.float32)
        rows = rng.standard_normal((32, 16)).astype(np.float32)
        idx = rng.permutation(100)[:32].astype(np.int32)[:, None]
        idx[[0, 31], 0] = [-1, 100]
        want = base.copy()
        keep = (idx[:, 0] >= 0) & (idx[:, 0] < 100)
        want[idx[keep, 0]] = rows[keep]
        for target in TARGETS:
            np.testing.assert_array_equal(
                nki.simulate(scatter_skip, base, idx, rows, target=target), want)

    def test_the_default_stays_an_error(self):
        data = np.ones((200, 32), np.float32)
        idx = np.zeros((64, 1), np.int32)
        idx[3, 0] = 200

        @nki.jit
        def default(data, idx, fill):
            out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype,
                             buffer=nl.shared_hbm)
            rows = nl.load(fill)
            nisa.dma_copy(dst=rows, src=data[nl.load(idx), :], oob_mode=nisa.oob_mode.error)
            nl.store(out, rows)
            return out
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(default, data, idx, np.zeros((64, 32), np.float32))
        self.assertIn("partition 3 holds row index 200", str(cm.exception))

    def test_one_instruction_marked_oob_skip(self):
        asm = gather_skip.trace(np.zeros((200, 32), np.float32), np.zeros((64, 1), np.int32),
                                np.zeros((64, 32), np.float32)).asm()
        gathers = [l for l in asm.splitlines() if "src_index=" in l]
        self.assertEqual(len(gathers), 1)
        self.assertIn("oob_skip=true", gathers[0])

    def test_skip_with_dst_rmw_op_and_unknown_modes_are_refused_at_their_line(self):
        @nki.jit
        def rmw_skip(data, idx):
            out = nl.ndarray(data.shape, dtype=data.dtype, buffer=nl.shared_hbm)
            t = nl.load(idx)
            nisa.dma_copy(dst=out[t, :], src=nl.load(data[0:4]), dst_rmw_op=nl.add,
                          oob_mode=nisa.oob_mode.skip)
            return out

        @nki.jit
        def bad_mode(data, idx):
            out = nl.ndarray((4, 16), dtype=data.dtype, buffer=nl.shared_hbm)
            nl.store(out, nl.load(data[nl.load(idx), :], oob_mode="wrap"))
            return out
        for kernel, text, words in ((rmw_skip, "oob_mode=nisa.oob_mode.skip)",
                                     "only oob_mode=nisa.oob_mode.error"),
                                    (bad_mode, 'oob_mode="wrap"', "is not nisa.oob_mode")):
            with self.subTest(kernel=kernel.fn.__name__):
                with self.assertRaises(nki.NkiError) as cm:
                    kernel.trace(np.ones((16, 16), np.float32), np.zeros((4, 1), np.int32))
                self.assertIn(words, str(cm.exception))
                self.assertIn(HERE, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
