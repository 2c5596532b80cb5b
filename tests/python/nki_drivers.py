"""The drivers as NKI documents them (API pages nki.simulate, nki.simulate_kernel,
nki.benchmark, nki.baremetal, nki.profile, nki.jit), neuronsim's earlier forms, constant
arguments, nki.typing, nki.compiler and the errors: kernels written here in the documented
NKI API, checked against numpy."""
import contextlib
import io
import os
import tempfile
import unittest

import numpy as np

import neuronsim
from neuronsim import nki
import neuronsim.nki.compiler as ncc
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
import neuronsim.nki.typing as nt

THIS = os.path.basename(__file__)
RNG = np.random.default_rng(7)
A = RNG.random((128, 512), dtype=np.float32)
B = RNG.random((128, 512), dtype=np.float32)


def add(a_tensor, b_tensor):
    c_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    nl.store(c_tensor, nl.load(a_tensor) + nl.load(b_tensor))
    return c_tensor


add_kernel = nki.jit(add)


@nki.jit
def shaped(x, shape2D=(128, 256), scale=1.0, flags=(True, [1, (2, 3)]), dtype=nl.float32):
    """Constants of every kind: a tuple shape, a float, a nested container, a dtype."""
    assert isinstance(flags, tuple) and flags[1][1] == (2, 3)
    out = nl.ndarray(shape2D, dtype=dtype, buffer=nl.shared_hbm)
    tile = nl.load(x[0:shape2D[0], 0:shape2D[1]])
    nl.store(out, value=nl.multiply(tile, scale))
    return out


@nki.jit
def two_outputs(a, b):
    s = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    d = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    nl.store(s, ta + tb)
    nl.store(d, ta - tb)
    return s, d


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


