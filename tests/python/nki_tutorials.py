"""The NKI tutorial kernels of examples/python/ against numpy, on trn2 (each) and trn1
(the smallest), each with a latency from nki.benchmark and a profile directory."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))

import layernorm  # noqa: E402
import matmul  # noqa: E402
import rmsnorm  # noqa: E402
import softmax  # noqa: E402
import tensor_add  # noqa: E402


class Tutorials(unittest.TestCase):
    def run_check(self, module, target="trn2"):
        result = module.check(target)  # asserts the numpy match
        self.assertGreater(result.latency_ns, 0)
        self.assertTrue(os.path.isdir(result.profile_dir))
        # A launch grid on trn2's two-core logical NeuronCore profiles each core in
        # core_<i>/ (nki/_spmd.py).
        self.assertTrue(any(f.endswith(".ntff") for _, _, files in os.walk(result.profile_dir)
                            for f in files))
        busy = [u for u in result.utilisation.values() if u > 0]
        self.assertTrue(busy and all(0 < u <= 1 for u in busy))
        return result

    def test_tensor_add(self):
        self.run_check(tensor_add)
        self.run_check(tensor_add, "trn1")

    def test_rmsnorm(self):
        self.run_check(rmsnorm)

    def test_softmax(self):
        self.run_check(softmax)

    def test_layernorm(self):
        self.run_check(layernorm)

    def test_matmul(self):
        r = self.run_check(matmul)
        self.assertGreater(r.utilisation["tensor"], 0)


if __name__ == "__main__":
    unittest.main()
