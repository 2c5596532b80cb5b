"""Masks that are false somewhere (NKI programming guide, "Masking"; the `mask=` argument
of every nl / nisa call): the partial last tile of a shape that does not divide by 128,
free-dimension masks, `&` of masks, an affine mask (i_p * F + i_f < n) and masked
index-dependent instructions. Kernels in the documented API, against numpy."""
import math
import os
import sys
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
import neuronsim.nki.isa as nisa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
import layernorm  # noqa: E402
import rmsnorm  # noqa: E402


@nki.jit
def partial_rows(a):
    # The tutorials' bounds mask: rows beyond a.shape[0] are neither loaded, computed
    # nor stored (the index runs past the tensor, legal where the mask is false).
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    n = a.shape[0]
    for t in nl.affine_range(math.ceil(n / 128)):
        rows = t * 128 + i_p
        tile = nl.load(a[rows, i_f], mask=(rows < n))
        e = nl.exp(tile, mask=(rows < n))
        nl.store(out[rows, i_f], value=nl.multiply(e, 2.0, mask=(rows < n)), mask=(rows < n))
    return out


@nki.jit
def partial_both(a):
    # Rows and columns partial: `&` of a partition mask and a free mask.
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:128]
    P, F = a.shape
    for r in nl.affine_range(math.ceil(P / 128)):
        for c in nl.affine_range(math.ceil(F / 128)):
            m = (r * 128 + i_p < P) & (c * 128 + i_f < F)
            t = nl.load(a[r * 128 + i_p, c * 128 + i_f], mask=m)
            nl.store(out[r * 128 + i_p, c * 128 + i_f], value=nl.add(t, 1.0, mask=m), mask=m)
    return out


@nki.jit
def masked_row_sum(a):
    # A free mask on a reduction: the sum of the first m columns only.
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    t = nl.load(a)
    nl.store(out, value=nl.sum(t[i_p, i_f], axis=1, mask=(i_f < 40)))
    return out