class Simulate(unittest.TestCase):
    def test_simulate_returns_a_callable(self):
        sim = nki.simulate(add_kernel)
        np.testing.assert_allclose(sim(A, B), A + B)
        np.testing.assert_allclose(nki.simulate(add)(A, B), A + B)  # a plain function is wrapped

    def test_earlier_forms(self):
        np.testing.assert_allclose(nki.simulate(add_kernel, A, B, target="trn1"), A + B)
        np.testing.assert_allclose(add_kernel(A, B), A + B)
        np.testing.assert_allclose(nki.simulate_kernel(add_kernel, A, B), A + B)
        np.testing.assert_allclose(nki.simulate_kernel(add_kernel, a_tensor=A, b_tensor=B), A + B)
        s, d = nki.simulate(two_outputs)(A, B)
        np.testing.assert_allclose(s, A + B)
        np.testing.assert_allclose(d, A - B)

    def test_constants(self):
        x = RNG.random((128, 512), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(shaped)(x), x[:, :256])
        np.testing.assert_allclose(nki.simulate(shaped)(x, (64, 512), 2.0), x[:64] * 2)
        np.testing.assert_allclose(nki.simulate(shaped)(x, shape2D=(32, 128), scale=np.float32(3)),
                                   x[:32, :128] * 3)
        np.testing.assert_allclose(nki.simulate(shaped)(x, dtype=np.float32, flags=(False, [0, (2, 3)])),
                                   x[:, :256])
        # Each constant value is its own trace.
        self.assertIsNot(shaped.trace(x, (64, 512)), shaped.trace(x, (32, 512)))
        self.assertIs(shaped.trace(x, (64, 512)), shaped.trace(x, (64, 512)))

    def test_targets(self):
        self.assertEqual(add_kernel.trace(A, B).target, "trn2")
        for name, target in (("trn1", "trn1"), ("inf2", "trn1"), ("trn2", "trn2"), ("gen3", "trn2")):
            k = nki.jit(platform_target=name)(add)
            self.assertEqual(k.trace(A, B).target, target, name)
        k = nki.jit(additional_compile_opt="--target trn1 --lnc 1")(add)
        self.assertEqual(k.trace(A, B).target, "trn1")
        os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = "trn1"
        try:
            self.assertEqual(nki.jit(add).trace(A, B).target, "trn1")
        finally:
            del os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"]

    def test_modes_and_compiler_options(self):
        for mode in ("auto", "simulation", "baremetal", "jax", "torchxla"):
            k = nki.jit(mode=mode, show_compiler_tb=True, debug_kernel=True)(add)
            np.testing.assert_allclose(k(A, B), A + B)
        k = nki.jit(add, mode="benchmark")
        with quiet():
            k(A, B)
        self.assertGreater(k.benchmark_result.nc_latency.get_latency_percentile(50), 0)
        np.testing.assert_allclose(nki.jit()(add)(A, B), A + B)  # @nki.jit()

    def test_grid_through_the_drivers(self):
        @nki.jit
        def rows(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            i = nl.program_id(0)
            sl = slice(i * 32, (i + 1) * 32)
            nl.store(out[sl, :], nl.load(a[sl, :]) + nl.load(b[sl, :]))
            return out

        np.testing.assert_allclose(nki.simulate(rows[4])(A, B), A + B)
        np.testing.assert_allclose(nki.baremetal(rows)[4](A, B), A + B)
        with quiet():
            bench = nki.benchmark(warmup=0, iters=1)(rows)[4]
            bench(A, B)
        self.assertGreater(bench.benchmark_result.latency_ns, 0)
        # A subset of the grid's programs (one physical core's share of an SPMD launch).
        part = rows[4]
        part.programs = [(1,), (3,)]
        out = nki.simulate(part)(A, B)
        np.testing.assert_allclose(out[32:64], (A + B)[32:64])
        np.testing.assert_allclose(out[96:128], (A + B)[96:128])
        self.assertEqual(part.trace(A, B).asm().count("queue=_store"), 2)

    def test_plain_function_writing_its_output_argument(self):
        # neuronxcc-era tutorials: no @nki.jit, no return, the output passed in and
        # filled in place by nki.baremetal(kernel)[grid](a, b, c).
        def add_tile(a_input, b_input, c_output):
            ix = nl.program_id(0) * 64 + nl.arange(64)[:, None]
            iy = nl.program_id(1) * 256 + nl.arange(256)[None, :]
            nl.store(c_output[ix, iy], value=nl.load(a_input[ix, iy]) + nl.load(b_input[ix, iy]))

        a16, b16 = A.astype(np.float16), B.astype(np.float16)
        c = np.zeros_like(a16)
        self.assertIsNone(nki.baremetal(add_tile)[2, 2](a16, b16, c))
        np.testing.assert_allclose(c, a16 + b16, rtol=1e-3)

    def test_mutable_output_argument(self):
        @nki.jit
        def add_into(a, b, out: nt.mutable_tensor):
            nl.store(out, value=nl.load(a) + nl.load(b))

        out = np.zeros_like(A)
        self.assertIsNone(nki.simulate(add_into)(A, B, out))
        np.testing.assert_allclose(out, A + B)


class Benchmark(unittest.TestCase):
    def check(self, bench, args=(A, B)):
        with quiet() as out:
            bench(*args)
        r = bench.benchmark_result
        lat = r.nc_latency
        ps = [lat.get_latency_percentile(p) for p in nki.LatencyStats.PERCENTILES]
        self.assertGreater(ps[0], 0)
        # Deterministic simulation, no state carried between launches: every iteration
        # takes the same device time.
        self.assertEqual(ps[0], ps[-1])
        self.assertAlmostEqual(ps[4], r.latency_ns / 1000.0)
        self.assertIn("nki.benchmark", out.getvalue())
        return r

    def test_decorator_forms(self):
        r = self.check(nki.benchmark(add_kernel))
        self.assertEqual(len(r.latencies_ns), 100)  # the page's default iters
        r = self.check(nki.benchmark(warmup=1, iters=3)(add_kernel))
        self.assertEqual(len(r.latencies_ns), 3)
        self.check(nki.benchmark(add_kernel, warmup=0, iters=2))

        @nki.benchmark(warmup=1, iters=2)
        def decorated(a_tensor, b_tensor):
            return add(a_tensor, b_tensor)

        self.check(decorated)

    def test_specs_as_inputs(self):
        bench = nki.benchmark(warmup=0, iters=2)(add_kernel)
        self.check(bench, (nt.tensor[[128, 512], nl.bfloat16], nt.tensor[[128, 512], nl.bfloat16]))
        self.assertEqual(bench.benchmark_result.traced.inputs[0].dtype, nl.bfloat16)

    def test_saved_neff_and_trace(self):
        d = tempfile.mkdtemp()
        neff, ntff = os.path.join(d, "file.neff"), os.path.join(d, "sub", "profile.ntff")
        self.check(nki.benchmark(warmup=0, iters=1, save_neff_name=neff, save_trace_name=ntff,
                                 additional_compile_opt="--target trn1")(add_kernel))
        self.assertEqual(neuronsim.load_neff(neff).target, "trn1")
        self.assertGreater(os.path.getsize(ntff), 0)

    def test_earlier_form(self):
        r = nki.benchmark(add_kernel, A, B, target="trn1")
        self.assertGreater(r.latency_ns, 0)
        self.assertEqual(neuronsim.Profile(r.profile_dir).summary["kernel_name"], "add")
        self.assertGreater(r.nc_latency.get_latency_percentile(50), 0)

    def test_errors(self):
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: nki.benchmark: unknown keyword\(s\) "
                                    r"iterations"):
            nki.benchmark(iterations=3)
        with self.assertRaisesRegex(nki.NkiError, r"nki.benchmark: iters must be an int >= 1"):
            nki.benchmark(add_kernel, iters=0)
        with quiet():
            b = nki.benchmark(warmup=0, iters=1)(add_kernel)
            b(A, B)
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: get_latency_percentile\(101\)"):
            b.benchmark_result.nc_latency.get_latency_percentile(101)


