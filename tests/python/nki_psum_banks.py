"""nc_matmul's moving free size across PSUM banks (the nc_matmul page, "Tile size": up to
512 fp32 on NeuronCore-v2 and -v3, one bank; "Starting NeuronCore-v4, ... up to 4096 for
float32 dst or 8192 for bfloat16 dst, matching the size of 8x PSUM banks (the entire
PSUM)"). On trn3 a kernel that multiplies into a [128, 2048] or [128, 4096] fp32 PSUM
tile matches numpy and benchmarks; trn1 and trn2 refuse it at the kernel's line."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def wide(a_t, b):
    # out = a_t.T @ b with one matmul per 128-deep K tile into one PSUM tile N wide.
    k, m = a_t.shape
    n = b.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    for t in range(k // 128):
        st = nl.load(a_t[t * 128:(t + 1) * 128, :])
        mv = nl.load(b[t * 128:(t + 1) * 128, :])
        nisa.nc_matmul(dst=ps, stationary=st, moving=mv)
    res = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nl.store(out, res)
    return out


class PsumBanks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(7)
        cls.a_t = rng.standard_normal((256, 128), dtype=np.float32)
        cls.b = rng.standard_normal((256, 4096), dtype=np.float32)

    def test_trn3_multiplies_across_banks(self):
        for n in (2048, 4096):
            with self.subTest(n=n):
                b = self.b[:, :n]
                got = nki.simulate(wide, self.a_t, b, target="trn3")
                np.testing.assert_allclose(got, self.a_t.T @ b, rtol=1e-4, atol=1e-3)

    def test_trn3_benchmarks(self):
        r = nki.benchmark(wide, self.a_t, self.b[:, :2048], target="trn3")
        self.assertGreater(r.latency_ns, 0)

    def test_v2_v3_keep_one_bank(self):
        for target in ("trn1", "trn2"):
            with self.subTest(target=target):
                with self.assertRaisesRegex(
                        nki.NkiError, r"nki_psum_banks.py:[0-9]+.*N = moving free size 2048 "
                        r"exceeds matmul_max_n 512"):
                    nki.simulate(wide, self.a_t, self.b[:, :2048], target=target)


if __name__ == "__main__":
    unittest.main()
