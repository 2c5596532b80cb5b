"""nc_matmul with OCP fp8 (float8_e4m3fn) inputs on NeuronCore-v4 (the nc_matmul page,
"Data types": "Starting NeuronCore-v4, float8_e4m3fn (OCP FP8) is also supported;
float8_e4m3 (legacy) and float8_e4m3fn cannot be mixed in the same matmul"): on trn3 a
kernel matches numpy (small integers, exact in fp8 and in the fp32 sum) and benchmarks;
mixing it with legacy float8_e4m3 is an error at the kernel's line, and trn2 refuses the
dtype."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def fp8_matmul(a_t, b, st_dtype=nl.float8_e4m3fn, mv_dtype=nl.float8_e4m3fn):
    k, m = a_t.shape
    n = b.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    a32 = nl.load(a_t)
    b32 = nl.load(b)
    st = nl.ndarray((k, m), dtype=st_dtype, buffer=nl.sbuf)
    mv = nl.ndarray((k, n), dtype=mv_dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=st, src=a32)
    nisa.tensor_copy(dst=mv, src=b32)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=st, moving=mv)
    nl.store(out, nl.copy(ps))
    return out


class MatmulE4m3fn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(3)
        cls.a_t = rng.integers(-3, 4, (128, 128)).astype(np.float32)
        cls.b = rng.integers(-3, 4, (128, 512)).astype(np.float32)

    def test_trn3_matches_numpy(self):
        got = nki.simulate(fp8_matmul, self.a_t, self.b, target="trn3")
        np.testing.assert_array_equal(got, self.a_t.T @ self.b)
        got = nki.simulate(fp8_matmul, self.a_t, self.b, mv_dtype=nl.float8_e5m2, target="trn3")
        np.testing.assert_array_equal(got, self.a_t.T @ self.b)
        self.assertGreater(nki.benchmark(fp8_matmul, self.a_t, self.b, target="trn3").latency_ns, 0)

    def test_mixing_legacy_e4m3_is_an_error(self):
        with self.assertRaisesRegex(nki.NkiError, r"nki_matmul_e4m3fn.py:[0-9]+.*mix legacy "
                                    r"fp8_e4m3 with OCP fp8_e4m3fn"):
            nki.simulate(fp8_matmul, self.a_t, self.b, st_dtype=nl.float8_e4m3, target="trn3")

    def test_trn2_refuses_the_dtype(self):
        with self.assertRaisesRegex(nki.NkiError, r"nki_matmul_e4m3fn.py:[0-9]+.*(?i:e4m3fn)"):
            nki.simulate(fp8_matmul, self.a_t, self.b, target="trn2")


if __name__ == "__main__":
    unittest.main()