class Baremetal(unittest.TestCase):
    def test_forms(self):
        np.testing.assert_allclose(nki.baremetal(add_kernel)(A, B), A + B)
        d = tempfile.mkdtemp()

        @nki.baremetal(save_neff_name=os.path.join(d, "file.neff"),
                       save_trace_name=os.path.join(d, "profile.ntff"),
                       artifacts_dir=os.path.join(d, "artifacts"))
        def bm(a_tensor, b_tensor):
            return add(a_tensor, b_tensor)

        np.testing.assert_allclose(bm(A, B), A + B)
        self.assertEqual(neuronsim.load_neff(os.path.join(d, "file.neff")).name, "bm")
        self.assertTrue(os.path.getsize(os.path.join(d, "profile.ntff")) > 0)
        with open(os.path.join(d, "artifacts", "bm.nasm")) as f:
            self.assertIn("dma_copy", f.read())
        with self.assertRaisesRegex(nki.NkiError, r"artifacts_dir .* is not empty"):
            bm(A, B)
        with self.assertRaisesRegex(nki.NkiError, r"nki.baremetal: unknown keyword\(s\) warmup"):
            nki.baremetal(add_kernel, warmup=2)


class Profile(unittest.TestCase):
    def test_profile(self):
        wd = tempfile.mkdtemp()
        prof = nki.profile(working_directory=wd, profile_nth=2)(add_kernel)
        np.testing.assert_allclose(prof(A, B), A + B)
        for name in ("file.neff", "profile.ntff", "profile.json"):
            self.assertGreater(os.path.getsize(os.path.join(wd, name)), 0, name)
        p = neuronsim.Profile(os.path.join(wd, "neuronsim_profile"))
        self.assertGreater(p.total_ns, 0)
        with self.assertRaisesRegex(nki.NkiError, r"file.neff exists \(pass overwrite=True"):
            prof(A, B)
        nki.profile(working_directory=wd, overwrite=True)(add_kernel)(A, B)

    def test_errors(self):
        with self.assertRaisesRegex(nki.NkiError, r"working_directory= is required"):
            nki.profile(add_kernel)
        with self.assertRaisesRegex(nki.NkiError, r"must be an absolute path"):
            nki.profile(working_directory="rel")(add_kernel)
        with self.assertRaisesRegex(nki.NkiError, r"nki.profile: unknown keyword\(s\) nth"):
            nki.profile(working_directory="/tmp", nth=2)


