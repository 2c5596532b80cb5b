"""nisa.dma_transpose's indirect form ("DMA Indirect Transpose", dma_gather_transpose,
software DGE; the nki.isa.dma_transpose page, v2.29.1 / v2.30.0 / latest): rows of an HBM
tensor picked by an SBUF index tile, gathered and transposed in one transfer. The page:
"flat_indices = indices.T.flatten()[:src.shape[0]]; gathered = src[flat_indices, :];
dst = gathered.T". Numerics against numpy for several shapes and 2-byte dtypes, each of the
page's twelve constraints as an NkiError at the call's line, and the transfer's time."""
import os
import shutil
import tempfile
import textwrap
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import broken_call_error

HERE = os.path.abspath(__file__)


@nki.jit
def gather_transpose_ap(src_hbm, idx_hbm, n):
    # The page's example (vector_offset on src), with n rows of src_hbm's F columns.
    f = src_hbm.shape[1]
    output = nl.ndarray((f, n), dtype=src_hbm.dtype, buffer=nl.shared_hbm)
    idx_sb = nl.load(idx_hbm)
    dst_sb = nl.ndarray((f, n), dtype=src_hbm.dtype, buffer=nl.sbuf)
    nisa.memset(dst=dst_sb, value=0)
    src_ap = src_hbm.ap(pattern=[[f, n], [1, f]], vector_offset=idx_sb, indirect_dim=0)
    nisa.dma_transpose(dst=dst_sb, src=src_ap, axes=(1, 0))
    nisa.dma_copy(dst=output, src=dst_sb)
    return output


@nki.jit
def gather_transpose_key(src_hbm, idx_hbm):
    # src_hbm[idx_tile, ...] (the indirect DMA spelling of nl.load's page), 2-, 3- or 4-D.
    idx_sb = nl.load(idx_hbm)
    rows = src_hbm[(idx_sb,) + (slice(None),) * (len(src_hbm.shape) - 1)]
    shape = (src_hbm.shape[-1],) + tuple(src_hbm.shape[1:-1])[::-1] + (idx_hbm.shape[0],)
    if len(src_hbm.shape) == 4:  # (3, 1, 2, 0)
        shape = (src_hbm.shape[3], src_hbm.shape[1], src_hbm.shape[2], idx_hbm.shape[0])
    output = nl.ndarray(shape, dtype=src_hbm.dtype, buffer=nl.shared_hbm)
    dst_sb = nl.ndarray(shape, dtype=src_hbm.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=dst_sb, src=rows, dge_mode=nisa.dge_mode.swdge)
    nl.store(output, dst_sb)
    return output


@nki.jit
def gather_transpose_returning(src_hbm, idx_hbm):
    # The earlier form, dma_transpose(src) returning a new SBUF tile.
    idx_sb = nl.load(idx_hbm)
    output = nl.ndarray((src_hbm.shape[1], idx_hbm.shape[0]), dtype=src_hbm.dtype,
                        buffer=nl.shared_hbm)
    nl.store(output, nisa.dma_transpose(src_hbm[idx_sb, :]))
    return output


@nki.jit
def gather_transpose_skip(src_hbm, idx_hbm):
    # oob_mode.skip: a row whose index is out of range leaves dst's column as it was (0).
    idx_sb = nl.load(idx_hbm)
    shape = (src_hbm.shape[1], idx_hbm.shape[0])
    output = nl.ndarray(shape, dtype=src_hbm.dtype, buffer=nl.shared_hbm)
    dst_sb = nl.ndarray(shape, dtype=src_hbm.dtype, buffer=nl.sbuf)
    nisa.memset(dst=dst_sb, value=0)
    nisa.dma_transpose(dst=dst_sb, src=src_hbm[idx_sb, :], oob_mode=nisa.oob_mode.skip)
    nl.store(output, dst_sb)
    return output


@nki.jit
def timed_gather(src_hbm, idx_hbm):
    # The plain gather of the same rows: one GpSimd dma_copy with src_index, then a store.
    idx_sb = nl.load(idx_hbm)
    output = nl.ndarray((idx_hbm.shape[0], src_hbm.shape[1]), dtype=src_hbm.dtype,
                        buffer=nl.shared_hbm)
    rows = nl.ndarray((idx_hbm.shape[0], src_hbm.shape[1]), dtype=src_hbm.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=src_hbm[idx_sb, :])
    nl.store(output, rows)
    return output


