"""Accumulation by `+=` (NKI matmul tutorial; pages nki.language.matmul and
nki.isa.nc_matmul): `res_psum += nl.matmul(...)` and `res_psum[...] += nisa.nc_matmul(...)`
accumulate in PSUM; `+=` on SBUF tiles adds in place. Against numpy, trn1 and trn2."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
import neuronsim.nki.isa as nisa


@nki.jit
def matmul_zeros_acc(lhsT, rhs):
    # The tutorial's form: a zeroed PSUM tile, one matmul per K tile added into it.
    K, M = lhsT.shape
    N = rhs.shape[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res_psum = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        lhsT_tile = nl.load(lhsT[k * 128:(k + 1) * 128, :])
        rhs_tile = nl.load(rhs[k * 128:(k + 1) * 128, :])
        res_psum += nl.matmul(lhsT_tile, rhs_tile, transpose_x=True)
    nl.store(out, value=nl.copy(res_psum, dtype=nl.float32))
    return out


@nki.jit
def matmul_isa_acc(lhsT, rhs):
    # nisa.nc_matmul into an unwritten nl.ndarray, by res[...] += (NKI's ISA form).
    K, M = lhsT.shape
    N = rhs.shape[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        stationary = nl.load(lhsT[nl.ds(k * 128, 128), :])
        moving = nl.load(rhs[nl.ds(k * 128, 128), :])
        res[...] += nisa.nc_matmul(stationary, moving)
    nl.store(out, value=nl.copy(res))
    return out


@nki.jit
def matmul_read_between(lhsT, rhs):
    # The PSUM tile is read after the first half of K; the second half adds to it.
    K, M = lhsT.shape
    N = rhs.shape[1]
    half = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    full = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    tiles = K // 128
    for k in nl.affine_range(tiles):
        res += nl.matmul(nl.load(lhsT[k * 128:(k + 1) * 128, :]),
                         nl.load(rhs[k * 128:(k + 1) * 128, :]), transpose_x=True)
        if k == tiles // 2 - 1:
            nl.store(half, value=nl.copy(res))
    nl.store(full, value=nl.copy(res))
    return half, full


@nki.jit
def zeros_read_first(lhsT, rhs):
    K, M = lhsT.shape
    N = rhs.shape[1]
    before = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    after = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    nl.store(before, value=nl.copy(res))
    for k in nl.affine_range(K // 128):
        res += nl.matmul(nl.load(lhsT[k * 128:(k + 1) * 128, :]),
                         nl.load(rhs[k * 128:(k + 1) * 128, :]), transpose_x=True)
    nl.store(after, value=nl.copy(res))
    return before, after


@nki.jit
def sbuf_inplace(a, b):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    ta, tb = nl.load(a), nl.load(b)
    acc += ta
    acc += tb
    acc *= 0.5
    acc -= 1.0
    col = nl.load(b[:, 0:1])
    acc += col  # a [P, 1] tile: one tensor_scalar
    nl.store(out, value=acc)
    return out


@nki.jit
def psum_plus_psum(a, b):
    # The matmul is not the last instruction before `+=`: a Vector add, the PSUM value
    # copied to SBUF first (an instruction reads at most one PSUM input).
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
    ta, tb = nl.load(a), nl.load(b)
    tmp = nl.matmul(ta, tb, transpose_x=True)
    e = nl.exp(ta)
    res += tmp
    res += e
    nl.store(out, value=nl.copy(res))
    return out


class PsumAccumulation(unittest.TestCase):
    def test_psum_plus_psum(self):
        rng = np.random.default_rng(5)
        a, b = rng.random((128, 128), dtype=np.float32), rng.random((128, 128), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(psum_plus_psum, a, b), a.T @ b + np.exp(a),
                                   rtol=1e-4)

    def setUp(self):
        rng = np.random.default_rng(3)
        self.lhsT = rng.standard_normal((512, 128), dtype=np.float32)
        self.rhs = rng.standard_normal((512, 512), dtype=np.float32)
        self.want = self.lhsT.T.astype(np.float64) @ self.rhs

    def check(self, kernel):
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(kernel, self.lhsT, self.rhs, target=target),
                                       self.want, rtol=1e-4, atol=1e-3)
        asm = kernel.trace(self.lhsT, self.rhs).asm()
        tensor = asm.split("tensor:")[1].split("\n\n")[0]
        self.assertEqual(tensor.count("matmul "), 4)
        self.assertNotIn("tensor_tensor", asm)  # no Vector adds: PSUM accumulates
        return asm

    def test_zeros_then_plus_equals(self):
        asm = self.check(matmul_zeros_acc)
        # The zeroed tile lets the first matmul start the group; its fill is not traced.
        self.assertNotIn("memset", asm)
        self.assertIn("acc=first", asm)
        self.assertIn("acc=last", asm)

    def test_isa_plus_equals(self):
        asm = self.check(matmul_isa_acc)
        self.assertIn("acc=first", asm)

    def test_zeros_read_before_accumulating(self):
        # A zeroed PSUM tile read before any `+=`: the fill is traced where it is needed.
        out = nki.simulate(zeros_read_first, self.lhsT, self.rhs)
        np.testing.assert_allclose(out[0], np.zeros((128, 512)), atol=0)
        np.testing.assert_allclose(out[1], self.want, rtol=1e-4, atol=1e-3)

    def test_read_between_keeps_adding(self):
        half, full = nki.simulate(matmul_read_between, self.lhsT, self.rhs)
        want_half = self.lhsT[:256].T.astype(np.float64) @ self.rhs[:256]
        np.testing.assert_allclose(half, want_half, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(full, self.want, rtol=1e-4, atol=1e-3)

    def test_benchmark(self):
        r = nki.benchmark(matmul_zeros_acc, self.lhsT, self.rhs, target="trn2")
        self.assertGreater(r.latency_ns, 0)

    def test_sbuf_inplace(self):
        rng = np.random.default_rng(4)
        a = rng.random((128, 64), dtype=np.float32)
        b = rng.random((128, 64), dtype=np.float32)
        want = (a + b) * 0.5 - 1.0 + b[:, 0:1]
        for target in ("trn1", "trn2"):
            np.testing.assert_allclose(nki.simulate(sbuf_inplace, a, b, target=target), want,
                                       rtol=1e-6)


if __name__ == "__main__":
    unittest.main()