class TypingAndCompiler(unittest.TestCase):
    def test_typing_forms(self):
        self.assertEqual(nt.tensor[128, 512].shape, (128, 512))
        spec = nt.tensor[[4, 8], nl.bfloat16]
        self.assertEqual((spec.shape, spec.dtype), ((4, 8), nl.bfloat16))
        self.assertEqual(nt.tensor[(4, 8), np.float16].dtype, nl.float16)
        self.assertTrue(nt.tensor[nt.mutable].is_mutable)
        self.assertTrue(nt.mutable_tensor.__getitem__((2, 2)).is_mutable)
        self.assertIs(nki.tensor, nt.tensor)
        self.assertIs(nl.NkiTensor, nt.tensor)
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: nt.tensor"):
            nt.tensor["x", "y", "z"]

    def test_isinstance_in_a_kernel(self):
        seen = []

        @nki.jit
        def k(a: nt.tensor, b: "nt.tensor[nt.mutable]"):
            seen.append((isinstance(a, nki.tensor), isinstance(nl.load(a), nt.tensor)))
            return add(a, b)

        nki.simulate(k)(A, B)
        self.assertEqual(seen, [(True, True)])
        self.assertFalse(isinstance(A, nki.tensor))

    def test_compiler_buffers(self):
        @ncc.force_auto_alloc
        @ncc.enable_stack_allocator(log_level=10)
        @ncc.skip_middle_end_transformations
        @nki.jit
        def k(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0,
                                                                           num_free_tiles=(2,)))
            ta[...] = nl.load(a)
            tb = nl.ndarray(a.shape, dtype=a.dtype, buffer=ncc.sbuf)
            tb[...] = nl.load(b)
            ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=1))
            ps[...] = nisa.nc_transpose(ta[:, 0:128])
            sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=ncc.sbuf.alloc(lambda i, p, f: (0, 0)))
            sb[...] = nl.copy(ps)
            nl.store(out, ta + tb)
            return out

        self.assertIsInstance(k, nki.JitKernel)
        np.testing.assert_allclose(nki.simulate(k)(A, B), A + B)
        self.assertEqual(ncc.sbuf, nl.sbuf)
        self.assertEqual(ncc.psum.auto_alloc(), nl.psum)
        self.assertEqual(ncc.sbuf.mod_alloc(base_addr=64).placement[1]["base_addr"], 64)
        for bad, msg in ((lambda: ncc.sbuf.mod_alloc(num_free_tiles=(2,)), "base_addr= is required"),
                         (lambda: ncc.sbuf.mod_alloc(base_addr=0, base_partition=32), "must be 0"),
                         (lambda: ncc.psum.mod_alloc(base_bank=9), "past PSUM's 8 banks"),
                         (lambda: ncc.sbuf.mod_alloc(base_addr=0, bank=1), "unknown argument"),
                         (lambda: ncc.sbuf.alloc(3), "must be callable")):
            with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: ncc.*{msg}"):
                bad()
        self.assertIsNotNone(ncc.CompileConfig(dead_code_elim=True).dead_code_elim)
        nki.jit(compile_config=ncc.CompileConfig(), specialization_config=ncc.SpecializationConfig())(add)


class Errors(unittest.TestCase):
    def test_call_errors_name_the_kernel(self):
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: add\(\): got an unexpected keyword "
                                    r"argument 'c'"):
            nki.simulate(add_kernel)(A, B, c=1)
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: add\(\): missing a required"):
            nki.simulate_kernel(add_kernel, A)
        with self.assertRaisesRegex(nki.NkiError, r"argument 'b_tensor': a tensor inside a tuple"):
            nki.simulate(add_kernel)(A, (B,))
        with self.assertRaisesRegex(nki.NkiError, r"argument 'b_tensor': an iterator"):
            nki.simulate(add_kernel)(A, iter([1]))
        with self.assertRaisesRegex(nki.NkiError, r"nki.jit: unknown keyword\(s\) fast"):
            nki.jit(fast=True)
        with self.assertRaisesRegex(nki.NkiError, r"nki.jit: unknown mode 'cuda'"):
            nki.jit(mode="cuda")(add)
        with self.assertRaisesRegex(nki.NkiError, r"unknown platform_target 'trn9'"):
            nki.jit(platform_target="trn9")(add)
        with self.assertRaisesRegex(nki.NkiError, r"nt.tensor without a shape"):
            nki.simulate(add_kernel)(nt.tensor, B)

    def test_in_place_update(self):
        # nt.mutable_tensor read and written (a KV-cache update, say): the kernel runs on a
        # copy of the argument, copied back into the caller's array.
        @nki.jit
        def bump(a: nt.mutable_tensor, rows):
            for r in rows:
                nl.store(a[r * 32:(r + 1) * 32, :], value=nl.load(a[r * 32:(r + 1) * 32, :]) + 1.0)
            return a

        x = A.copy()
        out = nki.simulate(bump)(x, (0, 2))
        want = A.copy()
        want[0:32] += 1.0
        want[64:96] += 1.0
        np.testing.assert_allclose(x, want)
        np.testing.assert_allclose(out, want)
        traced = bump.trace(A, (0, 2))
        self.assertEqual([h.name for h in traced.inputs], ["a_in"])
        self.assertEqual(traced.mutable, ("a",))
        self.assertIn("dma_copy a{ap=[[512, 128], [1, 512]], offset=0}, a_in{", traced.asm())  # one DMA

    def test_unsupported_names(self):
        with self.assertRaisesRegex(nki.NkiError, rf"{THIS}:\d+: nki.language.device_print"):
            nl.device_print("x", A)
        self.assertFalse(hasattr(nki, "FrameworkKernel"))
        with self.assertRaisesRegex(ImportError, rf"{THIS}:\d+: nki.isa.local_gather .* indirect"):
            from neuronsim.nki.isa import local_gather  # noqa: F401
        with self.assertRaises(AttributeError):
            nl.surely_not_an_nki_name


if __name__ == "__main__":
    unittest.main()