@nki.jit
def affine_mask_load(x):
    # nki-samples' fused-layer load of a vector of H < 128 * H1 elements as [128, H1]:
    # the mask i_p * H1 + i_f < H is true on whole rows, then on part of one row.
    H = x.shape[0]
    H1 = 8
    out = nl.ndarray((128, H1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.zeros((128, H1), dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:H1]
    mask = i_p * H1 + i_f < H
    nisa.dma_copy(dst=t[i_p, i_f], src=x[i_p * H1 + i_f], mask=mask)
    nl.store(out, value=t)
    return out


@nki.jit
def masked_iota():
    # iota restricted to a box keeps each element's value (its offset moves with the box).
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    t = nl.zeros((128, 64), dtype=nl.int32, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:64]
    t[...] = nisa.iota(i_p * 64 + i_f, dtype=nl.int32, mask=(i_p >= 32) & (i_f >= 20))
    nl.store(out, value=t)
    return out


@nki.jit
def unmasked_out_of_range(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    nl.store(out[i_p, i_f], value=nl.load(a[64 + i_p, i_f]))
    return out


@nki.jit
def stepped_reduce_mask(a):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    t = nl.load(a)
    nl.store(out, value=nl.sum(t, axis=1, mask=(i_f < 2) | (i_f >= 6)))
    return out


@nki.jit
def affine_reduce_mask(a):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
    t = nl.load(a)
    nl.store(out, value=nl.sum(t, axis=1, mask=(i_p * 4 + i_f < 300)))
    return out


@nki.jit
def mismatched_mask(a):
    out = nl.ndarray((64, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:8]
    t = nl.load(a[0:64, :])
    nl.store(out, value=nl.exp(t, mask=(i_p < 50)))
    return out


@nki.jit
def masked_scale(x, lo, hi, flo, fhi, affine):
    # nisa's output-first form: only the mask's elements of t are written.
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.zeros(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    tx = nl.load(x)
    i_p, i_f = nl.mgrid[0:128, 0:x.shape[1]]
    if affine:
        m = (i_p * x.shape[1] + i_f < hi * x.shape[1] + fhi) & (i_p >= lo)
    else:
        m = (i_p >= lo) & (i_p < hi) & (i_f >= flo) & (i_f < fhi)
    nisa.tensor_scalar(dst=t, data=tx, op0=nl.multiply, operand0=2.0, mask=m)
    nl.store(out, value=t)
    return out


@nki.jit
def all_false(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.zeros(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:x.shape[1]]
    nisa.tensor_scalar(dst=t, data=nl.load(x), op0=nl.add, operand0=1.0, mask=(i_p < 0))
    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=5.0, mask=False)
    nl.store(out, value=t)
    return out


@nki.jit
def masked_bias(x):
    # The constant bias tile of a masked activation is shared with a later unmasked one:
    # it is filled whole.
    o1 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    i_p, i_f = nl.mgrid[0:128, 0:x.shape[1]]
    z = nl.zeros(x.shape, dtype=x.dtype)
    nisa.activation(dst=z, op=nl.copy, data=t, bias=0.5, mask=(i_p < 100))
    nl.store(o1, value=z)
    nl.store(o2, value=nisa.activation(op=nl.copy, data=t, bias=0.5))
    o3 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    s = nisa.scalar_tensor_tensor(data=t, op0=nl.multiply, operand0=2.0, op1=nl.add,
                                  operand1=t, mask=(i_f < 2))
    nl.store(o3[i_p, i_f], value=s, mask=(i_f < 2))
    return o1, o2, o3


class Masks(unittest.TestCase):
    def test_masked_bias_constant_is_whole(self):
        x = np.ones((128, 4), np.float32)
        o1, o2, o3 = nki.simulate(masked_bias, x)
        np.testing.assert_array_equal(o3[:, :2], np.full((128, 2), 3.0, np.float32))
        asm = masked_bias.trace(x).asm()
        self.assertEqual(asm.count("scalar_tensor_tensor _sbuf.fp32{ap=[[0, 128], [1, 2]]"), 1)
        want = np.zeros_like(x)
        want[:100] = 1.5
        np.testing.assert_array_equal(o1, want)
        np.testing.assert_array_equal(o2, np.full_like(x, 1.5))

    def test_all_false_masks_emit_nothing(self):
        x = np.ones((128, 8), np.float32)
        np.testing.assert_array_equal(nki.simulate(all_false, x), np.zeros_like(x))
        self.assertNotIn("tensor_scalar", all_false.trace(x).asm())

    def test_mask_cases(self):
        x = np.random.default_rng(13).random((128, 16), dtype=np.float32) + 1
        p, f = np.meshgrid(np.arange(128), np.arange(16), indexing="ij")
        for affine in (False, True):
            for lo, hi, flo, fhi in ((0, 100, 3, 9), (32, 128, 0, 16), (64, 70, 5, 6),
                                     (96, 127, 0, 1), (0, 1, 0, 16), (32, 50, 2, 14)):
                if affine:
                    m = (p * 16 + f < hi * 16 + fhi) & (p >= lo)
                else:
                    m = (p >= lo) & (p < hi) & (f >= flo) & (f < fhi)
                got = nki.simulate(masked_scale, x, lo, hi, flo, fhi, affine)
                np.testing.assert_array_equal(got, np.where(m, 2 * x, 0),
                                              err_msg=f"affine={affine} {lo}:{hi} {flo}:{fhi}")

    def test_tutorials_on_partial_tiles(self):
        # The tutorials' bounds masks at a row count that is not a multiple of 128.
        rng = np.random.default_rng(12)
        x = rng.standard_normal((300, 512), dtype=np.float32)
        g, b = rng.random(512, dtype=np.float32), rng.random(512, dtype=np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(rmsnorm.rmsnorm_tutorial, x, g, target=target),
                                       rmsnorm.reference(x, g), rtol=1e-3, atol=1e-3)
        for kernel in (layernorm.layernorm_v1, layernorm.layernorm_v2):
            np.testing.assert_allclose(nki.simulate(kernel, x, 1e-5, g, b),
                                       layernorm.reference(x, 1e-5, g, b), rtol=1e-3, atol=1e-3)

    def test_mask_off_the_tile(self):
        with self.assertRaises(nki.NkiError) as cm:
            mismatched_mask.trace(np.ones((128, 8), np.float32))
        self.assertIn("does not match", str(cm.exception))
        self.assertIn("nki_lang_mask.py:", str(cm.exception))

    def test_partial_rows(self):
        a = np.random.default_rng(0).standard_normal((300, 64), dtype=np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(partial_rows, a, target=target),
                                       np.exp(a) * 2.0, rtol=1e-5)
        asm = partial_rows.trace(a).asm()
        self.assertIn("ap=[[64, 44]", asm)  # the last tile: 300 - 256 rows
        r = nki.benchmark(partial_rows, a, target="trn2")
        self.assertGreater(r.latency_ns, 0)

    def test_partial_both(self):
        a = np.random.default_rng(1).random((200, 300), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(partial_both, a), a + 1.0)

    def test_masked_reduce(self):
        a = np.random.default_rng(2).random((128, 64), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(masked_row_sum, a),
                                   a[:, :40].sum(axis=1, keepdims=True), rtol=1e-5)

    def test_affine_mask(self):
        x = np.random.default_rng(3).random(1003, dtype=np.float32)
        want = np.zeros(128 * 8, np.float32)
        want[:1003] = x
        np.testing.assert_array_equal(nki.simulate(affine_mask_load, x), want.reshape(128, 8))
        asm = affine_mask_load.trace(x).asm()
        loads = [ln for ln in asm.splitlines() if "queue=_load" in ln]
        self.assertEqual(len(loads), 2)  # 125 whole rows, then 3 of the 126th: two boxes

    def test_masked_iota(self):
        p, f = np.meshgrid(np.arange(128), np.arange(64), indexing="ij")
        want = np.where((p >= 32) & (f >= 20), p * 64 + f, 0)
        np.testing.assert_array_equal(nki.simulate(masked_iota)(), want)  # no arguments

    def test_out_of_range_needs_mask(self):
        with self.assertRaises(nki.NkiError) as cm:
            unmasked_out_of_range.trace(np.ones((128, 8), np.float32))
        msg = str(cm.exception)
        self.assertIn("nki_lang_mask.py:", msg)
        self.assertIn("out of range", msg)
        self.assertIn("mask", msg)

    def test_affine_reduce_mask(self):
        # i_p * 4 + i_f < 300 on [128, 8]: rows 0..73 whole, 4 columns of row 74; each
        # partition's sum covers its own columns.
        a = np.random.default_rng(5).random((128, 8), dtype=np.float32)
        p, f = np.meshgrid(np.arange(128), np.arange(8), indexing="ij")
        want = np.where(p * 4 + f < 300, a, 0).sum(axis=1, keepdims=True)
        got = nki.simulate(affine_reduce_mask, a)
        np.testing.assert_allclose(got[:75], want[:75], rtol=1e-5)

    def test_non_rectangular_reduce_mask(self):
        with self.assertRaises(nki.NkiError) as cm:
            stepped_reduce_mask.trace(np.ones((128, 8), np.float32))
        self.assertIn("rectangle", str(cm.exception))
        self.assertIn("nki_lang_mask.py:", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