@nki.jit
def timed_gather_transpose(src_hbm, idx_hbm):
    # The same with the rows landing transposed: one GpSimd dma_copy with src_index and
    # transpose=true, then a store of the same size.
    idx_sb = nl.load(idx_hbm)
    output = nl.ndarray((src_hbm.shape[1], idx_hbm.shape[0]), dtype=src_hbm.dtype,
                        buffer=nl.shared_hbm)
    rows = nl.ndarray((src_hbm.shape[1], idx_hbm.shape[0]), dtype=src_hbm.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=rows, src=src_hbm[idx_sb, :])
    nl.store(output, rows)
    return output


def reference(src, idx, n):
    """The page's definition: flat_indices = indices.T.flatten()[:n]; dst = src[flat].T
    (the middle dims of a 3-/4-D src transpose as the direct form's axes say)."""
    gathered = src[idx.T.flatten()[:n]]
    return np.transpose(gathered, {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}[src.ndim])


def table(shape, dtype, seed):
    """Values exact in every 2-byte dtype used here, as the kernel input and as numpy."""
    a = np.random.default_rng(seed).integers(-100, 100, shape)
    if dtype == "bfloat16":
        return nki.typed(a.astype(np.float32), nl.bfloat16), a.astype(np.float32)
    return a.astype(dtype), a.astype(dtype)


class Numerics(unittest.TestCase):
    def test_page_example_and_shapes(self):
        # (rows of src, F, indices shape, n rows gathered): the page's 128 x 128 with [128, 1]
        # indices; fewer rows than indices (rule 6 allows it); 2-D indices (rule 9: 128 x K),
        # their last column partly used; small F.
        cases = [(300, 128, (128, 1), 128), (300, 64, (64, 1), 32), (1000, 96, (128, 3), 384),
                 (1000, 128, (128, 4), 400), (50, 16, (16, 1), 16)]
        for dtype in ("bfloat16", np.float16, np.int16):
            for rows, f, ishape, n in cases:
                with self.subTest(dtype=dtype, rows=rows, f=f, indices=ishape, n=n):
                    x, a = table((rows, f), dtype, seed=rows + f)
                    idx = np.random.default_rng(n).integers(0, rows, ishape).astype(np.uint32)
                    got = nki.simulate(gather_transpose_ap, x, idx, n, target="trn2")
                    np.testing.assert_array_equal(got, reference(a, idx, n))

    def test_key_forms_3d_4d_and_targets(self):
        for shape in ((200, 64), (200, 3, 32), (200, 1, 2, 48), (200, 2, 1, 16)):
            x, a = table(shape, "bfloat16", seed=len(shape))
            idx = np.random.default_rng(7).integers(0, 200, (48, 1)).astype(np.uint32)
            for target in ("trn2", "trn3"):
                with self.subTest(shape=shape, target=target):
                    got = nki.simulate(gather_transpose_key, x, idx, target=target)
                    np.testing.assert_array_equal(got, reference(a, idx, 48))
        x, a = table((200, 64), np.float16, seed=3)
        idx = np.random.default_rng(8).integers(0, 200, (32, 1)).astype(np.uint32)
        np.testing.assert_array_equal(
            nki.simulate(gather_transpose_returning, x, idx, target="trn2"), a[idx[:, 0]].T)

    def test_one_gpsimd_transfer_per_index_column(self):
        x, _ = table((1000, 128), "bfloat16", seed=1)
        idx = np.zeros((128, 4), np.uint32)
        asm = gather_transpose_ap.trace(x, idx, 400, target="trn2").asm()
        transfers = [l for l in asm.splitlines() if "src_index=" in l]
        # 400 rows: index columns 0-2 name 128 rows each, column 3 the last 16.
        self.assertEqual(len(transfers), 4)
        self.assertTrue(all("transpose=true" in l for l in transfers), transfers)
        self.assertIn("src_index=", asm.split("gpsimd:")[1])  # software DGE: GpSimd issues

    def test_out_of_range_rows(self):
        x, a = table((100, 32), "bfloat16", seed=2)
        idx = np.arange(16, dtype=np.uint32).reshape(16, 1) * 9  # 0, 9, ..., 135: 5 outside
        want = np.zeros((32, 16), np.float32)
        inside = idx[:, 0] < 100
        want[:, inside] = a[idx[inside, 0]].T
        np.testing.assert_array_equal(
            nki.simulate(gather_transpose_skip, x, idx, target="trn2"), want)
        with self.assertRaises(nki.NkiError) as cm:
            nki.simulate(gather_transpose_key, x, idx, target="trn2")
        self.assertIn("holds row index 108, outside src's 100 rows", str(cm.exception))


