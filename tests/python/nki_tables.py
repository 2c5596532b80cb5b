"""neuronsim.nki against the C++ ISA tables it must not copy (isa/instruction.hpp's opcode
table, isa/alu_op.hpp's ALU op table), and nisa.tensor_tensor_scan against numpy."""
import unittest

import numpy as np

import neuronsim
from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def linear_scan(decay, x, h0):
    # NKI's current convention: the output tile first; initial a [P,1] tile.
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    h = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor_scan(dst=h, data0=nl.load(decay), data1=nl.load(x), initial=nl.load(h0),
                            op0=nl.multiply, op1=nl.add)
    nl.store(out, h)
    return out


@nki.jit
def reversed_scan(a, b):
    # NKI's earlier convention, returning a new tile; an immediate initial.
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    r = nisa.tensor_tensor_scan(nl.load(a), nl.load(b), 3.0, nl.subtract, nl.subtract,
                                reverse0=True, reverse1=True)
    nl.store(out, r)
    return out


class Tables(unittest.TestCase):
    def test_alu_names_are_the_cxx_table(self):
        cxx = set(neuronsim._core.alu_op_names())
        self.assertEqual(len(cxx), len(neuronsim._core.alu_op_names()))
        self.assertLessEqual(set(nisa._ALU_NAMES.values()), cxx)
        # every C++ op is reachable under its own name
        for name in cxx:
            self.assertEqual(nisa.alu_op(name, None), name)

    def test_engines_are_the_cxx_table(self):
        engines = neuronsim._core.opcode_engines()
        self.assertEqual(engines["tensor_tensor_scan"], ("vector",))
        self.assertEqual(engines["tensor_scalar"], ("vector", "scalar"))
        self.assertEqual(engines["matmul"], ("tensor",))
        self.assertEqual(nisa._OPCODE_ENGINES, engines)


class TensorTensorScan(unittest.TestCase):
    def test_linear_recurrence(self):
        rng = np.random.default_rng(7)
        decay = rng.uniform(0.5, 1.0, (128, 40)).astype(np.float32)
        x = rng.uniform(-1.0, 1.0, (128, 40)).astype(np.float32)
        h0 = rng.uniform(-1.0, 1.0, (128, 1)).astype(np.float32)
        # NKI's numpy sketch, in fp32 as the engine computes
        want = np.empty_like(x)
        r = h0[:, 0]
        for i in range(x.shape[1]):
            r = decay[:, i] * r + x[:, i]
            want[:, i] = r
        np.testing.assert_array_equal(nki.simulate(linear_scan, decay, x, h0), want)

    def test_reverse_flags_and_immediate_initial(self):
        a = np.arange(128 * 16, dtype=np.float32).reshape(128, 16) % 7
        b = np.arange(128 * 16, dtype=np.float32).reshape(128, 16) % 5
        want = np.empty_like(a)
        r = np.full(128, 3.0, np.float32)
        for i in range(a.shape[1]):
            r = b[:, i] - (r - a[:, i])  # reverse0: r op0 data0; reverse1: data1 op1 t
            want[:, i] = r
        np.testing.assert_array_equal(nki.simulate(reversed_scan, a, b), want)


if __name__ == "__main__":
    unittest.main()
