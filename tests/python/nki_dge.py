"""nisa.dge_mode and nki.isa.constants (NKI's nki.isa.dge_mode page, the dma_copy and
dma_transpose pages and the DGE reference, nki/deep-dives/nki-dge): the enums import from
nki.isa.constants (also through the drop-in hook, in both spellings), kernels written in
the documented API with each dge_mode run and match numpy, and every rule the pages state
is an NkiError naming the call's file:line."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import broken_call_error
dge_mode = nisa.dge_mode


# --- kernels ------------------------------------------------------------------------------

@nki.jit
def copy_through_sbuf(a, mode, eng):
    # Load and store with the same dge_mode (and engine=, which hwdge alone takes).
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a, dge_mode=mode, engine=eng)
    nisa.dma_copy(dst=out, src=t, dge_mode=mode, engine=eng)
    return out


@nki.jit
def gather(data, idx, mode):
    # A software-DGE gather: the DGE reference's .ap(vector_offset=) form.
    P, F = idx.shape[0], data.shape[1]
    out = nl.ndarray((P, F), dtype=data.dtype, buffer=nl.shared_hbm)
    i = nl.ndarray((P, 1), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    rows = nl.ndarray((P, F), dtype=data.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=data.ap(pattern=[[F, P], [1, F]], vector_offset=i, indirect_dim=0),
                  dge_mode=mode)
    nisa.dma_copy(dst=out, src=rows)
    return out


@nki.jit
def transpose(a, mode):
    # The DGE reference's "Hardware DGE transpose": src [16, ...], last dim a multiple of
    # 128, 2-byte dtype.
    out = nl.ndarray(a.shape[::-1], dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape[::-1], dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=a, dge_mode=mode)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def transpose_returning(a):
    # The earlier returning form takes dge_mode as a keyword too.
    out = nl.ndarray(a.shape[::-1], dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nisa.dma_transpose(nl.load(a), dge_mode=nisa.dge_mode.hwdge))
    return out


@nki.jit
def dma_beside_scalar_work(a, work, eng):
    # A load issued by `eng` (hwdge: Sync or Scalar) while Scalar runs `work` activations
    # on a tile that does not depend on it.
    loaded = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=loaded, src=a, dge_mode=nisa.dge_mode.hwdge, engine=eng)
    x = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=x, value=1.0)
    for _ in range(work):
        nisa.activation(dst=x, op=nl.exp, data=x, scale=0.0)
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=loaded)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=res, src=x)
    return out, res


@nki.jit
def copy_with_priority(a, mode, priority):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a, dge_mode=mode, priority=priority)
    nisa.dma_copy(dst=out, src=t)
    return out


def bf16(shape, seed=0):
    """Data exact in bf16, as nki.typed bf16 input and as float32 numpy."""
    a = (np.random.default_rng(seed).integers(-100, 100, shape)).astype(np.float32)
    return nki.typed(a, nl.bfloat16), a


# --- tests --------------------------------------------------------------------------------

class Constants(unittest.TestCase):
    def test_one_definition(self):
        import neuronsim.nki.isa.constants as constants
        from neuronsim.nki.isa.constants import dge_mode as d, engine, oob_mode

        self.assertIs(d, nisa.dge_mode)
        self.assertIs(oob_mode, nisa.oob_mode)
        self.assertIs(engine, nisa.engine)
        self.assertIs(nisa.constants, constants)
        # The dge_mode page's members.
        self.assertEqual([m.name for m in d], ["unknown", "swdge", "hwdge", "none"])
        self.assertIn("dge_mode", dir(nisa))
        self.assertIn("constants", dir(nisa))

    def test_drop_in_hook_in_process(self):
        nki.install_import_hook()
        try:
            from nki.isa.constants import dge_mode as d1, oob_mode as o1
            from neuronxcc.nki.isa.constants import dge_mode as d2, engine as e2
            import neuronxcc.nki.isa.constants as c3
        finally:
            nki.uninstall_import_hook()
        self.assertIs(d1, nisa.dge_mode)
        self.assertIs(d2, nisa.dge_mode)
        self.assertIs(o1, nisa.oob_mode)
        self.assertIs(e2, nisa.engine)
        self.assertIs(c3, nisa.constants)
        self.assertNotIn("nki.isa.constants", sys.modules)  # the hook's aliases are undone

    def test_drop_in_kernel_file(self):
        # A kernel file in NKI's current spellings, run unedited by the runner.
        kernel = textwrap.dedent('''\
            import numpy as np
            import nki
            import nki.isa as nisa
            import nki.language as nl
            from nki.isa.constants import dge_mode, oob_mode
            from neuronxcc.nki.isa.constants import dge_mode as dge_mode2

            @nki.jit
            def k(data, idx):
                P, F = idx.shape[0], data.shape[1]
                out = nl.ndarray((P, F), dtype=data.dtype, buffer=nl.shared_hbm)
                i = nl.ndarray((P, 1), dtype=nl.uint32, buffer=nl.sbuf)
                nisa.dma_copy(dst=i, src=idx, dge_mode=dge_mode.hwdge)
                rows = nl.ndarray((P, F), dtype=data.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=rows, src=data.ap(pattern=[[F, P], [1, F]], vector_offset=i,
                                                    indirect_dim=0),
                              dge_mode=dge_mode2.swdge, oob_mode=oob_mode.error)
                nisa.dma_copy(dst=out, src=rows, dge_mode=dge_mode.none)
                return out

            data = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
            idx = np.array([[(7 * p) % 64] for p in range(16)], dtype=np.uint32)
            got = nki.simulate(k)(data, idx)
            assert (got == data[idx[:, 0]]).all()
            print("dge kernel OK")
            ''')
        import neuronsim

        with tempfile.TemporaryDirectory(prefix="nki_dge_") as d:
            path = os.path.join(d, "dge_kernel.py")
            with open(path, "w") as f:
                f.write(kernel)
            env = dict(os.environ)
            root = os.path.dirname(os.path.dirname(os.path.abspath(neuronsim.__file__)))
            env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
            env["NEURON_PLATFORM_TARGET_OVERRIDE"] = "trn2"
            p = subprocess.run([sys.executable, "-m", "neuronsim.nki", path], cwd=d, env=env,
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("dge kernel OK", p.stdout)


class GoodKernels(unittest.TestCase):
    def test_dma_copy_every_mode(self):
        a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
        cases = {"trn2": [(m, None) for m in dge_mode] + [(dge_mode.hwdge, nisa.engine.scalar),
                                                          (dge_mode.hwdge, nisa.sync_engine)],
                 "trn1": [(m, None) for m in dge_mode if m is not dge_mode.hwdge]}
        for target, modes in cases.items():
            for mode, eng in modes:
                with self.subTest(target=target, mode=mode, engine=eng):
                    got = nki.simulate(copy_through_sbuf, a, mode, eng, target=target)
                    np.testing.assert_array_equal(got, a)
                    # The dma_copy page: swdge is GpSimd's, hwdge Sync's or (engine=)
                    # Scalar's; none and unknown go to Sync here, none with the host's
                    # descriptors.
                    issuer = {dge_mode.swdge: "gpsimd"}.get(
                        mode, "scalar" if eng == nisa.engine.scalar else "sync")
                    asm = copy_through_sbuf.trace(a, mode, eng, target=target).asm()
                    self.assertEqual(asm.split(f"{issuer}:")[1].count("dma_copy"), 2)
                    self.assertEqual(asm.count("dma_copy"), 2)
                    self.assertEqual(asm.count("prebuilt_descriptors=true"),
                                     2 if mode is dge_mode.none else 0)

    def test_gather_unknown_and_swdge(self):
        data = np.random.default_rng(1).standard_normal((300, 64)).astype(np.float32)
        idx = np.random.default_rng(2).integers(0, 300, (128, 1)).astype(np.uint32)
        for mode in (None, dge_mode.unknown, dge_mode.swdge):
            for target in ("trn1", "trn2"):
                with self.subTest(mode=mode, target=target):
                    got = nki.simulate(gather, data, idx, mode, target=target)
                    np.testing.assert_array_equal(got, data[idx[:, 0]])
                    # Software DGE: the gather is issued by GpSimd.
                    asm = gather.trace(data, idx, mode, target=target).asm()
                    self.assertIn("src_index=", asm.split("gpsimd:")[1])

    def test_hwdge_transpose(self):
        for shape in ((16, 128), (16, 4, 128)):
            x, a = bf16(shape, seed=len(shape))
            for mode in (dge_mode.unknown, dge_mode.hwdge):
                for target in ("trn2", "trn3"):
                    with self.subTest(shape=shape, mode=mode, target=target):
                        got = nki.simulate(transpose, x, mode, target=target)
                        np.testing.assert_array_equal(got, a.T)
                        asm = transpose.trace(x, mode, target=target).asm()
                        # 2-D: the DMA engines' transpose; 3-D: the element-wise lowering.
                        self.assertEqual(asm.count("transpose=true"), 1 if len(shape) == 2 else 0)
        x, a = bf16((16, 128))
        np.testing.assert_array_equal(nki.simulate(transpose_returning, x, target="trn2"), a.T)

    def test_time_by_mode(self):
        # The load and the store run one after the other, each behind its descriptors:
        # unknown and hwdge (Sync, engine=scalar: Scalar) wait for a hardware DGE block's
        # dma.descriptor_ns, swdge for GpSimd's dma.swdge_descriptor_ns (both 600 ns on
        # trn2, config/targets/trn2.json), none for nothing: 2 x 600 = 1200 ns less.
        a = np.ones((128, 512), np.float32)
        cases = [(m, None) for m in dge_mode] + [(dge_mode.hwdge, nisa.engine.scalar)]
        times = {(m, e): nki.benchmark(copy_through_sbuf, a, m, e, target="trn2").latency_ns
                 for m, e in cases}
        dge = times[(dge_mode.unknown, None)]
        for (m, e), t in times.items():
            self.assertAlmostEqual(t, dge - 1200.0 if m is dge_mode.none else dge, places=3,
                                   msg=(m, e, times))
        # On trn1 (no hardware DGE) unknown and none both have prebuilt descriptors.
        t1 = {m: nki.benchmark(copy_through_sbuf, a, m, None, target="trn1").latency_ns
              for m in (dge_mode.unknown, dge_mode.none)}
        self.assertEqual(t1[dge_mode.unknown], t1[dge_mode.none])

    def test_scalar_issued_dma_overlaps_scalar_work(self):
        # The Scalar engine issues the load (hwdge, engine=scalar) and goes on with its
        # activations while the DMA engines move the data: the 8 activations, which take
        # microseconds on their own (a small load), hide under a 4 MiB load as they do
        # when Sync issues it. Held by its DMA, Scalar would add their time to the load's.
        big, small = np.ones((128, 8192), np.float32), np.ones((128, 8), np.float32)

        def latency(a, work, eng):
            return nki.benchmark(dma_beside_scalar_work, a, work, eng, target="trn2").latency_ns

        work_alone = latency(small, 8, nisa.engine.scalar) - latency(small, 0, nisa.engine.scalar)
        self.assertGreater(work_alone, 2000.0)
        for eng in (nisa.engine.sync, nisa.engine.scalar):
            with self.subTest(engine=eng):
                self.assertEqual(latency(big, 8, eng), latency(big, 0, eng))
        self.assertEqual(latency(big, 8, nisa.engine.scalar), latency(big, 8, nisa.engine.sync))
        out, res = nki.simulate(dma_beside_scalar_work, big, 8, nisa.engine.scalar, target="trn2")
        np.testing.assert_array_equal(out, big)
        np.testing.assert_array_equal(res, np.ones((128, 512), np.float32))

    def test_priority_on_trn3(self):
        a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
        for p in range(4):
            got = nki.simulate(copy_with_priority, a, dge_mode.hwdge, p, target="trn3")
            np.testing.assert_array_equal(got, a)


def rule_kernel(call):
    """A kernel whose one DMA call is `call`, with the inputs b16 [16, 128] bf16 and f32
    [128, 64] fp32, their tiles b and f, an index tile i and an SBUF tile t at hand."""
    src = textwrap.dedent(f'''\
        @nki.jit
        def broken(b16, f32, idx):
            b = nl.load(b16)
            f = nl.load(f32)
            i = nl.load(idx)
            t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            {call}
            return f32
        ''')
    return src


class Rules(unittest.TestCase):
    """Each broken call: the error names dma_copy / dma_transpose, this file:line, the rule
    and what to do."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nki_dge_rules_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def check(self, call, words, target="trn2"):
        b16 = nki.typed(np.ones((16, 128), np.float32), nl.bfloat16)
        f32 = np.ones((128, 64), np.float32)
        idx = np.zeros((128, 1), np.uint32)
        scope = {"nki": nki, "nl": nl, "nisa": nisa, "np": np}
        return broken_call_error(self, self.dir, rule_kernel(call), call, scope,
                                 lambda k: k.trace(b16, f32, idx, target=target), words)

    def test_not_a_dge_mode(self):
        msg = self.check('nisa.dma_copy(dst=t, src=f32, dge_mode="hwdge")',
                         ["dma_copy: dge_mode 'hwdge' is not a nisa.dge_mode"])
        for m in ("unknown", "swdge", "hwdge", "none"):
            self.assertIn(f"nisa.dge_mode.{m}", msg)  # the allowed values
        self.check("nisa.dma_transpose(dst=t, src=b, dge_mode=nisa.oob_mode.skip)",
                   ["dma_transpose: dge_mode 'skip' is not a nisa.dge_mode"])

    def test_hwdge_needs_neuroncore_v3(self):
        for call in ("nisa.dma_copy(dst=t, src=f32, dge_mode=nisa.dge_mode.hwdge)",
                     "nisa.dma_transpose(dst=t, src=b, dge_mode=nisa.dge_mode.hwdge)"):
            self.check(call, ["needs NeuronCore-v3 or newer", "target trn1",
                              "leave dge_mode unknown"], target="trn1")

    def test_indirect_copy_is_software_dge(self):
        for mode in ("hwdge", "none"):
            self.check(f"nisa.dma_copy(dst=t, src=f32[i, :], dge_mode=nisa.dge_mode.{mode})",
                       [f"dma_copy: dge_mode nisa.dge_mode.{mode} is not allowed here",
                        "software DGE only",
                        "use nisa.dge_mode.unknown or nisa.dge_mode.swdge"])

    def test_engine_only_with_hwdge(self):
        self.check("nisa.dma_copy(dst=t, src=f32, engine=nisa.engine.scalar)",
                   ["engine='scalar' is only valid with dge_mode=nisa.dge_mode.hwdge",
                    "dge_mode is nisa.dge_mode.unknown"])
        self.check("nisa.dma_copy(dst=t, src=f32, dge_mode=nisa.dge_mode.swdge, engine=nisa.engine.sync)",
                   ["only valid with dge_mode=nisa.dge_mode.hwdge"])
        self.check("nisa.dma_copy(dst=t, src=f32, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.gpsimd)",
                   ["engine= is nisa.engine.sync or nisa.engine.scalar", "not 'gpsimd'"])

    def test_priority(self):
        self.check("nisa.dma_copy(dst=t, src=f32, dge_mode=nisa.dge_mode.none, priority=1)",
                   ["priority= is not supported with dge_mode=nisa.dge_mode.none"], "trn3")
        self.check("nisa.dma_copy(dst=t, src=f32, priority=1)",
                   ["priority= needs NeuronCore-v4 or newer", "target trn2"])
        self.check("nisa.dma_copy(dst=t, src=f32, priority=4)", ["priority 4 is not a level 0-3"],
                   "trn3")

    def test_transpose_modes(self):
        for mode in ("none", "swdge"):
            self.check(f"nisa.dma_transpose(dst=t, src=b, dge_mode=nisa.dge_mode.{mode})",
                       [f"dma_transpose: dge_mode nisa.dge_mode.{mode} is not allowed here",
                        "use nisa.dge_mode.unknown or nisa.dge_mode.hwdge"])

    def test_hwdge_transpose_rules(self):
        hw = "dma_transpose: dge_mode=nisa.dge_mode.hwdge (a hardware DGE transpose) needs "
        self.check("nisa.dma_transpose(dst=t, src=f32[0:16, :], dge_mode=nisa.dge_mode.hwdge)",
                   [hw + "src.shape[-1] % 128 == 0", "src is [16, 64]", "leave dge_mode unknown"])
        self.check("nisa.dma_transpose(dst=t, src=f[0:64, :], dge_mode=nisa.dge_mode.hwdge)",
                   [hw + "src.shape[0] == 16", "src is [64, 64]", "16 rows at a time"])
        self.check("nisa.dma_transpose(dst=t, src=f32.reshape((16, 512)), "
                   "dge_mode=nisa.dge_mode.hwdge)",
                   [hw + "a 2-byte src dtype", "nl.bfloat16 or nl.float16"])

    def test_indirect_transpose(self):
        # swdge is the indirect form's mode; its own rules: tests/python/nki_indirect_transpose.py.
        self.check("nisa.dma_transpose(dst=t, src=f32[i, :], dge_mode=nisa.dge_mode.swdge)",
                   ["dma_transpose: an indirect transpose (dma_gather_transpose) needs a 2-byte "
                    "src dtype", "rule 3"])
        self.check("nisa.dma_transpose(dst=t, src=f32[i, :], dge_mode=nisa.dge_mode.hwdge)",
                   ["dma_transpose: dge_mode nisa.dge_mode.hwdge is not allowed here",
                    "use nisa.dge_mode.unknown or nisa.dge_mode.swdge"])


if __name__ == "__main__":
    unittest.main()
