"""Index expressions (NKI pages nki.language.arange, nki.language.mgrid, nki.language.ds,
"NKI Access Patterns"): mgrid's .p / .x, an index over two grid axes in one dimension,
arange arithmetic, nl.ds, and .ap() on SBUF tiles. Kernels in the documented API, checked
against numpy."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
import neuronsim.nki.isa as nisa


@nki.jit
def mgrid_attributes(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    grid = nl.mgrid[0:128, 0:a.shape[1]]
    for t in nl.affine_range(a.shape[0] // 128):
        tile = nl.load(a[t * 128 + grid.p, grid.x])
        nl.store(out[t * 128 + grid.p, grid.x], value=nl.add(tile, 1.0))
    return out


@nki.jit
def two_axes_one_dim(a):
    # a [128, A * B] read as a [128, A, B] tile: column i_f1 * B + i_f2.
    A, B = 4, a.shape[1] // 4
    out = nl.ndarray((128, B, A), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None, None]
    i_f1 = nl.arange(A)[None, :, None]
    i_f2 = nl.arange(B)[None, None, :]
    tile = nl.load(a[i_p, i_f1 * B + i_f2])  # [128, A, B]
    j_p, j_f2, j_f1 = nl.mgrid[0:128, 0:B, 0:A]
    # Store it transposed in the free dims: out[p, f2, f1] = tile[p, f1, f2].
    nl.store(out[j_p, j_f2, j_f1], value=nl.copy(tile[j_p, j_f1, j_f2]))
    return out


@nki.jit
def partition_from_two_axes(x):
    # nki-samples' fused-layer load: dst[i_p, i_f0, i_f1] = x[i_f0, i_p * H1 + i_f1].
    B, H = x.shape
    H0, H1 = 128, H // 128
    out = nl.ndarray((H0, B, H1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((H0, B, H1), dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f0, i_f1 = nl.mgrid[0:H0, 0:B, 0:H1]
    nisa.dma_copy(dst=t[i_p, i_f0, i_f1], src=x[i_f0, i_p * H1 + i_f1])
    nl.store(out, value=t)
    return out


@nki.jit
def ds_slices(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[1] // 128):
        tile = nl.load(a[:, nl.ds(i * 128, 128)])
        nl.store(out[:, nl.ds(i * 128, 128)], value=nl.multiply(tile, float(i)))
    return out


@nki.jit
def sbuf_ap(a):
    # .ap() on an SBUF tile: every other column of partitions 0..63 (pattern in elements,
    # the partition step one row of 64 elements).
    out = nl.ndarray((64, 32), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    half = t.ap(pattern=[[64, 64], [2, 32]], offset=1)
    nl.store(out, value=nl.copy(half))
    return out


@nki.jit
def runtime_ds(a, idx):
    out = nl.ndarray((128, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.load(idx)
    nl.store(out, value=nl.load(a[:, nl.ds(i, 16)]))
    return out


@nki.jit
def pool_ap(x, pool):
    # 2-D average pooling of a [C, H, W] tensor through a 5-D .ap() view of its SBUF tile
    # ([C, H/k, W/k, k, k]) reduced over its last two axes.
    C, H, W = x.shape
    out = nl.ndarray((C, H // pool, W // pool), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    view = t.ap([[H * W, C], [pool * W, H // pool], [pool, W // pool], [W, pool], [1, pool]])
    s = nl.sum(view, axis=[3, 4])
    nl.store(out, value=nl.multiply(s, 1.0 / (pool * pool)))
    return out


@nki.jit
def pool_grid(x, pool):
    # The same pooling with an index grid: rows pool * i_1 + i_2, columns pool * i_3 + i_4,
    # reduced over the window axes 2 and 4 (not innermost: the view's axes are reordered).
    C, H, W = x.shape
    out = nl.ndarray((C, H // pool, W // pool), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    i0, i1, i2, i3, i4 = nl.mgrid[0:C, 0:H // pool, 0:pool, 0:W // pool, 0:pool]
    s = nl.sum(t[i0, pool * i1 + i2, pool * i3 + i4], axis=[2, 4])
    nl.store(out, value=nl.multiply(s, 1.0 / (pool * pool)))
    return out


@nki.jit
def bad_product(a):
    i_p, i_f = nl.mgrid[0:128, 0:8]
    return nl.load(a[i_p, i_p * i_f])


@nki.jit
def bad_truth(a):
    i_p, i_f = nl.mgrid[0:128, 0:8]
    if i_p < 4:
        pass


@nki.jit
def bad_axis_name(a):
    g = nl.mgrid[0:128, 0:8]
    return nl.load(a[g.p, g.y])


@nki.jit
def bad_tensor_index(a, idx):
    # A runtime index picks parts of an HBM tensor (an indirect DMA), not of an on-chip tile
    # (NeuronCore-v4's tensor indirection).
    i = nl.load(idx)
    t = nl.load(a[0:8, 0:8])
    return nl.copy(t[0:8, i])


@nki.jit
def bad_partition_step(a):
    t = nl.load(a)
    i_p, i_f = nl.mgrid[0:64, 0:8]
    return nl.copy(t[2 * i_p, i_f])


@nki.jit
def grids_of_two_ranks(a):
    # The layernorm tutorial's v2 idiom: a (P, F, 1) grid's partition index beside an
    # (F2, S) grid's first axis; grids of different rank line up from the right (numpy),
    # so i_f_bn is the middle axis: the tile is [128, 64, 1].
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f, i_one = nl.mgrid[0:128, 0:128, 0:1]
    i_f_bn, i_s = nl.mgrid[0:64, 0:6]
    for j in nl.affine_range(2):
        t = nl.load(a[i_p, j * 64 + i_f_bn])
        nl.store(out[i_p, j * 64 + i_f_bn], value=nl.multiply(t, 2.0))
    return out


@nki.jit
def dense_grid_iotas(x):
    # numpy.mgrid is dense: grid.p is every element's row, grid.x its column, and tile
    # comparisons (`col < n`, `row >= col`) build 0/1 masks elementwise.
    P, F = x.shape
    rows = nl.ndarray((P, F), dtype=nl.int32, buffer=nl.shared_hbm)
    cols = nl.ndarray((P, F), dtype=nl.int32, buffer=nl.shared_hbm)
    lower = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    first = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    grid = nl.mgrid[0:P, 0:F]
    r = nisa.iota(grid.p, dtype=nl.int32)
    c = nisa.iota(grid.x, dtype=nl.int32)
    nl.store(rows, value=r)
    nl.store(cols, value=c)
    nl.store(lower, value=r >= c)
    nl.store(first, value=10 > c)
    return rows, cols, lower, first


class Indexing(unittest.TestCase):
    def test_errors_name_the_line(self):
        a = np.ones((128, 8), np.float32)
        for kernel, args, words in (
                (bad_product, (a,), "not affine"),
                (bad_truth, (a,), "truth value"),
                (bad_axis_name, (a,), "no .y"),
                (bad_tensor_index, (a, np.zeros((1, 1), np.int32)), "runtime index"),
                (bad_partition_step, (a,), "partition dimension")):
            with self.assertRaises(nki.NkiError, msg=kernel.name) as cm:
                kernel.trace(*args)
            self.assertIn("nki_lang_index.py:", str(cm.exception))
            self.assertIn(words, str(cm.exception))

    def test_pooling_views(self):
        x = np.random.default_rng(5).random((64, 12, 16), dtype=np.float32)
        want = x.reshape(64, 6, 2, 8, 2).mean(axis=(2, 4))
        for kernel in (pool_ap, pool_grid):
            for target in ("trn1", "trn2"):
                np.testing.assert_allclose(nki.simulate(kernel, x, 2, target=target), want,
                                           rtol=1e-6)

    def test_mgrid_attributes(self):
        a = np.random.default_rng(0).random((256, 96), dtype=np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_array_equal(nki.simulate(mgrid_attributes, a, target=target), a + 1.0)

    def test_two_axes_one_dim(self):
        a = np.random.default_rng(1).random((128, 64), dtype=np.float32)
        want = a.reshape(128, 4, 16).transpose(0, 2, 1)
        np.testing.assert_array_equal(nki.simulate(two_axes_one_dim, a), want)

    def test_partition_from_two_axes(self):
        x = np.random.default_rng(2).random((4, 1024), dtype=np.float32)
        want = x.reshape(4, 128, 8).transpose(1, 0, 2)
        np.testing.assert_array_equal(nki.simulate(partition_from_two_axes, x), want)

    def test_grids_of_two_ranks(self):
        a = np.random.default_rng(3).standard_normal((128, 128)).astype(np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_array_equal(nki.simulate(grids_of_two_ranks, a, target=target),
                                          a * 2.0)

    def test_ds(self):
        a = np.random.default_rng(3).random((128, 512), dtype=np.float32)
        want = a * np.repeat(np.arange(4, dtype=np.float32), 128)[None, :]
        np.testing.assert_array_equal(nki.simulate(ds_slices, a), want)

    def test_sbuf_ap(self):
        a = np.random.default_rng(4).random((128, 64), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(sbuf_ap, a), a[:64, 1::2])

    def test_runtime_ds_is_refused(self):
        with self.assertRaises(nki.NkiError) as cm:
            runtime_ds.trace(np.ones((128, 64), np.float32), np.zeros((1, 1), np.int32))
        self.assertIn("nki_lang_index.py:", str(cm.exception))
        self.assertIn("nl.ds", str(cm.exception))


    def test_dense_mgrid_iota_and_tile_comparisons(self):
        x = np.zeros((128, 64), np.float32)
        rows, cols, lower, first = nki.simulate_kernel(dense_grid_iotas, x)
        P, F = np.mgrid[0:128, 0:64]
        np.testing.assert_array_equal(rows, P)
        np.testing.assert_array_equal(cols, F)
        np.testing.assert_array_equal(lower, (P >= F).astype(np.float32))
        np.testing.assert_array_equal(first, (F < 10).astype(np.float32))

if __name__ == "__main__":
    unittest.main()
