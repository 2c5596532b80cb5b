"""neuronsim.nki errors name the Python file:line of the offending kernel line: tracing
errors, the assembler's and validator's errors (through the line map), and SBUF / PSUM
capacity errors."""
import os
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import line_of

HERE = os.path.abspath(__file__)


@nki.jit
def load_from_sbuf(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.load(t)  # an SBUF tile is not an HBM tensor
    nl.store(out, u)
    return out


@nki.jit
def contraction_mismatch(a, b):
    out = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.load(a)
    bt = nl.load(b)
    p = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(p, at, bt)  # K 128 vs 64: the validator refuses it
    nl.store(out, p)
    return out


@nki.jit
def sbuf_overflow(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    held = []
    for i in nl.affine_range(1):
        held.append(nl.zeros((128, 65536), dtype=nl.float32, buffer=nl.sbuf))  # 256 KiB
    nl.store(out, nl.load(a))
    return out


@nki.jit
def psum_overflow(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    banks = []
    for i in nl.affine_range(9):
        # One bank each, written at once (an nl.zeros PSUM fill is deferred to its first
        # use, which would end each tile's life before the next one starts).
        bank = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
        nisa.memset(dst=bank, value=0.0)
        banks.append(bank)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for b in banks:  # all nine are live until here: PSUM cannot spill
        acc = nl.add(acc, b)
    nl.store(out, nl.load(a))
    return out


@nki.jit
def slice_out_of_range(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a[0:128, 0:600])
    nl.store(out, t)
    return out


@nki.jit
def misspelt_keyword(a, b):
    out = nl.ndarray((a.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((a.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, nl.load(a), nl.load(b), acumulate=True)
    nl.store(out, nl.copy(ps))
    return out


@nki.jit
def ignored_hints(a, b):
    out = nl.ndarray((a.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((a.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, nl.load(a), nl.load(b), is_stationary_onezero=False, name="mm")
    nl.store(out, nl.copy(ps))
    return out


class Errors(unittest.TestCase):
    def assert_names_line(self, err, fn, text):
        self.assertTrue(str(err).startswith(f"{HERE}:{line_of(fn, text)}: "), str(err))

    def test_trace_error_names_line(self):
        with self.assertRaises(nki.NkiError) as cm:
            load_from_sbuf.trace(np.ones((128, 8), np.float32))
        self.assert_names_line(cm.exception, load_from_sbuf, "u = nl.load(t)")
        self.assertIn("HBM", str(cm.exception))

    def test_validator_error_names_line(self):
        with self.assertRaises(nki.NkiError) as cm:
            nki.simulate(contraction_mismatch, np.ones((128, 64), np.float32),
                         np.ones((64, 512), np.float32))
        self.assert_names_line(cm.exception, contraction_mismatch, "nisa.nc_matmul(p, at, bt)")
        self.assertIn("contraction K", str(cm.exception))

    def test_error_is_a_neuronsim_error(self):
        import neuronsim
        self.assertTrue(issubclass(nki.NkiError, neuronsim.Error))

    def test_sbuf_capacity(self):
        # trn2: 224 KiB per partition (reference section 1), trn1 192 KiB: a 256 KiB tile
        # fits neither, whatever else is live (docs/python.md, "Allocation").
        with self.assertRaises(nki.NkiError) as cm:
            sbuf_overflow.trace(np.ones((128, 8), np.float32), target="trn2")
        self.assert_names_line(cm.exception, sbuf_overflow, "held.append")
        self.assertIn("229376", str(cm.exception))

        with self.assertRaises(nki.NkiError) as cm:
            sbuf_overflow.trace(np.ones((128, 8), np.float32), target="trn1")
        self.assertIn("196608", str(cm.exception))

    def test_psum_capacity(self):
        # PSUM: 8 banks of 2 KiB per partition; a 9th live bank-sized tile does not fit,
        # and PSUM tiles do not spill (DMA does not reach PSUM).
        with self.assertRaises(nki.NkiError) as cm:
            psum_overflow.trace(np.ones((128, 8), np.float32))
        self.assert_names_line(cm.exception, psum_overflow, "nisa.memset(dst=bank")
        self.assertIn("PSUM", str(cm.exception))

    def test_unknown_keyword_names_line(self):
        # Python refuses an unknown keyword; so does every nisa call, rather than ignore it.
        a, b = np.ones((128, 64), np.float32), np.ones((128, 512), np.float32)
        with self.assertRaises(nki.NkiError) as cm:
            misspelt_keyword.trace(a, b)
        self.assert_names_line(cm.exception, misspelt_keyword, "acumulate=True")
        self.assertIn("nc_matmul: unexpected keyword argument 'acumulate'", str(cm.exception))
        # The page's parameters neuronsim has no use for are taken.
        np.testing.assert_allclose(nki.simulate(ignored_hints, a, b), a.T @ b)

    def test_slice_out_of_range(self):
        with self.assertRaises(nki.NkiError) as cm:
            slice_out_of_range.trace(np.ones((128, 512), np.float32))
        self.assert_names_line(cm.exception, slice_out_of_range, "nl.load(a[0:128, 0:600])")


if __name__ == "__main__":
    unittest.main()
