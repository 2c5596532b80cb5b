"""More of nki.language, each call written as its NKI page documents it and checked
against numpy: broadcast_to, spmd_dim / nc, dtype aliases, floor / ceil / mod, finfo /
iinfo, static_cast, loop_reduce, shared_constant, load_transpose2d, *_like, var,
softmax, bitwise ops, atomic_rmw, expand_dims, program_id / num_programs / program_ndim."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl


@nki.jit
def broadcast_fn(v):
    out = nl.ndarray((128, v.shape[1]), dtype=v.dtype, buffer=nl.shared_hbm)
    row = nl.load(v)  # [1, F]
    nl.store(out, value=nl.broadcast_to(row, shape=(128, v.shape[1])))
    return out


@nki.jit
def rounding(a, b):
    fl = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    ce = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    md = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    nl.store(fl, value=nl.floor(ta))
    nl.store(ce, value=nl.ceil(ta))
    nl.store(md, value=nl.mod(ta, tb))
    return fl, ce, md


@nki.jit
def cast_and_like(a):
    out = nl.ndarray(a.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    z = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=nl.static_cast(t, nl.int32))  # rounds half to even
    zeros = nl.zeros_like(t)
    blank = nl.empty_like(t)
    blank[...] = nl.ones_like(t)
    nl.store(z, value=nl.add(nl.add(zeros, nl.full_like(t, 2.0)), blank))
    return out, z


@nki.jit
def loop_sum_max(a):
    # loop_reduce as the NKI page spells it: the tile assigned to is op's other input.
    n = a.shape[0] // 128
    s = nl.ndarray((128, a.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    m = nl.ndarray((128, a.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, a.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    best = nl.full((128, a.shape[1]), -1e30, dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(n):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        acc = nl.loop_reduce(t, op=np.add, loop_indices=[i], dtype=nl.float32)
        best = nl.loop_reduce(t, op=np.maximum, loop_indices=[i], dtype=nl.float32)
    nl.store(s, value=acc)
    nl.store(m, value=best)
    return s, m


WEIGHTS = np.arange(128 * 4, dtype=np.float32).reshape(128, 4) / 7.0


@nki.jit
def constant_scale(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    w = nl.shared_constant(WEIGHTS)
    nl.store(out, value=nl.multiply(nl.load(a), nl.load(w)))
    return out


@nki.jit
def identity_and_cos(a):
    # nl.shared_identity_matrix as a matmul operand (a transpose through the Tensor
    # engine), and nl.cos.
    out_t = nl.ndarray((a.shape[1], a.shape[0]), dtype=nl.float32, buffer=nl.shared_hbm)
    out_c = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    eye = nl.load(nl.shared_identity_matrix(n=128, dtype=nl.float32))
    t = nl.load(a)
    nl.store(out_t, value=nl.copy(nl.matmul(t, eye, transpose_x=True)))
    nl.store(out_c, value=nl.cos(t))
    return out_t, out_c


@nki.jit
def transposed_load(a):
    out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load_transpose2d(a))
    return out


@nki.jit
def stats(a):
    v = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    sm = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(v, value=nl.var(t, axis=1))
    nl.store(sm, value=nl.softmax(t, axis=1))
    return v, sm


@nki.jit
def bits(a, b):
    out_and = nl.ndarray(a.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    out_shl = nl.ndarray(a.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    nl.store(out_and, value=nl.bitwise_and(ta, tb))
    nl.store(out_shl, value=nl.left_shift(ta, 2))
    return out_and, out_shl


@nki.jit
def accumulate_hbm(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=t)
    nl.atomic_rmw(out, value=t, op=np.add)  # out = out + t
    return out


@nki.jit
def expand(a):
    out = nl.ndarray((128, 1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=nl.expand_dims(t, 1))
    return out


@nki.jit
def spmd_ids(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i, j = nl.program_id(0), nl.program_id(1)
    rows = a.shape[0] // nl.num_programs(0)
    cols = a.shape[1] // nl.num_programs(1)
    assert nl.program_ndim() == 2
    blk = a[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols]
    nl.store(out[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols],
             value=nl.add(nl.load(blk), float(10 * i + j)))
    return out


@nki.jit
def logic_and_rounding(a, b, ints):
    outs = [nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm) for _ in range(6)]
    inv = nl.ndarray(ints.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    ta, tb = nl.load(a), nl.load(b)
    for out, value in zip(outs, (nl.logical_and(ta, tb), nl.logical_or(ta, tb),
                                 nl.logical_xor(ta, tb), nl.logical_not(ta),
                                 nl.trunc(ta), nl.tan(ta))):
        nl.store(out, value=value)
    nl.store(inv, value=nl.invert(nl.load(ints)))
    return tuple(outs) + (inv,)


@nki.jit
def unsupported_name(a):
    return nl.device_print("a", nl.load(a))


class Misc(unittest.TestCase):
    def test_logic_and_rounding(self):
        rng = np.random.default_rng(11)
        a = rng.choice([0.0, 1.5, -2.5, 0.3], (128, 32)).astype(np.float32)
        b = rng.choice([0.0, 1.0], (128, 32)).astype(np.float32)
        ints = rng.integers(-1000, 1000, (128, 8), dtype=np.int32)
        got = nki.simulate(logic_and_rounding, a, b, ints)
        want = [np.logical_and(a, b), np.logical_or(a, b), np.logical_xor(a, b),
                np.logical_not(a), np.trunc(a)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.astype(np.float32))
        np.testing.assert_allclose(got[5], np.tan(a), rtol=2e-3, atol=2e-3)
        np.testing.assert_array_equal(got[6], ~ints)

    def test_unsupported_name(self):
        with self.assertRaises(nki.NkiError) as cm:
            unsupported_name.trace(np.ones((128, 4), np.float32))
        self.assertIn("nki_lang_misc.py:", str(cm.exception))
        self.assertIn("device_print", str(cm.exception))
        self.assertIn("not supported", str(cm.exception))
        self.assertFalse(hasattr(nl, "no_such_call"))

    def test_broadcast_to_function(self):
        v = np.random.default_rng(0).random((1, 48), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(broadcast_fn, v), np.broadcast_to(v, (128, 48)))

    def test_floor_ceil_mod(self):
        rng = np.random.default_rng(1)
        a = (rng.standard_normal((128, 64)) * 10).astype(np.float32)
        a[0, :8] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.0, -3.0]  # ties and integers
        b = rng.uniform(0.5, 4, (128, 64)).astype(np.float32) * np.where(rng.random((128, 64)) < 0.3, -1, 1)
        for target in ("trn1", "trn2"):
            fl, ce, md = nki.simulate(rounding, a, b.astype(np.float32), target=target)
            np.testing.assert_array_equal(fl, np.floor(a))
            np.testing.assert_array_equal(ce, np.ceil(a))
            np.testing.assert_allclose(md, np.mod(a, b), rtol=1e-4, atol=1e-4)

    def test_finfo_iinfo_and_aliases(self):
        self.assertEqual(nl.finfo(nl.bfloat16).max, 3.3895313892515355e38)
        self.assertEqual(nl.finfo(nl.float16).max, float(np.finfo(np.float16).max))
        self.assertEqual(nl.finfo(nl.float32).eps, float(np.finfo(np.float32).eps))
        self.assertEqual(nl.finfo(nl.float8_e4m3).max, 448.0)
        self.assertEqual(nl.finfo(np.float32).tiny, float(np.finfo(np.float32).tiny))
        self.assertEqual(nl.iinfo(nl.int8).min, -128)
        self.assertEqual(nl.fp32.min, -float(np.finfo(np.float32).max))
        with self.assertRaises(nki.NkiError):
            nl.finfo(nl.int32)

    def test_static_cast_and_like(self):
        a = np.array([[0.5, 1.5, 2.5, -0.5, 3.7, -3.7, 100.2, 7.0]] * 128, np.float32)
        out, z = nki.simulate(cast_and_like, a)
        np.testing.assert_array_equal(out, np.rint(a).astype(np.int32))
        np.testing.assert_array_equal(z, np.full_like(a, 3.0))

    def test_loop_reduce(self):
        a = np.random.default_rng(2).standard_normal((512, 32), dtype=np.float32)
        s, m = nki.simulate(loop_sum_max, a)
        blocks = a.reshape(4, 128, 32)
        np.testing.assert_allclose(s, blocks.sum(0), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(m, blocks.max(0))

    def test_shared_constant(self):
        a = np.random.default_rng(3).random((128, 4), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(constant_scale, a), a * WEIGHTS, rtol=1e-6)
        self.assertIn("constant = [", constant_scale.trace(a).asm())

    def test_identity_and_cos(self):
        a = np.random.default_rng(10).uniform(-3, 3, (128, 64)).astype(np.float32)
        t, c = nki.simulate(identity_and_cos, a)
        np.testing.assert_allclose(t, a.T, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(c, np.cos(a), atol=2e-3)

    def test_load_transpose2d(self):
        a = np.random.default_rng(4).random((256, 64), dtype=np.float32)
        for target in ("trn1", "trn2"):
            np.testing.assert_array_equal(nki.simulate(transposed_load, a, target=target), a.T)

    def test_var_softmax(self):
        a = np.random.default_rng(5).standard_normal((128, 256), dtype=np.float32)
        v, sm = nki.simulate(stats, a)
        np.testing.assert_allclose(v[:, 0], a.var(axis=1), rtol=1e-4)
        e = np.exp(a - a.max(axis=1, keepdims=True))
        np.testing.assert_allclose(sm, e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)

    def test_bitwise(self):
        rng = np.random.default_rng(6)
        a = rng.integers(0, 1 << 20, (128, 16), dtype=np.int32)
        b = rng.integers(0, 1 << 20, (128, 16), dtype=np.int32)
        out_and, out_shl = nki.simulate(bits, a, b)
        np.testing.assert_array_equal(out_and, a & b)
        np.testing.assert_array_equal(out_shl, a << 2)

    def test_atomic_rmw(self):
        a = np.random.default_rng(7).random((128, 32), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(accumulate_hbm, a), 2 * a, rtol=1e-6)

    def test_expand_dims(self):
        a = np.random.default_rng(8).random((128, 16), dtype=np.float32)
        np.testing.assert_array_equal(nki.simulate(expand, a), a[:, None, :])

    def test_spmd_grid_with_cores(self):
        a = np.random.default_rng(9).random((256, 64), dtype=np.float32)
        want = a.copy()
        for i in range(4):
            for j in range(2):
                want[i * 64:(i + 1) * 64, j * 32:(j + 1) * 32] += 10 * i + j
        # nl.spmd_dim(nl.nc(2), 2): programs 0, 1 on core 0 and 2, 3 on core 1.
        grid = nl.spmd_dim(nl.nc(2), 2)
        self.assertEqual(int(grid), 4)
        self.assertEqual([grid.core_of(k) for k in range(4)], [0, 0, 1, 1])
        self.assertEqual([nl.spmd_dim(2, nl.nc(2)).core_of(k) for k in range(4)], [0, 1, 0, 1])
        self.assertEqual(nl.nc(2).cores, 2)
        np.testing.assert_allclose(nki.simulate(spmd_ids[grid, 2], a), want, rtol=1e-6)


@nki.jit
def reseeded_dropouts(a):
    # nki.language.random_seed: "Using the same seed will generate the same sequence of
    # random numbers": two dropouts after the same seed drop the same elements.
    out = nl.ndarray((3,) + a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.random_seed(7)
    nl.store(out[0], nl.dropout(t, rate=0.5))
    nl.random_seed(7)
    nl.store(out[1], nl.dropout(t, rate=0.5))
    nl.store(out[2], nl.dropout(t, rate=0.5))  # the next draw of seed 7: another mask
    return out


class RandomSeed(unittest.TestCase):
    def test_same_seed_same_mask(self):
        x = np.ones((128, 256), np.float32)
        for target in ("trn1", "trn2"):
            y = nki.simulate(reseeded_dropouts, x, target=target)
            np.testing.assert_array_equal(y[0], y[1])
            self.assertFalse(np.array_equal(y[0], y[2]))
            for k in range(3):
                kept = (y[k] != 0).mean()
                self.assertTrue(0.45 < kept < 0.55, kept)  # rate 0.5 over 32768 elements

    def test_seed_known_at_trace_time(self):
        @nki.jit
        def tensor_seed(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.load(a)
            nl.random_seed(t)
            nl.store(out, t)
            return out

        with self.assertRaises(nki.NkiError) as cm:
            nki.simulate(tensor_seed, np.ones((128, 4), np.float32))
        self.assertIn("nki_lang_misc.py:", str(cm.exception))
        self.assertIn("random_seed", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
