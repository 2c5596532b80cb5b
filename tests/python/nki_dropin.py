"""Drop-in imports: kernel files and driver scripts written in AWS's NKI spellings
(tests/python/nki_files/: `import neuronxcc.nki as nki`, `from neuronxcc import nki`,
`import nki.language as nl`, nki.typing, nki.compiler) run unedited through
`python3 -m neuronsim.nki`, on trn1 and trn2, and match numpy (the scripts assert it).
The hook is opt-in: without it those imports fail as before."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "nki_files")


def run(args, cwd, target=None, expect=0):
    import neuronsim

    env = dict(os.environ)
    # The scripts run in a temporary directory: the package by absolute path.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(neuronsim.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("NEURON_PLATFORM_TARGET_OVERRIDE", None)
    if target:
        env["NEURON_PLATFORM_TARGET_OVERRIDE"] = target  # nki.jit page: selects the platform
    p = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=300)
    if p.returncode != expect:
        raise AssertionError(f"{args} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


class DropIn(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nki_dropin_")
        for f in os.listdir(FILES):
            if f.endswith(".py"):
                shutil.copy(os.path.join(FILES, f), self.dir)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_kernel_file_on_trn1_and_trn2(self):
        import neuronsim

        p50 = {}
        for target in ("trn1", "trn2"):
            out = run(["-m", "neuronsim.nki", "add_kernels.py"], self.dir, target).stdout
            self.assertIn("add_kernels OK", out)
            self.assertIn(f"tiled_add on {target}", out)
            p50[target] = float(out.split("latency.p50 = ")[1].split()[0])
            k = neuronsim.load_neff(os.path.join(self.dir, "file.neff"))  # save_neff_name
            self.assertEqual(k.target, target)
            self.assertGreater(os.path.getsize(os.path.join(self.dir, "profile.ntff")), 0)
        self.assertTrue(all(v > 0 for v in p50.values()), p50)
        self.assertNotEqual(p50["trn1"], p50["trn2"])

    def test_driver_script_imports_kernel_file(self):
        for target in ("trn1", "trn2"):
            out = run(["-m", "neuronsim.nki", "run_add.py", "arg1"], self.dir, target).stdout
            self.assertIn("run_add OK arg1", out)  # sys.argv reaches the script
            self.assertIn(f"matmul_t on {target}", out)
            self.assertTrue(os.path.getsize(os.path.join(self.dir, "bm.neff")) > 0)
            self.assertTrue(os.path.getsize(os.path.join(self.dir, "bm.ntff")) > 0)

    def test_current_spelling_unittest_file(self):
        p = run(["-m", "neuronsim.nki", "test_current_nki.py"], self.dir)
        self.assertIn("OK", p.stderr)
        # The -m form runs a module as `python3 -m unittest` would.
        p = run(["-m", "neuronsim.nki", "-m", "unittest", "test_current_nki"], self.dir, "trn1")
        self.assertIn("Ran 4 tests", p.stderr)

    def test_code_form_and_module_identity(self):
        code = ("import neuronxcc.nki.language as nl, nki.language as nl2, neuronsim.nki.language as m\n"
                "from neuronxcc import nki\n"
                "import neuronxcc.nki.typing as nt, neuronxcc.nki.compiler as ncc, neuronsim.nki\n"
                "assert nl is m and nl2 is m and nl.float32 is m.float32\n"
                "assert nki is neuronsim.nki and nki.language is m and ncc is neuronsim.nki.compiler\n"
                "assert neuronsim.nki.__spec__.name == 'neuronsim.nki'\n"
                "print('same modules')")
        self.assertIn("same modules", run(["-m", "neuronsim.nki", "-c", code], self.dir).stdout)

    def test_opt_in_only(self):
        p = run(["-c", "import neuronsim.nki\nimport neuronxcc.nki"], self.dir, expect=1)
        self.assertIn("No module named 'neuronxcc'", p.stderr)

    def test_errors_name_the_user_line(self):
        with open(os.path.join(self.dir, "bad.py"), "w") as f:
            f.write("import neuronxcc.nki.language as nl\n"
                    "from neuronxcc.nki.isa import local_gather\n")
        p = run(["-m", "neuronsim.nki", "bad.py"], self.dir, expect=1)
        self.assertIn("bad.py:2: nki.isa.local_gather", p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        with open(os.path.join(self.dir, "bad2.py"), "w") as f:
            f.write("import neuronxcc.nki.kernels.attention\n")
        p = run(["-m", "neuronsim.nki", "bad2.py"], self.dir, expect=1)
        self.assertIn("bad2.py:1: import neuronxcc.nki.kernels: the nki.kernels library", p.stderr)
        p = run(["-m", "neuronsim.nki", "missing.py"], self.dir, expect=2)
        self.assertIn("can't open file", p.stderr)
        self.assertIn("usage: python3 -m neuronsim.nki", run(["-m", "neuronsim.nki"], self.dir,
                                                               expect=2).stdout)
        self.assertIn("usage:", run(["-m", "neuronsim.nki", "--help"], self.dir).stdout)
        p = run(["-m", "neuronsim.nki", "--target", "trn9", "x.py"], self.dir, expect=2)
        self.assertIn("--target 'trn9': expected one of", p.stderr)

    def test_target_option(self):
        code = "import neuronxcc.nki as nki, os; print(os.environ['NEURON_PLATFORM_TARGET_OVERRIDE'])"
        self.assertEqual(run(["-m", "neuronsim.nki", "--target", "inf2", "-c", code], self.dir,
                             "trn2").stdout.strip(), "inf2")
        out = run(["-m", "neuronsim.nki", "--target=trn1", "add_kernels.py"], self.dir).stdout
        self.assertIn("tiled_add on trn1", out)

    def test_install_refuses_after_a_real_import(self):
        with open(os.path.join(self.dir, "nki.py"), "w") as f:
            f.write("REAL = True\n")  # stands for a real `nki` installation
        code = ("import nki, neuronsim.nki\n"
                "try:\n    neuronsim.nki.install_import_hook()\n"
                "except neuronsim.nki.NkiError as e:\n    print('refused:', e)\n")
        out = run(["-c", code], self.dir).stdout
        self.assertIn("refused: install_import_hook: nki was already imported", out)


    def test_dir_lists_the_api_not_the_implementation(self):
        import neuronsim.nki as nki
        import neuronsim.nki.isa as nisa
        import neuronsim.nki.language as nl

        for name in ("load", "store", "ndarray", "mgrid", "par_dim", "float32", "tile_size"):
            self.assertIn(name, dir(nl))
        for name in ("nc_matmul", "activation", "dma_copy", "vector_engine"):
            self.assertIn(name, dir(nisa))
        self.assertIn("jit", dir(nki))
        for module in (nl, nisa, nki):
            shown = dir(module)
            self.assertEqual([n for n in shown if n.startswith("_")], [], module.__name__)
            for internal in ("Tensor", "fail", "new_tile", "emit", "np", "annotations"):
                self.assertNotIn(internal, shown, module.__name__)
        self.assertEqual(nl.Tensor.__name__, "Tensor")  # still there for the front end itself

if __name__ == "__main__":
    unittest.main()
