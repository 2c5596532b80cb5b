"""Indirect DMA (NKI's nl.load / nl.store pages, "indirect DMA" examples, and nisa.dma_copy's
software-DGE gather/scatter): rows of an HBM tensor picked at run time by an SBUF index
tile, `data[idx_tile, i_f]`. Each documented spelling against numpy, on trn1 and trn2; an
out-of-range index fails the launch with the reason; the indices are read after the
instruction that wrote them."""
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
def gather_page_form(data, idx):
    # nl.load page, indirect DMA read: idx_tile = nl.load(idx[i_p]); data[idx_tile[i_p, 0], i_f]
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(idx.shape[0])[:, None]
    i_f = nl.arange(data.shape[1])[None, :]
    idx_tile = nl.load(idx[i_p, 0])
    rows = nl.load(data[idx_tile[i_p, 0], i_f])
    nl.store(out[i_p, i_f], value=rows)
    return out


@nki.jit
def gather_tile_form(data, idx):
    # data[idx_tile, :] with the whole index tile
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    nl.store(out, nl.load(data[idx_tile, :]))
    return out


@nki.jit
def scatter_page_form(data, idx):
    # nl.store page, indirect DMA write: nl.store(out[idx_tile[i_p, 0], i_f], value=tile)
    out = nl.ndarray(data.shape, dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(idx.shape[0])[:, None]
    i_f = nl.arange(data.shape[1])[None, :]
    idx_tile = nl.load(idx[i_p, 0])
    nl.store(out[idx_tile[i_p, 0], i_f], value=nl.load(data))
    return out


@nki.jit
def dma_copy_forms(data, idx):
    # nisa.dma_copy as a gather, then as an accumulating scatter (dst_rmw_op=nl.add) of
    # those rows onto a copy of data: out[idx[p]] = data[idx[p]] + data[idx[p]].
    out = nl.ndarray(data.shape, dtype=data.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(data))
    idx_tile = nl.load(idx)
    rows = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=data[idx_tile, :])
    nisa.dma_copy(dst=out[idx_tile, :], src=rows, dst_rmw_op=nl.add)
    return out


@nki.jit
def gather_computed_index(data, idx):
    # The index is computed on an engine first: the gather waits for it.
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    shifted = nl.add(nl.load(idx), 1, dtype=nl.int32)
    nl.store(out, nl.load(data[shifted, :]))
    return out


@nki.jit
def gather_read_on_gpsimd(data, idx):
    # The gather is issued by GpSimd (software DGE) and the next GpSimd instruction reads
    # its rows: it must wait for the transfer, not only follow it in the stream.
    out = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    idx_tile = nl.load(idx)
    rows = nl.ndarray((idx.shape[0], data.shape[1]), dtype=data.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=data[idx_tile, :])
    twice = nl.ndarray(rows.shape, dtype=data.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=twice, data1=rows, data2=rows, op=nl.add, engine=nisa.gpsimd_engine)
    nl.store(out, twice)
    return out


