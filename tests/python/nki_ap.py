"""`.ap(pattern=[[step, num], ...], offset=...)` access patterns with offsets on HBM tensors and
SBUF tiles (page "NKI Access Patterns"), lowered to the DMA / engine access patterns, against
numpy on trn1 and trn2; a pattern that leaves its tensor (or a tile's partition row) is an
NkiError at the kernel's line."""
import os
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import line_of

HERE = os.path.abspath(__file__)
TARGETS = ("trn1", "trn2")


@nki.jit
def hbm_windows(x):
    # x [R, W]: 16 rows starting at row 3, each the 2 * 24 elements from there (rows overlap),
    # taking every other element: out[p, j] = x.flat[3 * W + p * W + 2 * j].
    R, W = x.shape
    out = nl.ndarray((16, 24), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((16, 24), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[W, 16], [2, 24]], offset=3 * W))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def hbm_backwards(x):
    # A negative step: each row read right to left from its last element.
    R, W = x.shape
    out = nl.ndarray((R, W), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((R, W), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[W, R], [-1, W]], offset=W - 1))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def sbuf_offset(x):
    # An SBUF tile's .ap with an offset of whole rows plus elements: partitions 64..127,
    # columns 5, 8, ..., 5 + 3 * 19.
    P, F = x.shape
    out = nl.ndarray((64, 20), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    view = t.ap(pattern=[[F, 64], [3, 20]], offset=64 * F + 5)
    nl.store(out, nl.copy(view))
    return out


class InBounds(unittest.TestCase):
    def test_hbm_patterns_with_offsets_match_numpy(self):
        rng = np.random.default_rng(31)
        x = rng.standard_normal((40, 64)).astype(np.float32)
        flat = x.reshape(-1)
        want = np.array([[flat[3 * 64 + p * 64 + 2 * j] for j in range(24)] for p in range(16)])
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(hbm_windows, x, target=target), want)
                np.testing.assert_array_equal(nki.simulate(hbm_backwards, x, target=target),
                                              x[:, ::-1])

    def test_sbuf_pattern_with_an_offset_matches_numpy(self):
        rng = np.random.default_rng(32)
        x = rng.standard_normal((128, 64)).astype(np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(sbuf_offset, x, target=target),
                                              x[64:128, 5:5 + 3 * 20:3])


def kernel_reading(make):
    @nki.jit
    def k(x):
        out = nl.ndarray((4, 4), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        v = make(x, t)
        return out
    return k


class OutOfBounds(unittest.TestCase):
    def test_patterns_leaving_their_tensor_are_refused_at_their_line(self):
        x = np.ones((16, 32), np.float32)  # 512 elements; a tile row of 32
        cases = [
            (lambda x, t: x.ap([[32, 16], [1, 32]], offset=1), "reach elements 1..512",
             "it has 512"),
            (lambda x, t: x.ap([[32, 4], [-1, 8]], offset=3), "reach elements -4..99", "0..511"),
            (lambda x, t: x.ap([[32, 4], [1, 8]], offset=-1), "reach elements -1..", "0..511"),
            (lambda x, t: x.ap([[32, 0], [1, 8]]), "num >= 1", "[32, 0]"),
            (lambda x, t: t.ap([[32, 8], [2, 16]], offset=4), "reach elements 4..34",
             "partition row of 32 elements"),
            (lambda x, t: t.ap([[32, 8], [-1, 4]], offset=2), "reach elements -1..2",
             "partition row"),
            (lambda x, t: t.ap([[32, 8], [1, 4]], offset=-3), "offset -3 is negative", ""),
        ]
        for make, words, more in cases:
            with self.subTest(words=words):
                k = kernel_reading(make)
                with self.assertRaises(nki.NkiError) as cm:
                    k.trace(x)
                msg = str(cm.exception)
                self.assertIn(words, msg)
                self.assertIn(more, msg)
                self.assertIn(HERE, msg)

    def test_an_sbuf_pattern_beyond_the_partitions_is_refused(self):
        @nki.jit
        def k(x):
            out = nl.ndarray((4, 4), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.load(x)
            v = t.ap([[32, 64], [1, 8]], offset=100 * 32)
            return out
        with self.assertRaises(nki.NkiError) as cm:
            k.trace(np.ones((128, 32), np.float32))
        self.assertIn(f"{HERE}:{line_of(k.fn, 't.ap(')}:", str(cm.exception))
        self.assertIn("beyond 128", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
