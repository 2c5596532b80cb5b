"""Max pooling as NKI 0.6 kernels write it: overlapping input rows by one HBM .ap() read,
windows as an on-chip .ap() with the pool axes innermost, nl.max over them. Covers the
pool sizes where the reduced axes have one element (pool 1: the identity), the whole input
as one window, a partial last row tile, and padding as a mask that cuts the window at the
output's edges; checked against numpy."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def max_pool(x, k):
    h, w = x.shape
    ho, wo = h - k + 1, w - k + 1
    out = nl.ndarray((ho, wo), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in range((ho + 127) // 128):
        r0 = t * 128
        n = min(128, ho - r0)
        rows = nl.ndarray((n, k, w), dtype=x.dtype, buffer=nl.sbuf)
        # Partition p holds input rows r0 + p .. r0 + p + k - 1: one overlapping read.
        nisa.dma_copy(dst=rows, src=x.ap(pattern=[[w, n], [w, k], [1, w]], offset=r0 * w))
        windows = rows.ap(pattern=[[k * w, n], [1, wo], [w, k], [1, k]], offset=0)
        nisa.dma_copy(dst=out[r0:r0 + n, 0:wo], src=nl.max(windows, axis=[2, 3]))
    return out


@nki.jit
def negated_single(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    three = t.ap(pattern=[[F, P], [1, F], [1, 1]], offset=0)
    nl.store(out, value=nisa.tensor_reduce(op=nl.add, data=three, axis=[2], negate=True))
    return out


@nki.jit
def padded_max_pool(x, k, pad, stride):
    # NKI-0.5 style: index grids over (channel, out row, out col, window row, window col),
    # the padding as a mask that is false outside the input; on the edge rows and columns
    # of the output it cuts the window, so the reduction is split into boxes (one per
    # edge/interior combination) that write interleaved parts of the output.
    C, H, W = x.shape
    ho, wo = (H + 2 * pad - k) // stride + 1, (W + 2 * pad - k) // stride + 1
    out = nl.ndarray((C, ho, wo), dtype=x.dtype, buffer=nl.shared_hbm)
    c = nl.arange(C)[:, None, None, None, None]
    oh = nl.arange(ho)[None, :, None, None, None]
    ow = nl.arange(wo)[None, None, :, None, None]
    kh = nl.arange(k)[None, None, None, :, None]
    kw = nl.arange(k)[None, None, None, None, :]
    t = nl.load(x)
    row, col = stride * oh - pad + kh, stride * ow - pad + kw
    nl.store(out, value=nl.max(t[c, row, col], axis=[3, 4],
                               mask=(row >= 0) & (col >= 0) & (row < H) & (col < W)))
    return out


def reference(x, k):
    h, w = x.shape
    return np.array([[x[i:i + k, j:j + k].max() for j in range(w - k + 1)]
                     for i in range(h - k + 1)], dtype=np.float32)


class Pooling(unittest.TestCase):
    def test_pool_sizes(self):
        rng = np.random.default_rng(0)
        for h, w, k in [(40, 33, 1), (7, 8, 3), (16, 16, 16), (131, 37, 3)]:
            with self.subTest(h=h, w=w, k=k):
                x = rng.standard_normal((h, w)).astype(np.float32)
                got = nki.simulate_kernel(max_pool, x, k)
                np.testing.assert_array_equal(got, reference(x, k))

    def test_reduce_over_single_elements_negated(self):
        x = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
        np.testing.assert_array_equal(nki.simulate_kernel(negated_single, x), -x)


    def test_padding_mask_cuts_the_window_at_the_edges(self):
        rng = np.random.default_rng(2)
        for C, H, W, k, pad, stride in [(8, 16, 16, 4, 1, 2), (64, 32, 30, 3, 1, 1)]:
            with self.subTest(k=k, pad=pad, stride=stride):
                x = rng.standard_normal((C, H, W)).astype(np.float32)
                padded = np.full((C, H + 2 * pad, W + 2 * pad), -np.inf, np.float32)
                padded[:, pad:pad + H, pad:pad + W] = x
                ho, wo = (H + 2 * pad - k) // stride + 1, (W + 2 * pad - k) // stride + 1
                want = np.array([[[padded[ci, i * stride:i * stride + k,
                                          j * stride:j * stride + k].max()
                                   for j in range(wo)] for i in range(ho)] for ci in range(C)])
                got = nki.simulate_kernel(padded_max_pool, x, k, pad, stride)
                np.testing.assert_array_equal(got, want)

if __name__ == "__main__":
    unittest.main()