class Timing(unittest.TestCase):
    def test_transpose_costs_the_gather_at_the_transpose_efficiency(self):
        # Both kernels load the index, make one GpSimd-issued indirect transfer of 128 rows
        # of 128 bf16 (32 KiB; software DGE: dma.swdge_descriptor_ns = 600 ns on GpSimd for
        # either) and store 32 KiB of the same [128, 128] shape, so they differ only in the
        # transfer's data phase. Its dst has 128 partitions either way: 16 parts (DMA
        # engines) of 8 rows, 2048 B each, all moving at once (16 x 2.875 B/ns = 46 B/ns, far
        # under the core's HBM share). A part's rate is dma.engine_bytes_per_ns (23 B/ns)
        # times the efficiency of the transfer's rows: the shorter contiguous run of its two
        # sides, 256 B (a 128-element bf16 row of src; dst rows of 128 elements too), over
        # dma.efficient_bytes_per_row (2048 B) = 0.125; transposed, times
        # dma.transpose_hbm_efficiency (0.9) = 0.1125 (config/targets/trn2.json). So the
        # gather's parts take 2048 / (23 x 0.125) = 712.35 ns and the transpose's 2048 /
        # (23 x 0.1125) = 791.50 ns: the transposing kernel is 79.15 ns slower.
        x, _ = table((300, 128), "bfloat16", seed=5)
        idx = np.random.default_rng(5).integers(0, 300, (128, 1)).astype(np.uint32)
        plain = nki.benchmark(timed_gather, x, idx, target="trn2").latency_ns
        transposed = nki.benchmark(timed_gather_transpose, x, idx, target="trn2").latency_ns
        want = 2048 / (23 * 0.1125) - 2048 / (23 * 0.125)
        self.assertAlmostEqual(transposed - plain, want, delta=1.0)


def rule_kernel(call):
    """A kernel whose one dma_transpose call is `call`. At hand: b [512, 128] bf16 and f
    [512, 64] fp32 HBM tensors, w [64, 256] bf16, q [512, 2, 2, 64] bf16; SBUF index tiles
    i [128, 1], i4 [128, 4], i24 [24, 1], i48 [48, 2], i3 [128, 1, 1] (uint32) and s [128, 1]
    (int32); t, an SBUF bf16 tile [128, 128]."""
    return textwrap.dedent(f'''\
        @nki.jit
        def broken(b, f, w, q, idx, idx4, idx24, idx48, idx3, sidx):
            i = nl.load(idx)
            i4 = nl.load(idx4)
            i24 = nl.load(idx24)
            i48 = nl.load(idx48)
            i3 = nl.load(idx3)
            s = nl.load(sidx)
            t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
            {call}
            return f
        ''')


