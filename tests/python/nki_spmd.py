"""SPMD launch grids on physical cores (python/neuronsim/nki/_spmd.py): the NKI tutorial's
tensor_add (examples/python/tensor_add.py) over an 8x4 grid on trn2, on one core and on
the two cores of a logical NeuronCore sharing HBM, against numpy; nl.nc and nl.spmd_dim
as NKI's pages define which programs go to which core; per-core times and profiles."""
import os
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))

from neuronsim import nki  # noqa: E402
import neuronsim.nki.language as nl  # noqa: E402
from neuronsim.nki import _spmd  # noqa: E402
from neuronsim.nki._spmd import run_spmd, core_programs  # noqa: E402
from neuronsim.nki.language import nc, spmd_dim  # noqa: E402
import tensor_add  # noqa: E402

KERNEL = tensor_add.nki_tensor_add_kernel_


@nki.jit
def copy_rows(a):
    # awsdocs-neuron nki.language.nc's example kernel: program (i, j) copies block a[i, j].
    b = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    ix = i * 128 + nl.arange(128)[:, None]
    iy = j * 256 + nl.arange(256)[None, :]
    nl.store(b[ix, iy], value=nl.load(a[ix, iy]))
    return b


class Assignment(unittest.TestCase):
    """Which programs each core runs, as the NKI pages' examples say."""

    def test_nc_axis(self):
        # nki.language.nc: kernel[nl.nc(2), 2]: NC 0 runs [0, 0], [0, 1]; NC 1 [1, 0], [1, 1].
        sizes, split = core_programs((nc(2), 2), 2)
        self.assertEqual(sizes, (2, 2))
        self.assertEqual(split, [[(0, 0), (0, 1)], [(1, 0), (1, 1)]])

    def test_spmd_dim_axis(self):
        # nki.language.spmd_dim: kernel[nl.spmd_dim(nl.nc(2), 2), 2] over a (4, 2) grid:
        # NC 0 runs [0, *] and [1, *], NC 1 runs [2, *] and [3, *].
        sizes, split = core_programs((spmd_dim(nc(2), 2), 2), 2)
        self.assertEqual(sizes, (4, 2))
        self.assertEqual(split[0], [(0, 0), (0, 1), (1, 0), (1, 1)])
        self.assertEqual(split[1], [(2, 0), (2, 1), (3, 0), (3, 1)])

    def test_unannotated_grid(self):
        _, split = core_programs((8, 4), 2)
        self.assertEqual([len(p) for p in split], [16, 16])
        self.assertTrue(all(p[0] < 4 for p in split[0]) and all(p[0] >= 4 for p in split[1]))
        _, odd = core_programs((3, 3), 2)  # no axis divides: contiguous parts, 5 and 4
        self.assertEqual([len(p) for p in odd], [5, 4])
        _, one = core_programs((8, 4), 1)
        self.assertEqual(len(one[0]), 32)

    def test_lnc_degree(self):
        old = os.environ.pop("NEURON_LOGICAL_NC_CONFIG", None)
        try:
            self.assertEqual(_spmd.lnc_degree("trn1"), 1)
            self.assertEqual(_spmd.lnc_degree("trn2"), 2)
            os.environ["NEURON_LOGICAL_NC_CONFIG"] = "1"
            self.assertEqual(_spmd.lnc_degree("trn2"), 1)
            os.environ["NEURON_LOGICAL_NC_CONFIG"] = "4"
            with self.assertRaises(nki.NkiError):
                _spmd.lnc_degree("trn2")
        finally:
            os.environ.pop("NEURON_LOGICAL_NC_CONFIG", None)
            if old is not None:
                os.environ["NEURON_LOGICAL_NC_CONFIG"] = old

    def test_bad_grids_are_nki_errors(self):
        for bad in (lambda: nc(0), lambda: nc(1.5), lambda: spmd_dim(nc(2), 0),
                    lambda: core_programs((nc(2), nc(2)), 2),
                    lambda: core_programs((nc(2), 4), 1), lambda: core_programs((0,), 1)):
            with self.assertRaises(nki.NkiError) as e:
                bad()
            self.assertIn("nki_spmd.py:", str(e.exception))


