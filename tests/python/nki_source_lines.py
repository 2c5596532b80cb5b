"""Profiles in the user's terms: every instruction of a traced NKI kernel carries its
Python file:line through the NEFF (docs/assembly.md "Source locations", docs/neff.md),
so `neuronsim view` lists and searches the lines, the instruction JSON and Perfetto name
them, and the report's source view shows this file's text with per-line device time."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import neuronsim
from neuronsim import nki
import neuronsim.nki.language as nl

HERE = os.path.abspath(__file__)
NEURONSIM = os.environ.get("NEURONSIM", "neuronsim")


def line_of(text):
    """1-based line of this file holding `text` (the kernels below mark their lines)."""
    with open(HERE) as f:
        for n, line in enumerate(f, 1):
            if text in line and "line_of(" not in line:
                return n
    raise AssertionError(text)


@nki.jit
def scaled_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])  # LINE-LOAD-A
        tb = nl.load(b[i * 128:(i + 1) * 128, :])  # LINE-LOAD-B
        s = nl.multiply(nl.add(ta, tb), 2.0)  # LINE-MATH
        nl.store(out[i * 128:(i + 1) * 128, :], value=s)  # LINE-STORE
    return out


def cli(*args):
    return subprocess.run([NEURONSIM, *args], check=True, capture_output=True, text=True).stdout


class SourceLines(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(3)
        cls.a = rng.random((256, 512), dtype=np.float32)
        cls.b = rng.random((256, 512), dtype=np.float32)
        cls.tmp = tempfile.TemporaryDirectory(prefix="nki_source_lines_")
        cls.results = {}
        for target in ("trn1", "trn2"):
            d = os.path.join(cls.tmp.name, target)
            cls.results[target] = nki.benchmark(scaled_add, cls.a, cls.b, target=target,
                                                profile_dir=d, timing_only=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_matches_numpy_on_both_targets(self):
        for target, r in self.results.items():
            np.testing.assert_allclose(r.outputs[r.traced.outputs[0].name],
                                       (self.a + self.b) * 2.0, rtol=1e-6, err_msg=target)
            self.assertGreater(r.latency_ns, 0)

    def test_assembly_names_the_python_lines(self):
        text = scaled_add.trace(self.a, self.b, target="trn2").asm()
        self.assertIn('source py_nki_source_lines "%s"\n' % HERE, text)  # no text: short
        self.assertIn("@py_nki_source_lines:%d" % line_of("LINE-MATH"), text)
        kernel = neuronsim.assemble(text, "scaled_add")
        # neuronsim.assemble embedded this file's text; the kernel prints back with it,
        # and the printed text assembles to the same NEFF.
        printed = kernel.asm()
        self.assertIn('source py_nki_source_lines "%s" text="' % HERE, printed)
        self.assertIn("LINE-MATH", printed)
        self.assertEqual(neuronsim.assemble(printed, "again").hash, kernel.hash)

    def test_view_lists_and_searches_lines(self):
        d = self.results["trn2"].profile_dir
        out = cli("view", d)
        self.assertIn("by source line", out)
        self.assertIn("%s:%d" % (HERE, line_of("LINE-MATH")), out)
        self.assertIn("nl.multiply(nl.add(ta, tb), 2.0)", out)
        found = cli("view", d, "--source", "nki_source_lines.py:%d" % line_of("LINE-LOAD-A"))
        self.assertIn("2 instructions at source", found)  # one load per loop iteration
        self.assertIn("dma_copy", found)
        doc = json.loads(cli("view", d, "--json"))
        lines = {row["line"]: row for row in doc["source_lines"]}
        self.assertEqual(set(lines), {line_of(t) for t in
                                      ("LINE-LOAD-A", "LINE-LOAD-B", "LINE-MATH", "LINE-STORE")})
        # The math line's time is Vector's; a load's and the store's their DMA transfers'.
        self.assertGreater(lines[line_of("LINE-MATH")]["engines_ns"]["vector"], 0)
        for tag in ("LINE-LOAD-A", "LINE-LOAD-B", "LINE-STORE"):
            self.assertGreater(lines[line_of(tag)]["dma_ns"], 0, tag)

    def test_instruction_json_and_perfetto_name_lines(self):
        d = self.results["trn1"].profile_dir
        rows = json.loads(cli("view", d, "--instructions", "-"))["instruction"]
        sources = {r.get("source") for r in rows}
        self.assertIn("%s:%d" % (HERE, line_of("LINE-STORE")), sources)
        perfetto = os.path.join(self.tmp.name, "trace.json")
        cli("export", d, "--perfetto", perfetto)
        with open(perfetto) as f:
            self.assertIn("nki_source_lines.py:%d" % line_of("LINE-LOAD-B"), f.read())

    def test_report_source_view(self):
        d = self.results["trn2"].profile_dir
        html = os.path.join(self.tmp.name, "report.html")
        cli("report", d, "-o", html)
        with open(html) as f:
            page = f.read()
        self.assertIn("<h3>Source</h3>", page)
        self.assertIn('data-loc="%s:%d"' % (HERE, line_of("LINE-MATH")), page)
        # The whole file is in the page (it is under the 400-line limit), text escaped.
        self.assertIn("2.0)  # LINE-MATH", page)
        cli("report", d, "-o", html + "2")
        with open(html + "2") as f:
            self.assertEqual(f.read(), page)  # byte-identical across runs


if __name__ == "__main__":
    unittest.main()