class Rules(unittest.TestCase):
    """Each broken call: one NkiError naming dma_transpose, this file:line, the page's rule
    and (where there is one) what to do."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nki_indirect_transpose_rules_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check(self, call, words, target="trn2"):
        u = np.uint32
        args = (nki.typed(np.ones((512, 128), np.float32), nl.bfloat16),
                np.ones((512, 64), np.float32),
                nki.typed(np.ones((64, 256), np.float32), nl.bfloat16),
                nki.typed(np.ones((512, 2, 2, 64), np.float32), nl.bfloat16),
                np.zeros((128, 1), u), np.zeros((128, 4), u), np.zeros((24, 1), u),
                np.zeros((48, 2), u), np.zeros((128, 1, 1), u), np.zeros((128, 1), np.int32))
        scope = {"nki": nki, "nl": nl, "nisa": nisa, "np": np}
        return broken_call_error(self, self.dir, rule_kernel(call), call, scope,
                                 lambda k: k.trace(*args, target=target), words)

    what = "dma_transpose: an indirect transpose (dma_gather_transpose)"

    def test_rule_1_4d_middle_dims(self):
        self.check("nisa.dma_transpose(q[i, :, :, :])",
                   [self.what, "src.shape[1] or src.shape[2] must be 1", "rule 1",
                    "src is [128, 2, 2, 64]"])

    def test_rule_2_last_dim(self):
        self.check("nisa.dma_transpose(w[i, :])",
                   [self.what, "src.shape[-1] <= 128", "rule 2", "128 at a time"])

    def test_rule_3_two_byte_dtype(self):
        self.check("nisa.dma_transpose(f[i, :])", [self.what, "2-byte src dtype", "rule 3"])

    def test_rule_4_src_on_hbm(self):
        self.check("nisa.dma_transpose(t.ap([[128, 128], [1, 128]], vector_offset=i))",
                   ["vector_offset on an on-chip tensor", "src tensor must be on HBM"])

    def test_rule_5_two_d_indices(self):
        self.check("nisa.dma_transpose(b[i3, :])", [self.what, "2-d indices", "rule 5"])

    def test_rule_6_enough_indices(self):
        self.check("nisa.dma_transpose(b.ap([[128, 256], [1, 128]], vector_offset=i))",
                   [self.what, "indices.shape[0] * indices.shape[1] >= src.shape[0]", "rule 6",
                    "hold 128 for 256 rows"])

    def test_rule_7_rows_of_16(self):
        self.check("nisa.dma_transpose(b.ap([[128, 40], [1, 128]], vector_offset=i))",
                   [self.what, "src.shape[0] divisible by 16", "rule 7"])

    def test_rule_8_index_partitions(self):
        self.check("nisa.dma_transpose(b.ap([[128, 16], [1, 128]], vector_offset=i24))",
                   [self.what, "indices.shape[0] in [16, 128] and divisible by 16", "rule 8",
                    "[24, 1]"])

    def test_rule_9_columns_need_128_partitions(self):
        self.check("nisa.dma_transpose(b.ap([[128, 96], [1, 128]], vector_offset=i48))",
                   [self.what, "indices.shape[0] must be exactly 128", "rule 9"])

    def test_rule_10_uint32(self):
        self.check("nisa.dma_transpose(b[s, :])",
                   [self.what, "uint32 indices", "rule 10", "dtype=nl.uint32"])

    def test_rule_11_indices_on_sbuf(self):
        self.check("nisa.dma_transpose(b[idx, :])",
                   ["runtime row index must be an SBUF tile (it is HBM)", "nl.load"])

    def test_rule_12_trn2_and_newer(self):
        self.check("nisa.dma_transpose(b[i, :])",
                   [self.what, "TRN2+ only", "rule 12", "target trn1",
                    "nisa.dma_copy(dst=tile, src=data[idx_tile, :])", "nisa.nc_transpose"],
                   target="trn1")

    def test_dge_modes(self):
        for mode in ("hwdge", "none"):
            self.check(f"nisa.dma_transpose(dst=t, src=b[i, :], dge_mode=nisa.dge_mode.{mode})",
                       [f"dma_transpose: dge_mode nisa.dge_mode.{mode} is not allowed here",
                        "use nisa.dge_mode.unknown or nisa.dge_mode.swdge"])

    def test_dst_axes_and_cast(self):
        self.check("nisa.dma_transpose(dst=nl.ndarray((128, 64), dtype=nl.bfloat16, "
                   "buffer=nl.sbuf), src=b[i, :])",
                   ["dma_transpose: dst [128, 64] is not src [128, 128] transposed"])
        self.check("nisa.dma_transpose(b[i, :], axes=(0, 1))",
                   ["dma_transpose: axes (0, 1) is not the permutation of a 2-D tile"])
        self.check("nisa.dma_transpose(b[i, :], dtype=nl.float32)", [self.what, "does not cast"])
        self.check("nisa.dma_transpose(b[i, :], axes=5)",
                   ["dma_transpose: axes 5 is not the permutation of a 2-D tile"])
        self.check("nisa.dma_transpose(dst=b[i, :], src=t)",
                   ["dma_transpose: dst is indexed by a runtime index", "a scatter does not "
                    "transpose"])

    def test_several_index_columns_are_only_for_the_transpose(self):
        self.check("nisa.dma_copy(dst=t, src=b.ap([[128, 128], [1, 128]], vector_offset=i4))",
                   ["dma_copy: a runtime row index is one index per partition ([P, 1])",
                    "[128, 4]"])


if __name__ == "__main__":
    unittest.main()
