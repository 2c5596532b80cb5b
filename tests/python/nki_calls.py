"""Kernels calling kernels, and what a kernel returns: a jit kernel called inside another
kernel's trace is inlined (NKI's sub-kernels, @nki.jit(mode="trace") in the neuronxcc-era
samples); a returned reshape or slice of an output comes back with its own shape;
nki.execute runs a kernel; numpy's np.max / np.min (named amax / amin before numpy 1.25)
are ALU ops. Written here in the documented NKI API, checked against numpy."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit(mode="trace")
def scaled_copy(src_tile, factor):
    # A helper kernel: works on the caller's SBUF tiles, returns a new tile.
    return nl.multiply(src_tile, factor)


@nki.jit
def plain_helper(src_tile):
    return nl.add(src_tile, 1.0)


@nki.jit
def caller(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    t = scaled_copy(t, 3.0)
    t = plain_helper(t)
    nl.store(out, t)
    return out


@nki.jit
def returns_reshape(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.exp(nl.load(a)))
    return out.reshape((2, 64, 64))


@nki.jit
def returns_slice(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(a))
    return out[0:64, 8:24]


@nki.jit
def max_of_rows(a):
    out = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    m = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=m, op=np.max, data=t, axis=(1,))
    nl.store(out, m)
    return out


@nki.jit
def grid_inside(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = plain_helper[2](nl.load(a))
    nl.store(out, t)
    return out


class Calls(unittest.TestCase):
    def setUp(self):
        self.x = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)

    def test_sub_kernels_inline(self):
        for target in ("trn1", "trn2"):
            y = nki.simulate(caller, self.x, target=target)
            np.testing.assert_allclose(y, self.x * 3.0 + 1.0, rtol=1e-6)
        # One kernel: the helpers' instructions are the caller's (load, 2 ops, store).
        self.assertEqual(caller.trace(self.x).kernel.instruction_count, 4)

    def test_trace_mode_alone_is_an_error(self):
        with self.assertRaises(nki.NkiError) as cm:
            nki.simulate_kernel(scaled_copy, self.x, 2.0)
        self.assertIn("mode='trace'", str(cm.exception))

    def test_grid_inside_a_trace_is_an_error(self):
        with self.assertRaises(nki.NkiError) as cm:
            nki.simulate_kernel(grid_inside, self.x)
        self.assertIn("plain_helper[2]", str(cm.exception))
        self.assertIn("nki_calls.py", str(cm.exception))

    def test_returned_views(self):
        y = nki.simulate_kernel(returns_reshape, self.x)
        self.assertEqual(y.shape, (2, 64, 64))
        np.testing.assert_allclose(y, np.exp(self.x).reshape(2, 64, 64), rtol=1e-5)
        y = nki.simulate(returns_slice)(self.x)
        self.assertEqual(y.shape, (64, 16))
        np.testing.assert_array_equal(y, self.x[0:64, 8:24])

    def test_execute(self):
        np.testing.assert_allclose(nki.execute(caller, self.x), self.x * 3.0 + 1.0, rtol=1e-6)

    def test_numpy_max_as_op(self):
        y = nki.simulate_kernel(max_of_rows, self.x)
        np.testing.assert_array_equal(y[:, 0], self.x.max(axis=1))


if __name__ == "__main__":
    unittest.main()
