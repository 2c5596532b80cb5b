"""tensor.view(dtype): a tile's bytes read as another dtype (NKI page nki.tensor, "view:
reinterpret to a specified type"), as exact_topk_mask-style kernels use it to turn int32
bit patterns built by integer ops into float32 thresholds. Checked against numpy's view."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def int_bits_as_float(bits):
    out = nl.ndarray(bits.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(bits)
    nl.store(out, value=t.view(nl.float32))
    return out


@nki.jit
def float_as_halves(x):
    P, F = x.shape
    out = nl.ndarray((P, 2 * F), dtype=nl.uint16, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t.view(nl.uint16))
    return out


@nki.jit
def threshold_from_bits(x):
    # A per-partition int32 bit pattern made by integer ops, used as a float32 scalar
    # operand: x >= float(0x3f800000) (1.0) counted per row.
    P, F = x.shape
    out = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    pattern = nl.ndarray((P, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=pattern, pattern=[[0, 1]], offset=0x3F800000, channel_multiplier=0)
    scratch = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    count = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_reduce(dst=scratch, data=t, op0=nl.greater_equal,
                              operand0=pattern.view(nl.float32), reduce_op=nl.add,
                              reduce_res=count)
    nl.store(out, value=count)
    return out


@nki.jit
def hbm_view(x):
    out = nl.ndarray(x.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x.view(nl.int32)))
    return out


@nki.jit
def strided_view(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=nl.uint16, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out[:, 0:F // 2 * 2], value=t[:, 0:F:2].view(nl.uint16))
    return out


class Views(unittest.TestCase):
    def test_int_bits_read_as_float(self):
        rng = np.random.default_rng(1)
        f = rng.standard_normal((128, 64)).astype(np.float32)
        got = nki.simulate_kernel(int_bits_as_float, f.view(np.int32))
        np.testing.assert_array_equal(got.view(np.int32), f.view(np.int32))

    def test_narrower_dtype_doubles_the_free_size(self):
        f = np.linspace(-3, 3, 128 * 8, dtype=np.float32).reshape(128, 8)
        got = nki.simulate_kernel(float_as_halves, f)
        self.assertEqual(got.shape, (128, 16))
        np.testing.assert_array_equal(got, f.view(np.uint16))

    def test_bit_pattern_as_scalar_operand(self):
        x = np.tile(np.array([0.5, 1.0, 2.0, -1.0], np.float32), (128, 16))
        got = nki.simulate_kernel(threshold_from_bits, x)
        np.testing.assert_array_equal(got, np.full((128, 1), 32.0, np.float32))

    def test_errors_name_the_call(self):
        x = np.zeros((128, 8), np.float32)
        with self.assertRaisesRegex(nki.NkiError, r"nki_lang_views.py:\d+: .*HBM tensor"):
            nki.simulate_kernel(hbm_view, x)
        with self.assertRaisesRegex(nki.NkiError, r"nki_lang_views.py:\d+: .*contiguous innermost"):
            nki.simulate_kernel(strided_view, x)


if __name__ == "__main__":
    unittest.main()
