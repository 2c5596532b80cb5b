"""nisa.reciprocal, tensor_partition_reduce, dropout, dma_transpose, get_nc_version,
max8, nc_find_index8 and nc_match_replace8 (NKI's nki.isa pages of the same names), each kernel written here in the documented API
(both NKI's current dst-first form and its earlier returning form), checked against numpy
and benchmarked on trn1 and trn2."""
import os
import unittest

import numpy as np

import neuronsim
from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import line_of

HERE = os.path.abspath(__file__)
TARGETS = ("trn1", "trn2")


# --- kernels --------------------------------------------------------------------------------

@nki.jit
def reciprocal_kernel(x):
    # NKI's current form: reciprocal(dst, data)
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    r = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.reciprocal(dst=r, data=nl.load(x))
    nl.store(out, r)
    return out


@nki.jit
def reciprocal_returning(x):
    # NKI's earlier form: y = nisa.reciprocal(x, dtype=...)
    out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    y = nisa.reciprocal(nl.load(x), dtype=nl.bfloat16)
    nl.store(out, y)
    return out


@nki.jit
def partition_sum(a):
    # The page's example 1: a (128, 32, 4) tile reduced to (1, 32, 4).
    out = nl.ndarray((1, 32, 4), dtype=a.dtype, buffer=nl.shared_hbm)
    b = nisa.tensor_partition_reduce(np.add, nl.load(a))
    nl.store(out, b)
    return out


@nki.jit
def partition_max(a):
    out = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    m = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_partition_reduce(dst=m, op=nl.max, data=nl.load(a))
    nl.store(out, m)
    return out


@nki.jit
def partition_or(a):
    out = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nisa.tensor_partition_reduce(np.bitwise_or, nl.load(a)))
    return out


@nki.jit
def dropout_kernel(x, p):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    d = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dropout(dst=d, data=nl.load(x), prob=p)
    nl.store(out, d)
    return out


@nki.jit
def dropout_per_partition(x, prob):
    # The earlier form, with a (P, 1) tile of drop probabilities.
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, nisa.dropout(nl.load(x), nl.load(prob)))
    return out


@nki.jit
def transpose_2d(a):
    out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=a)
    nl.store(out, t)
    return out


@nki.jit
def transpose_3d(a):
    # the earlier returning form; a 3-D tile's permutation is (2, 1, 0)
    x, y, z = a.shape
    out = nl.ndarray((z, y, x), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nisa.dma_transpose(a, axes=(2, 1, 0)))
    return out


