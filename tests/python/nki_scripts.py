"""The scripts of examples/python/ run to completion: the tutorials' latency table on
trn1 and trn2, and the RMSNorm study (at a small shape, to stay quick)."""
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "python")


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args],
                       capture_output=True, text=True, env=os.environ)
    if p.returncode:
        raise AssertionError(f"{script} failed:\n{p.stdout}\n{p.stderr}")
    return p.stdout


class Scripts(unittest.TestCase):
    def test_bench_tutorials(self):
        out = run("bench_tutorials.py")
        rows = [line for line in out.splitlines()[1:] if line.strip()]
        self.assertEqual(len(rows), 7)
        for row in rows:  # two latencies per row, both positive
            nums = [float(w) for w in row.split() if w.replace(".", "").isdigit() and "." in w]
            self.assertEqual(len(nums), 2, row)
            self.assertTrue(all(v > 0 for v in nums), row)

    @unittest.skipUnless(os.environ.get("NEURONSIM"), "needs the neuronsim program ($NEURONSIM)")
    def test_rmsnorm_study(self):
        out = run("rmsnorm_study.py", "--shapes", "256x512", "--neuronsim", os.environ["NEURONSIM"])
        self.assertIn("256x512", out)


if __name__ == "__main__":
    unittest.main()