class TwoCores(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(5)
        cls.a = rng.random((1024, 2048), dtype=np.float32)  # an 8 x 4 grid of 128 x 512 tiles
        cls.b = rng.random((1024, 2048), dtype=np.float32)
        cls.tmp = tempfile.TemporaryDirectory(prefix="nki_spmd_")
        cls.runs = {}
        for cores in (1, 2):
            cls.runs[cores] = run_spmd(KERNEL[8, 4], cls.a, cls.b, cores=cores, target="trn2",
                                       profile_dir=os.path.join(cls.tmp.name, f"lnc{cores}"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_matches_numpy_on_one_and_two_cores(self):
        for cores, (out, r) in self.runs.items():
            np.testing.assert_allclose(out, self.a + self.b, rtol=1e-6, err_msg=f"{cores} cores")
            self.assertEqual(len(r.core_latency_ns), cores)
            self.assertEqual(sum(len(p) for p in r.programs), 32)
            print(f"tensor_add 8x4 on trn2, {cores} core(s): "
                  + ", ".join(f"core {i} {t:.0f} ns" for i, t in enumerate(r.core_latency_ns)),
                  file=sys.stderr)

    def test_two_cores_share_the_work(self):
        one, two = self.runs[1][1], self.runs[2][1]
        self.assertLess(two.latency_ns, one.latency_ns)
        self.assertTrue(all(t > 0 for t in two.core_latency_ns))
        # Each core's profile is its own directory, both readable by `neuronsim view`.
        import neuronsim

        for i in range(2):
            p = neuronsim.Profile(os.path.join(two.profile_dir, f"core_{i}"))
            self.assertEqual(p.summary["kernel_name"], f"nki_tensor_add_kernel__nc{i}")
            self.assertAlmostEqual(p.summary["total_time"] * 1e9, two.core_latency_ns[i], places=3)

    def test_drivers_use_both_cores(self):
        # Every driver runs a gridded kernel on both cores of trn2's logical NeuronCore
        # (LNC=2 by default); NEURON_LOGICAL_NC_CONFIG=1 puts it back on one core.
        old = os.environ.pop("NEURON_LOGICAL_NC_CONFIG", None)
        try:
            np.testing.assert_allclose(nki.simulate(KERNEL[8, 4])(self.a, self.b), self.a + self.b,
                                       rtol=1e-6)
            r = nki.benchmark(KERNEL[8, 4], self.a, self.b, target="trn2")
            self.assertEqual(len(r.core_latency_ns), 2)
            self.assertEqual(r.latency_ns, max(r.core_latency_ns))
            # The same times as run_spmd's (same split, same traced kernels).
            self.assertEqual(r.core_latency_ns, self.runs[2][1].core_latency_ns)
            t1 = nki.benchmark(KERNEL[8, 4], self.a, self.b, target="trn1")
            self.assertEqual(len(t1.core_latency_ns), 1)  # trn1: LNC=1 only
            os.environ["NEURON_LOGICAL_NC_CONFIG"] = "1"
            one = nki.benchmark(KERNEL[8, 4], self.a, self.b, target="trn2")
            self.assertEqual(one.core_latency_ns, [one.latency_ns])
            self.assertLess(r.latency_ns, one.latency_ns)
            np.testing.assert_allclose(nki.simulate_kernel(KERNEL[8, 4], self.a, self.b),
                                       self.a + self.b, rtol=1e-6)
        finally:
            os.environ.pop("NEURON_LOGICAL_NC_CONFIG", None)
            if old is not None:
                os.environ["NEURON_LOGICAL_NC_CONFIG"] = old

    def test_nc_grid_through_the_drivers(self):
        a = np.arange(256 * 512, dtype=np.float32).reshape(256, 512)
        out = nki.simulate(copy_rows[nl.nc(2), 2])(a)
        np.testing.assert_array_equal(out, a)

    def test_annotated_grids(self):
        a = np.arange(256 * 512, dtype=np.float32).reshape(256, 512)
        out, r = run_spmd(copy_rows, a, grid=(nc(2), 2), cores=2, target="trn2")
        np.testing.assert_array_equal(out, a)
        self.assertEqual(r.programs, [[(0, 0), (0, 1)], [(1, 0), (1, 1)]])
        a4 = np.arange(512 * 512, dtype=np.float32).reshape(512, 512)
        out, r = run_spmd(copy_rows, a4, grid=(spmd_dim(nc(2), 2), 2), cores=2, target="trn2")
        np.testing.assert_array_equal(out, a4)

    def test_timing_only_and_run_cores_errors(self):
        import neuronsim

        out, r = run_spmd(KERNEL[8, 4], self.a, self.b, cores=2, target="trn2", timing_only=True)
        self.assertIsNone(out)
        self.assertEqual(r.core_latency_ns, self.runs[2][1].core_latency_ns)  # same timing
        # Kernels that name one tensor with two shapes cannot share it.
        k1 = KERNEL[2, 1].trace(self.a[:256, :512], self.b[:256, :512], target="trn2").kernel
        k2 = KERNEL[1, 1].trace(self.a[:128, :512], self.b[:128, :512], target="trn2").kernel
        with self.assertRaises(neuronsim.Error) as e:
            neuronsim.run_cores([k1, k2], {"a_input": self.a[:256, :512],
                                           "b_input": self.b[:256, :512]}, target="trn2")
        self.assertIn("differs from the tensor of that name", str(e.exception))
        with self.assertRaises(neuronsim.Error):
            neuronsim.run_cores([k1] * 3, None, target="trn1", timing_only=True)  # 2 cores

    def test_trn1_runs_on_one_core(self):
        a, b = self.a[:256, :1024], self.b[:256, :1024]
        out, r = run_spmd(KERNEL[2, 2], a, b, target="trn1")
        np.testing.assert_allclose(out, a + b, rtol=1e-6)
        self.assertEqual(len(r.core_latency_ns), 1)
        with self.assertRaises(nki.NkiError):
            run_spmd(copy_rows, a, grid=(nc(2), 2), target="trn1")


if __name__ == "__main__":
    unittest.main()
