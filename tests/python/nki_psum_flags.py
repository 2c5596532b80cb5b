"""psum_accumulate_flag of nisa.nc_matmul and nisa.nc_matmul_mx (the current NKI pages,
"Memory types"; the Trainium3 guide spells it psum_accumulate_flags): bit 0 first of a
group and overwrite, bit 1 last, bit 2 first and accumulate onto what the PSUM tile holds,
0 a middle matmul; the default 3 a one-matmul group. Kernels written with it match numpy on
trn1 and trn2; contradictory or out-of-range flags are errors at the kernel's line."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def k_loop(a_t, b, spelling="psum_accumulate_flag"):
    # out = a_t.T @ b over 128-deep K tiles: flag 1 (first), 0 (middle), 2 (last).
    k, m = a_t.shape
    n = b.shape[1]
    tiles = k // 128
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    for t in range(tiles):
        st = nl.load(a_t[t * 128:(t + 1) * 128, :])
        mv = nl.load(b[t * 128:(t + 1) * 128, :])
        flag = (1 if t == 0 else 0) | (2 if t == tiles - 1 else 0)
        nisa.nc_matmul(ps, st, mv, **{spelling: flag})
    nl.store(out, nl.copy(ps))
    return out


@nki.jit
def continue_group(a_t, b):
    # First group: a_t[0:128].T @ b[0:128] (flag 3), copied out (that read closes it);
    # then flag 4 (first, accumulate onto the tile) adds a_t[128:256].T @ b[128:256] and
    # flag 2 the third K tile: the second output is the whole product.
    m, n = a_t.shape[1], b.shape[1]
    first = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    total = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    sts = [nl.load(a_t[t * 128:(t + 1) * 128, :]) for t in range(3)]
    mvs = [nl.load(b[t * 128:(t + 1) * 128, :]) for t in range(3)]
    nisa.nc_matmul(ps, sts[0], mvs[0], psum_accumulate_flag=3)
    nl.store(first, nl.copy(ps))
    nisa.nc_matmul(ps, sts[1], mvs[1], psum_accumulate_flag=4)
    nisa.nc_matmul(ps, sts[2], mvs[2], psum_accumulate_flag=2)
    nl.store(total, nl.copy(ps))
    return first, total


@nki.jit
def one(a_t, b, **flags):
    out = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, nl.load(a_t), nl.load(b), **flags)
    nl.store(out, nl.copy(ps))
    return out


@nki.jit
def bf16_psum(a_t, b):
    # Two 128-deep matmuls accumulating into a bf16 PSUM tile (NeuronCore-v4: "dst can
    # either be a float32 or bfloat16 tile"), read out as fp32.
    m, n = a_t.shape[1], b.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((m, n), dtype=nl.bfloat16, buffer=nl.psum)
    for t in range(2):
        nisa.nc_matmul(ps, nl.load(a_t[t * 128:(t + 1) * 128, :]),
                       nl.load(b[t * 128:(t + 1) * 128, :]), psum_accumulate_flag=1 + t)
    nl.store(out, nl.copy(ps, dtype=nl.float32))
    return out


def to_bf16(x):
    """fp32 -> bf16 (round to nearest even), as fp32 values."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


class PsumAccumulateFlag(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(3)
        self.a_t = rng.standard_normal((384, 64)).astype(np.float32)
        self.b = rng.standard_normal((384, 256)).astype(np.float32)

    def test_first_middle_last_match_numpy(self):
        want = self.a_t.T @ self.b
        for target in ("trn1", "trn2"):
            for spelling in ("psum_accumulate_flag", "psum_accumulate_flags"):
                with self.subTest(target=target, spelling=spelling):
                    got = nki.simulate(k_loop, self.a_t, self.b, spelling, target=target)
                    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)

    def test_bit_2_accumulates_onto_the_tile(self):
        first, total = nki.simulate(continue_group, self.a_t, self.b, target="trn2")
        np.testing.assert_allclose(first, self.a_t[:128].T @ self.b[:128], rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(total, self.a_t.T @ self.b, rtol=1e-4, atol=1e-3)

    def test_bf16_psum_on_trn3_only(self):
        # The Trainium3 guide: the sum stays fp32 in the array and is rounded to bf16 as it
        # is written; the second matmul adds its fp32 sum onto the bf16 value, rounded again.
        a, b = self.a_t[:256], self.b[:256]
        first = to_bf16(a[:128].T @ b[:128])
        want = to_bf16(first + a[128:].T @ b[128:])
        got = nki.simulate(bf16_psum, a, b, target="trn3")
        # Every value is a bf16 (its low 16 bits zero), within one bf16 ulp of the reference
        # (the array's fp32 summation order is not numpy's, which may flip a rounding).
        self.assertTrue(np.all(got.view(np.uint32) & 0xFFFF == 0))
        np.testing.assert_allclose(got, want, rtol=2.0 ** -7, atol=1e-2)
        with self.assertRaisesRegex(Exception, "tensor.matmul_bf16_dst is false"):
            nki.simulate(bf16_psum, a, b, target="trn2")

    def test_benchmarks(self):
        self.assertGreater(nki.benchmark(k_loop, self.a_t, self.b, target="trn2").latency_ns, 0)

    def test_bad_flags_are_errors_at_the_kernel_line(self):
        a, b = self.a_t[:128], self.b[:128]
        where = "nki_psum_flags.py:[0-9]+.*"
        with self.assertRaisesRegex(nki.NkiError, where + "bit 0 .* and bit 2 .* contradict"):
            nki.simulate(one, a, b, psum_accumulate_flag=5, target="trn2")
        with self.assertRaisesRegex(nki.NkiError, where + "8 is not a 3-bit flag"):
            nki.simulate(one, a, b, psum_accumulate_flag=8, target="trn2")
        with self.assertRaisesRegex(nki.NkiError, where + "give one of accumulate="):
            nki.simulate(one, a, b, psum_accumulate_flag=3, accumulate=True, target="trn2")


if __name__ == "__main__":
    unittest.main()