@nki.jit
def version_kernel(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    if nisa.get_nc_version() == nisa.nc_version.gen2:
        nl.store(out, nl.add(t, 2.0))
    else:
        nl.store(out, nl.add(t, 3.0))
    return out


@nki.jit
def top8_with_indices(x):
    # NKI's example: the 8 largest values of each row, then their indices.
    vals_out = nl.ndarray((x.shape[0], 8), dtype=x.dtype, buffer=nl.shared_hbm)
    idx_out = nl.ndarray((x.shape[0], 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    data = nl.load(x)
    top = nisa.max8(src=data)
    idx = nisa.nc_find_index8(data=data, vals=top)
    nl.store(vals_out, top)
    nl.store(idx_out, idx)
    return vals_out, idx_out


@nki.jit
def top16(x):
    # Top-16 per row: max8, replace those by -inf (recording where), max8 again.
    out = nl.ndarray((x.shape[0], 16), dtype=nl.float32, buffer=nl.shared_hbm)
    pos = nl.ndarray((x.shape[0], 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    data = nl.load(x)
    first = nl.ndarray((x.shape[0], 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=first, src=data)
    rest = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    where = nl.ndarray((x.shape[0], 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_match_replace8(dst=rest, data=data, vals=first, imm=float("-inf"), dst_idx=where)
    second = nisa.max8(src=rest)
    nl.store(out[:, 0:8], first)
    nl.store(out[:, 8:16], second)
    nl.store(pos, where)
    return out, pos


@nki.jit
def copy_where(dst_init, src, pred):
    out = nl.ndarray(dst_init.shape, dtype=dst_init.dtype, buffer=nl.shared_hbm)
    d = nl.load(dst_init)
    nisa.tensor_copy_predicated(dst=d, src=nl.load(src), predicate=nl.load(pred))
    e = nl.load(dst_init)
    nisa.tensor_copy_predicated(dst=e, src=-5.0, predicate=nl.load(pred), reverse_pred=True)
    nl.store(out, nl.add(d, e))
    return out


# --- neuronsim's generator (docs/numerics.md "dropout"), written out independently -------

M64 = (1 << 64) - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def uniform01(seed, partitions, free):
    out = np.empty((partitions, free), np.float32)
    for p in range(partitions):
        row = _mix(((seed & 0xFFFFFFFF) << 32) | p)
        for j in range(free):
            out[p, j] = np.float32(_mix((row + 0x9E3779B97F4A7C15 * (j + 1)) & M64) >> 40) / 16777216
    return out


# --- tests ----------------------------------------------------------------------------------

class Opcodes(unittest.TestCase):
    def test_engines_are_the_pages(self):
        # The C++ opcode table (isa/instruction.hpp), as the front end reads it.
        engines = neuronsim._core.opcode_engines()
        for opcode, engine in (("reciprocal", "vector"), ("tensor_partition_reduce", "gpsimd"),
                               ("dropout", "vector"), ("max8", "vector"),
                               ("find_index8", "vector"), ("match_replace8", "vector")):
            self.assertEqual(engines[opcode], (engine,))


class Reciprocal(unittest.TestCase):
    def test_fp32_and_bf16_on_each_target(self):
        rng = np.random.default_rng(3)
        x = (rng.uniform(0.1, 8.0, (128, 512)) * rng.choice([-1, 1], (128, 512))).astype(np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                got = nki.simulate(reciprocal_kernel, x, target=target)
                np.testing.assert_array_equal(got, np.float32(1) / x)  # fp32 division, exact
                bf = nki.simulate(reciprocal_returning, x, target=target).astype(np.float32)
                np.testing.assert_allclose(bf, 1 / x, rtol=2 ** -8)

    def test_its_own_instruction_priced_8n(self):
        x = np.ones((128, 512), np.float32)
        traced = reciprocal_kernel.trace(x, target="trn1")
        self.assertIn("reciprocal ", traced.asm())
        self.assertNotIn("tensor_scalar", traced.asm())
        # NKI reciprocal: max(MIN_II, 8N) Vector cycles; N = 512 at 1.12 GHz on trn1 is
        # 4096 cycles = 3657 ns, so the kernel takes longer than that.
        for target in TARGETS:
            r = nki.benchmark(reciprocal_kernel, x, target=target)
            self.assertGreater(r.latency_ns, 3000 if target == "trn1" else 0)


class TensorPartitionReduce(unittest.TestCase):
    def test_add_of_the_pages_example(self):
        a = np.random.default_rng(5).uniform(-1, 1, (128, 32, 4)).astype(np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                got = nki.simulate(partition_sum, a, target=target)
                want = a[0].copy()
                for p in range(1, 128):  # fp32, in partition order
                    want = (want + a[p]).astype(np.float32)
                np.testing.assert_array_equal(got, want[None])

    def test_max_and_bitwise_or(self):
        a = np.random.default_rng(6).standard_normal((96, 200)).astype(np.float32)
        np.testing.assert_array_equal(nki.simulate(partition_max, a), a.max(axis=0, keepdims=True))
        bits = (1 << (np.arange(64 * 8).reshape(64, 8) % 31)).astype(np.int32)
        np.testing.assert_array_equal(nki.simulate(partition_or, bits, target="trn1"),
                                      np.bitwise_or.reduce(bits, axis=0, keepdims=True))

    def test_benchmarks_on_gpsimd(self):
        a = np.ones((128, 32, 4), np.float32)
        for target in TARGETS:
            r = nki.benchmark(partition_sum, a, target=target)
            self.assertGreater(r.latency_ns, 0)


class Dropout(unittest.TestCase):
    def test_mask_is_neuronsims_generator(self):
        rng = np.random.default_rng(8)
        x = rng.uniform(1.0, 2.0, (128, 64)).astype(np.float32)
        # The kernel's first dropout draws with seed 0 (no nl.random_seed).
        keep = uniform01(0, 128, 64) >= np.float32(0.3)
        for target in TARGETS:
            with self.subTest(target=target):
                got = nki.simulate(dropout_kernel, x, 0.3, target=target)
                np.testing.assert_array_equal(got, np.where(keep, x, 0))
                self.assertAlmostEqual(float((got == 0).mean()), 0.3, delta=0.03)
        # Same inputs, same bits.
        np.testing.assert_array_equal(nki.simulate(dropout_kernel, x, 0.3), np.where(keep, x, 0))

    def test_probabilities_zero_one_and_per_partition(self):
        x = np.random.default_rng(9).uniform(1.0, 2.0, (128, 256)).astype(np.float32)
        np.testing.assert_array_equal(nki.simulate(dropout_kernel, x, 0.0), x)
        np.testing.assert_array_equal(nki.simulate(dropout_kernel, x, 1.0), np.zeros_like(x))
        prob = (np.arange(128) % 2).astype(np.float32)[:, None]  # odd partitions drop all
        got = nki.simulate(dropout_per_partition, x, prob, target="trn1")
        np.testing.assert_array_equal(got[0::2], x[0::2])
        np.testing.assert_array_equal(got[1::2], 0)

    def test_bf16_data_and_benchmark(self):
        x = np.ones((128, 512), np.float32)
        for target in TARGETS:
            r = nki.benchmark(dropout_kernel, x, 0.5, target=target)
            self.assertGreater(r.latency_ns, 0)

    def test_bad_probability_names_the_line(self):
        x = np.ones((128, 8), np.float32)
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(dropout_kernel, x, 1.5)
        self.assertIn(f"{HERE}:{line_of(dropout_kernel.fn, 'nisa.dropout(')}:", str(cm.exception))
        self.assertIn("not a probability in [0, 1]", str(cm.exception))


class DmaTranspose(unittest.TestCase):
    def test_2d_and_3d(self):
        a = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
        b = np.random.default_rng(10).standard_normal((4, 8, 16)).astype(np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(transpose_2d, a, target=target), a.T)
                np.testing.assert_array_equal(nki.simulate(transpose_3d, b, target=target),
                                              b.transpose(2, 1, 0))
                self.assertGreater(nki.benchmark(transpose_2d, a, target=target).latency_ns, 0)

    def test_sbuf_to_sbuf(self):
        # The earlier page's example 2 (SB->SB): through an HBM scratch tensor.
        @nki.jit
        def from_sbuf(a):
            out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, nisa.dma_transpose(nl.load(a)))
            return out
        for shape in ((4, 32), (48, 16)):
            a = np.random.default_rng(11).standard_normal(shape).astype(np.float32)
            np.testing.assert_array_equal(nki.simulate(from_sbuf, a), a.T)
        self.assertEqual(from_sbuf.trace(np.ones((4, 32), np.float32)).asm().count("dma_copy"), 4)

    def test_hardware_transpose_of_2_byte_data(self):
        # trn2's DMA engines transpose 2-byte data (nki-arch-v3): one dma_copy with
        # transpose=true, from HBM or from SBUF; trn1's do not (the element-wise lowering).
        @nki.jit
        def from_sbuf(a):
            out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_transpose(dst=t, src=nl.load(a))
            nl.store(out, t)
            return out
        a = (np.arange(96 * 128) % 251).astype(np.float32).reshape(96, 128)  # exact in bf16
        for kernel in (transpose_2d, from_sbuf):
            for target in TARGETS:
                with self.subTest(kernel=kernel.fn.__name__, target=target):
                    x = nki.typed(a, nl.bfloat16)
                    np.testing.assert_array_equal(nki.simulate(kernel, x, target=target), a.T)
                    asm = kernel.trace(x, target=target).asm()
                    self.assertEqual(asm.count("transpose=true"), 1 if target == "trn2" else 0)
        # One instruction, no scratch tensor: load, transpose and store are three DMAs.
        self.assertEqual(from_sbuf.trace(nki.typed(a, nl.bfloat16), target="trn2").asm()
                         .count("dma_copy"), 3)

    def test_psum_source_is_refused(self):
        @nki.jit
        def from_psum(a):
            out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
            p = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.psum)
            nisa.tensor_copy(dst=p, src=nl.load(a))
            nl.store(out, nisa.dma_transpose(p))
            return out
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(from_psum, np.ones((4, 8), np.float32))
        self.assertIn(f"{HERE}:{line_of(from_psum.fn, 'nisa.dma_transpose(')}:", str(cm.exception))
        self.assertIn("nc_transpose", str(cm.exception))


class Top8(unittest.TestCase):
    def test_max8_and_find_index8(self):
        rng = np.random.default_rng(12)
        x = np.stack([rng.permutation(256) for _ in range(128)]).astype(np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                vals, idx = nki.simulate(top8_with_indices, x, target=target)
                want = -np.sort(-x, axis=1)[:, :8]
                np.testing.assert_array_equal(vals, want)
                np.testing.assert_array_equal(idx, np.argsort(-x, axis=1, kind="stable")[:, :8])
                self.assertGreater(nki.benchmark(top8_with_indices, x, target=target).latency_ns, 0)

    def test_top16_by_match_replace8(self):
        rng = np.random.default_rng(13)
        x = rng.standard_normal((64, 300)).astype(np.float32)
        out, pos = nki.simulate(top16, x)
        np.testing.assert_array_equal(out, -np.sort(-x, axis=1)[:, :16])
        np.testing.assert_array_equal(pos, np.argsort(-x, axis=1, kind="stable")[:, :8])

    def test_size_limits_name_the_line(self):
        @nki.jit
        def too_small(x):
            out = nl.ndarray((x.shape[0], 8), dtype=x.dtype, buffer=nl.shared_hbm)
            nl.store(out, nisa.max8(src=nl.load(x)))
            return out
        with self.assertRaises(neuronsim.Error) as cm:
            nki.simulate(too_small, np.ones((4, 4), np.float32))
        self.assertIn(f"{HERE}:{line_of(too_small.fn, 'nisa.max8(')}:", str(cm.exception))
        self.assertIn("between 8 and 16384", str(cm.exception))


class TensorCopyPredicated(unittest.TestCase):
    def test_tile_and_number_sources(self):
        rng = np.random.default_rng(14)
        base = rng.standard_normal((128, 64)).astype(np.float32)
        src = rng.standard_normal((128, 64)).astype(np.float32)
        pred = (rng.uniform(size=(128, 64)) < 0.5).astype(np.uint8)
        want = np.where(pred != 0, src, base) + np.where(pred == 0, np.float32(-5), base)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_array_equal(nki.simulate(copy_where, base, src, pred,
                                                           target=target), want)


class NcVersion(unittest.TestCase):
    def test_version_of_each_target(self):
        x = np.zeros((4, 4), np.float32)
        np.testing.assert_array_equal(nki.simulate(version_kernel, x, target="trn1"), x + 2)
        np.testing.assert_array_equal(nki.simulate(version_kernel, x, target="trn2"), x + 3)
        self.assertEqual(nisa.nc_version.gen3, 3)
        with self.assertRaises(neuronsim.Error):
            nisa.get_nc_version()  # outside a kernel being traced


class Errors(unittest.TestCase):
    def test_partition_reduce_refusals(self):
        @nki.jit
        def subtract_reduce(a):
            out = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, nisa.tensor_partition_reduce(np.subtract, nl.load(a)))
            return out

        @nki.jit
        def psum_reduce(a):
            out = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
            p = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.psum)
            nisa.tensor_copy(dst=p, src=nl.load(a))
            nl.store(out, nisa.tensor_partition_reduce(np.add, p))
            return out

        a = np.ones((8, 8), np.float32)
        for kernel, text in ((subtract_reduce, "not a partition reduction"),
                             (psum_reduce, "must be in SBUF")):
            with self.subTest(kernel=kernel.fn.__name__):
                with self.assertRaises(neuronsim.Error) as cm:
                    nki.simulate(kernel, a)
                line = line_of(kernel.fn, "nisa.tensor_partition_reduce(")
                self.assertIn(f"{HERE}:{line}:", str(cm.exception))
                self.assertIn(text, str(cm.exception))


@nki.jit
def transpose_mode(a):
    # nc_matmul(is_transpose=True) against the identity, as the nc_transpose page says it
    # is: into an fp32 PSUM tile, and into one of the input's dtype (the bit-accurate mode).
    P, F = a.shape
    wide = nl.ndarray((F, P), dtype=nl.float32, buffer=nl.shared_hbm)
    same = nl.ndarray((F, P), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    ident = nl.load(nl.shared_identity_matrix(n=P, dtype=a.dtype))
    ps = nl.ndarray((F, P), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=t, moving=ident, is_transpose=True, is_moving_onezero=True)
    nl.store(wide, value=nl.copy(ps))
    nl.store(same, value=nl.copy(nisa.nc_matmul(t, ident, is_transpose=True)))
    return wide, same


@nki.jit
def transpose_mode_not_identity(a):
    t = nl.load(a)
    return nisa.nc_matmul(t, t[:, 0:64], is_transpose=True)


class TransposeMode(unittest.TestCase):
    def test_is_transpose_gives_the_transpose(self):
        a = np.random.default_rng(3).standard_normal((128, 96)).astype(np.float32)
        wide, same = nki.simulate_kernel(transpose_mode, a)
        np.testing.assert_array_equal(wide, a.T)
        np.testing.assert_array_equal(same, a.T)

    def test_moving_must_be_the_square_identity(self):
        a = np.zeros((128, 96), np.float32)
        with self.assertRaisesRegex(nki.NkiError, r"nki_isa_ops.py:\d+: .*\[128, 128\] identity"):
            nki.simulate_kernel(transpose_mode_not_identity, a)


@nki.jit
def matmul_of_transposes(a, b):
    # fft1d's pattern: nc_transpose results (PSUM tiles the calls chose) fed straight to
    # nc_matmul; each is copied to SBUF once, however often it is used.
    P, F = a.shape
    out = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.shared_hbm)
    aT = nisa.nc_transpose(nl.load(a))
    bT = nisa.nc_transpose(nl.load(b))
    nl.store(out, value=nl.copy(nisa.nc_matmul(aT, bT)))
    nl.store(out2, value=nl.copy(nisa.nc_matmul(aT, aT)))
    return out, out2


@nki.jit
def matmul_of_allocated_psum(a):
    t = nl.load(a)
    ps = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.psum)
    nisa.tensor_copy(dst=ps, src=t)
    return nisa.nc_matmul(ps, t)


class PsumOperands(unittest.TestCase):
    def test_returned_psum_tiles_are_copied_once(self):
        rng = np.random.default_rng(4)
        a = rng.standard_normal((128, 64)).astype(np.float32)
        b = rng.standard_normal((128, 64)).astype(np.float32)
        k = matmul_of_transposes.trace(a, b)
        copies = [i for i in k.asm().splitlines() if i.strip().startswith("tensor_copy")]
        self.assertEqual(len(copies), 2 + 2)  # aT and bT once each, and the two results
        got, got2 = nki.simulate_kernel(matmul_of_transposes, a, b)
        np.testing.assert_allclose(got, a @ b.T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(got2, a @ a.T, rtol=1e-4, atol=1e-4)

    def test_an_allocated_psum_operand_is_an_error(self):
        a = np.zeros((128, 128), np.float32)
        with self.assertRaisesRegex(nki.NkiError, r"nki_isa_ops.py:\d+: stationary is in PSUM"):
            nki.simulate_kernel(matmul_of_allocated_psum, a)


if __name__ == "__main__":
    unittest.main()
