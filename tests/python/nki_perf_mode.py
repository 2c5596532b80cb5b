"""nisa.nc_matmul's perf_mode (NKI's nki.isa.nc_matmul and nki.isa.matmul_perf_mode pages;
the Trainium2 architecture guide, "Double FP8 Matmul Performance"): double_row contracts
stationary [K, 2, M] with moving [K, 2, N] into dst [M, N] on trn2 (the guide's call, and
nki-samples' double_row_matmul spelling 'double_row_gen3' with += accumulation), checked
against numpy; trn1, non-fp8 inputs and other shapes are refused."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def double_row_dst(a, b):
    # The guide's form: stationary [128, 2, 128], moving [128, 2, 512], dst [128, 512].
    out = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray(a.shape, dtype=nl.float8_e4m3, buffer=nl.sbuf)
    mv = nl.ndarray(b.shape, dtype=nl.float8_e5m2, buffer=nl.sbuf)
    st[...] = nl.load(a)
    mv[...] = nl.load(b)
    ps = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, st, mv, perf_mode=nisa.matmul_perf_mode.double_row)
    nl.store(out, nl.copy(ps))
    return out


@nki.jit
def double_row_gen3_accumulate(a, b):
    # nki-samples' double_row_matmul: res += nisa.nc_matmul(..., perf_mode='double_row_gen3')
    # over two K tiles of [128, 2, F] each (a 512-deep contraction).
    out = nl.ndarray((a.shape[3], b.shape[3]), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.zeros((a.shape[3], b.shape[3]), dtype=nl.float32, buffer=nl.psum)
    for t in nl.affine_range(a.shape[0]):
        st = nl.ndarray(a.shape[1:], dtype=nl.float8_e4m3, buffer=nl.sbuf)
        mv = nl.ndarray(b.shape[1:], dtype=nl.float8_e4m3, buffer=nl.sbuf)
        st[...] = nl.load(a[t])
        mv[...] = nl.load(b[t])
        res += nisa.nc_matmul(st, mv, perf_mode="double_row_gen3")
    nl.store(out, nl.copy(res))
    return out


@nki.jit
def double_row_bf16(a, b):
    out = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    mv = nl.ndarray(b.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    st[...] = nl.load(a)
    mv[...] = nl.load(b)
    nl.store(out, nl.copy(nisa.nc_matmul(st, mv, perf_mode="double_row")))
    return out


@nki.jit
def double_row_2d(a, b):
    out = nl.ndarray((a.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray(a.shape, dtype=nl.float8_e4m3, buffer=nl.sbuf)
    mv = nl.ndarray(b.shape, dtype=nl.float8_e4m3, buffer=nl.sbuf)
    st[...] = nl.load(a)
    mv[...] = nl.load(b)
    nl.store(out, nl.copy(nisa.nc_matmul(st, mv, perf_mode="double_row")))
    return out


def fp8_values(rng, shape):
    # Small multiples of 1/4: exact in fp8_e4m3 and fp8_e5m2, and their sums in fp32.
    return (rng.integers(-8, 9, size=shape) / 4).astype(np.float32)


def double_row_reference(a, b):
    # dst[m, n] = sum over k, r of a[k, r, m] * b[k, r, n]
    return np.einsum("krm,krn->mn", a.astype(np.float64), b.astype(np.float64))


class DoubleRow(unittest.TestCase):
    def test_guide_form_matches_numpy_on_trn2_and_trn3(self):
        rng = np.random.default_rng(1)
        a, b = fp8_values(rng, (128, 2, 128)), fp8_values(rng, (128, 2, 512))
        for target in ("trn2", "trn3"):
            with self.subTest(target=target):
                got = nki.simulate(double_row_dst, a, b, target=target)
                np.testing.assert_array_equal(got, double_row_reference(a, b))

    def test_samples_spelling_accumulates(self):
        rng = np.random.default_rng(2)
        a, b = fp8_values(rng, (2, 128, 2, 64)), fp8_values(rng, (2, 128, 2, 256))
        got = nki.simulate(double_row_gen3_accumulate, a, b, target="trn2")
        want = sum(double_row_reference(a[t], b[t]) for t in range(2))
        np.testing.assert_array_equal(got, want)
        asm = double_row_gen3_accumulate.trace(a, b, target="trn2").asm()
        self.assertIn("perf_mode=double_row", asm)
        self.assertIn("acc=first", asm)

    def test_benchmarks_on_trn2(self):
        rng = np.random.default_rng(3)
        a, b = fp8_values(rng, (128, 2, 128)), fp8_values(rng, (128, 2, 512))
        self.assertGreater(nki.benchmark(double_row_dst, a, b, target="trn2").latency_ns, 0)

    def test_trn1_has_no_performance_mode(self):
        rng = np.random.default_rng(4)
        a, b = fp8_values(rng, (128, 2, 128)), fp8_values(rng, (128, 2, 512))
        with self.assertRaisesRegex(Exception, "double_row is not available on this target"):
            nki.simulate(double_row_dst, a, b, target="trn1")

    def test_refused_dtype_and_shape(self):
        rng = np.random.default_rng(5)
        a, b = fp8_values(rng, (128, 2, 64)), fp8_values(rng, (128, 2, 128))
        with self.assertRaisesRegex(Exception, "FP8 double performance mode"):
            nki.simulate(double_row_bf16, a, b, target="trn2")
        with self.assertRaisesRegex(nki.NkiError, r"needs stationary shaped \[K, 2, F\]"):
            nki.simulate(double_row_2d, a.reshape(128, 128), b.reshape(128, 256), target="trn2")
        with self.assertRaisesRegex(nki.NkiError, "is not a matmul_perf_mode"):
            nisa_call_with_bad_mode(a, b)


@nki.jit
def bad_mode(a, b):
    out = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.load(a)
    mv = nl.load(b)
    nl.store(out, nl.copy(nisa.nc_matmul(st, mv, perf_mode="quad_row")))
    return out


def nisa_call_with_bad_mode(a, b):
    return nki.simulate(bad_mode, a, b, target="trn2")


if __name__ == "__main__":
    unittest.main()
