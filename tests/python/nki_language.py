"""neuronsim.nki language features against numpy: the SPMD grid, partition broadcast,
index grids, iota, transposes, nl.matmul, dtype casts, returning-style nki.isa calls,
tile assignment and the mask rule."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def grid_scale(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)  # shared by the programs
    p = nl.program_id(0)
    rows = nl.arange(128)[:, None] + p * 128
    cols = nl.arange(a.shape[1])[None, :]
    nl.store(out[rows, cols], value=nl.multiply(nl.load(a[rows, cols]), float(p + 1)))
    return out


@nki.jit
def broadcast_rows(v):
    out = nl.ndarray((128, v.shape[0]), dtype=v.dtype, buffer=nl.shared_hbm)
    t = nl.load(v.reshape((1, v.shape[0])))  # one partition
    nl.store(out, t.broadcast_to((128, v.shape[0])))  # Tensor-engine broadcast, 2 chunks
    return out


@nki.jit
def iota_kernel():
    out = nl.ndarray((128, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    ip, jf = nl.mgrid[0:128, 0:64]
    nl.store(out, nisa.iota(ip * 64 + jf + 5, dtype=nl.int32))
    return out


@nki.jit
def transpose_matmul(x, y):
    # nl.matmul without transpose_x: x [M, K] goes through nc_transpose first.
    out = nl.ndarray((x.shape[0], y.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, nl.matmul(nl.load(x), nl.load(y)))
    return out


@nki.jit
def returning_style(a):
    # NKI's earlier convention: nki.isa calls return new tiles.
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    e = nisa.activation(nl.exp, t, scale=0.5)
    s = nisa.tensor_reduce(nl.add, e, axis=[1], keepdims=True)
    r = nisa.tensor_scalar(e, nl.divide, s)
    nl.store(out, r)
    return out


@nki.jit
def cast_and_assign(a):
    out = nl.ndarray((a.shape[0], 2 * a.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a, dtype=nl.bfloat16)  # the DMA casts fp32 -> bf16
    both = nl.ndarray((128, 2 * a.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    both[:, 0:a.shape[1]] = nl.add(t, 1.0)  # the tensor_scalar writes the view directly
    both[:, a.shape[1]:] = t  # a tensor_copy
    nl.store(out, both)
    return out


@nki.jit
def partial_mask(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ix = nl.arange(128)[:, None]
    iy = nl.arange(a.shape[1])[None, :]
    t = nl.load(a[ix, iy], mask=(ix < 100))
    nl.store(out[ix, iy], value=t)
    return out


@nki.jit
def causal_mask_old(scores):
    # NKI's earlier form: the predicate is a comparison of index expressions.
    out = nl.ndarray(scores.shape, dtype=scores.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:128]
    nl.store(out, nisa.affine_select(i_p >= i_f, nl.load(scores), -1e9))
    return out


@nki.jit
def causal_mask_new(scores):
    # NKI's current form: p * channel_multiplier + i * step + offset, compared with 0.
    out = nl.ndarray(scores.shape, dtype=scores.dtype, buffer=nl.shared_hbm)
    t = nl.load(scores)
    masked = nl.ndarray(scores.shape, dtype=scores.dtype, buffer=nl.sbuf)
    nisa.affine_select(dst=masked, pattern=[[-1, 128]], offset=0, channel_multiplier=1,
                       on_true_tile=t, on_false_value=-1e9, cmp_op=nl.greater_equal)
    nl.store(out, masked)
    return out


@nki.jit
def iota_pattern():
    out = nl.ndarray((128, 4, 8), dtype=nl.int32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4, 8), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(t, [[100, 4], [1, 8]], offset=7, channel_multiplier=1000)
    nl.store(out, t)
    return out


@nki.jit
def where_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    nl.store(out, nl.where(nl.greater(ta, tb), ta, 0.0))
    return out


@nki.jit
def reduce_3d(a):
    # [128, 4, 8]: the innermost axis alone, then both free axes. The contiguous tile's
    # dims must reach tensor_reduce unmerged.
    inner = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    both = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(inner, nl.max(t, axis=2))
    nl.store(both, nl.sum(t, axis=[1, 2], keepdims=True))
    return inner, both


class Language(unittest.TestCase):
    def test_reduce_3d(self):
        a = np.random.default_rng(8).random((128, 4, 8), dtype=np.float32)
        inner, both = nki.simulate(reduce_3d, a)
        np.testing.assert_array_equal(inner, a.max(axis=2))
        np.testing.assert_allclose(both, a.sum(axis=(1, 2)).reshape(128, 1), rtol=1e-5)

    def test_affine_select_causal_mask(self):
        s = np.random.default_rng(6).standard_normal((128, 128), dtype=np.float32)
        want = np.where(np.tril(np.ones((128, 128), bool)), s, np.float32(-1e9))
        np.testing.assert_array_equal(nki.simulate(causal_mask_old, s), want)
        np.testing.assert_array_equal(nki.simulate(causal_mask_new, s), want)

    def test_iota_pattern(self):
        p, i, j = np.meshgrid(np.arange(128), np.arange(4), np.arange(8), indexing="ij")
        np.testing.assert_array_equal(nki.simulate(iota_pattern)(), 7 + 1000 * p + 100 * i + j)

    def test_where(self):
        rng = np.random.default_rng(7)
        a, b = rng.random((128, 32), dtype=np.float32), rng.random((128, 32), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(where_kernel, a, b), np.where(a > b, a, 0.0))

    def test_spmd_grid(self):
        a = np.random.default_rng(1).random((384, 64), dtype=np.float32)
        out = nki.simulate(grid_scale[3], a)
        want = a * np.repeat([1.0, 2.0, 3.0], 128)[:, None]
        np.testing.assert_allclose(out, want, rtol=1e-6)
        self.assertEqual(grid_scale[3].trace(a).asm().count(" output"), 1)

    def test_partition_broadcast(self):
        v = np.random.default_rng(2).random(1000, dtype=np.float32)
        out = nki.simulate(broadcast_rows, v)
        np.testing.assert_array_equal(out, np.broadcast_to(v, (128, 1000)))
        asm = broadcast_rows.trace(v).asm()
        self.assertEqual(asm.count("    matmul "), 2)  # 512 + 488 elements

    def test_iota(self):
        out = nki.simulate(iota_kernel)()  # NKI: nki.simulate(kernel) is a callable
        np.testing.assert_array_equal(out, np.arange(128 * 64).reshape(128, 64) + 5)

    def test_matmul_with_transpose(self):
        rng = np.random.default_rng(3)
        x, y = rng.standard_normal((64, 128), dtype=np.float32), rng.standard_normal((128, 256), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(transpose_matmul, x, y), x @ y, rtol=1e-3, atol=1e-3)

    def test_returning_style(self):
        a = np.random.default_rng(4).standard_normal((128, 256), dtype=np.float32)
        e = np.exp(a * 0.5)
        np.testing.assert_allclose(nki.simulate(returning_style, a), e / e.sum(1, keepdims=True),
                                   rtol=1e-4)

    def test_cast_and_assign(self):
        a = np.random.default_rng(5).random((128, 64), dtype=np.float32)
        out = nki.simulate(cast_and_assign, a)
        ab = out[:, 64:]
        self.assertLess(np.abs(ab - a).max(), 2 ** -8)  # bf16 rounding
        np.testing.assert_allclose(out[:, :64], ab + 1.0, rtol=1e-2)
        vector = cast_and_assign.trace(a).asm().split("vector:")[1].split("\n\n")[0]
        self.assertEqual(vector.count("tensor_scalar"), 1)
        self.assertEqual(vector.count("tensor_copy"), 1)

    def test_partial_mask_is_refused(self):
        with self.assertRaises(nki.NkiError) as cm:
            partial_mask.trace(np.ones((128, 8), np.float32))
        self.assertIn("mask", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