class Gather(unittest.TestCase):
    def test_page_and_tile_forms_match_numpy(self):
        rng = np.random.default_rng(1)
        data = rng.standard_normal((300, 64)).astype(np.float32)
        idx = rng.integers(0, 300, (96, 1)).astype(np.int32)
        for kernel in (gather_page_form, gather_tile_form):
            for target in TARGETS:
                with self.subTest(kernel=kernel.fn.__name__, target=target):
                    np.testing.assert_array_equal(nki.simulate(kernel, data, idx, target=target),
                                                  data[idx[:, 0]])
                    self.assertGreater(nki.benchmark(kernel, data, idx, target=target)
                                       .latency_ns, 0)

    def test_one_gpsimd_dma_copy_reading_the_index(self):
        data = np.zeros((300, 64), np.float32)
        idx = np.zeros((96, 1), np.int32)
        asm = gather_tile_form.trace(data, idx).asm()
        gathers = [l for l in asm.splitlines() if "src_index=" in l]
        self.assertEqual(len(gathers), 1)
        self.assertIn("dma_copy", gathers[0])
        # ... in GpSimd's stream (software DGE): the last engine label before it.
        labels = [l for l in asm[:asm.index(gathers[0])].splitlines()
                  if l.rstrip().endswith(":") and l.strip()[:-1] in
                  ("tensor", "vector", "scalar", "gpsimd", "sync")]
        self.assertEqual(labels[-1].strip(), "gpsimd:")

    def test_gpsimd_waits_for_its_own_gather(self):
        # Before: the tensor_tensor followed the gather in GpSimd's stream with no wait and
        # read the rows before they arrived (wrong on trn1 and trn2).
        rng = np.random.default_rng(3)
        data = rng.standard_normal((300, 64)).astype(np.float32)
        idx = rng.integers(0, 300, (96, 1)).astype(np.int32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(
                    nki.simulate(gather_read_on_gpsimd, data, idx, target=target),
                    2 * data[idx[:, 0]])
        text = gather_read_on_gpsimd.trace(data, idx, target="trn2").asm()
        self.assertIn("signal _gpsimd_dma0", text)
        self.assertIn("wait _gpsimd_dma0>=1", text)

    def test_index_computed_by_an_engine_is_read_after_it(self):
        rng = np.random.default_rng(2)
        data = rng.standard_normal((130, 32)).astype(np.float32)
        idx = rng.integers(0, 129, (128, 1)).astype(np.int32)
        for target in TARGETS:
            np.testing.assert_array_equal(
                nki.simulate(gather_computed_index, data, idx, target=target), data[idx[:, 0] + 1])

    def test_out_of_range_index_fails_the_launch(self):
        data = np.ones((300, 64), np.float32)
        for bad in (300, -1):
            idx = np.zeros((96, 1), np.int32)
            idx[5, 0] = bad
            with self.assertRaises(neuronsim.Error) as cm:
                nki.simulate(gather_tile_form, data, idx)
            msg = str(cm.exception)
            self.assertIn("src_index", msg)
            self.assertIn(f"partition 5 holds row index {bad}", msg)
            self.assertIn("300 rows", msg)

    def test_a_psum_or_float_index_is_refused_at_its_line(self):
        @nki.jit
        def float_index(data, idx):
            out = nl.ndarray((4, 8), dtype=data.dtype, buffer=nl.shared_hbm)
            nl.store(out, nl.load(data[nl.load(idx), :]))
            return out
        with self.assertRaises(nki.NkiError) as cm:
            float_index.trace(np.ones((16, 8), np.float32), np.ones((4, 1), np.float32))
        self.assertIn(f"{HERE}:{line_of(float_index.fn, 'nl.load(data[')}:", str(cm.exception))
        self.assertIn("int32 or uint32", str(cm.exception))


class Scatter(unittest.TestCase):
    def test_page_form_matches_numpy(self):
        rng = np.random.default_rng(3)
        data = rng.standard_normal((128, 48)).astype(np.float32)
        perm = rng.permutation(128).astype(np.int32)[:, None]
        want = np.empty_like(data)
        want[perm[:, 0]] = data
        for target in TARGETS:
            np.testing.assert_array_equal(
                nki.simulate(scatter_page_form, data, perm, target=target), want)

    def test_dma_copy_gather_and_accumulating_scatter(self):
        rng = np.random.default_rng(4)
        data = rng.standard_normal((128, 32)).astype(np.float32)
        idx = rng.choice(128, 64, replace=False).astype(np.int32)[:, None]
        want = data.copy()
        want[idx[:, 0]] += data[idx[:, 0]]
        for target in TARGETS:
            np.testing.assert_allclose(nki.simulate(dma_copy_forms, data, idx, target=target),
                                       want, rtol=0, atol=0)


if __name__ == "__main__":
    unittest.main()
