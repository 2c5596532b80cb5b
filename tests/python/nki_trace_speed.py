"""The structures that make neuronsim.nki's tracing linear, checked for what they compute
(speed itself is measured by bench/nki_trace.py, never asserted here):

- the bucketed dependency index (_lower.find_dependencies, in C++:
  python/core/nki_lowering.cpp) finds exactly the
  dependencies of the plain all-pairs definition, on traced kernels (matmul, RMSNorm,
  a kernel that spills) and on random accesses (HBM and on-chip, wide and narrow,
  covering and partial writes);
- placed tiles never overlap while both are live, and stay inside the memory;
- a comparison mask's all-true shortcut agrees with evaluating it on its grid;
- bench/nki_trace.py runs end to end (--smoke)."""
import os
import random
import subprocess
import sys
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
from neuronsim.nki import _lower
from neuronsim.nki._core import BY_ASM, Instr, View

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "python"))
sys.path.insert(0, HERE)


def all_pairs_dependencies(instrs):
    """The definition: a read depends on every earlier overlapping write, a write on every
    earlier overlapping read and write, except those a later covering write retired."""
    def overlap(a, b):
        return a[0] < b[1] and b[0] < a[1]

    def contains(o, i):
        return o[0] <= i[0] and i[1] <= o[1]

    records, deps = [], []
    for ins in instrs:
        d = set()
        reads = [v.region() for v in ins.reads]
        writes = [v.region() for v in ins.writes]
        for key, pr, br in reads:
            d |= {j for k, j, p2, b2, w in records if w and k == key and overlap(pr, p2)
                  and overlap(br, b2)}
        for key, pr, br in writes:
            d |= {j for k, j, p2, b2, w in records if k == key and overlap(pr, p2)
                  and overlap(br, b2)}
        d.discard(ins.index)
        deps.append(d)
        for key, pr, br in writes:
            records = [r for r in records if not (r[0] == key and contains(pr, r[2])
                                                  and contains(br, r[3]))]
        records += [(key, ins.index, pr, br, False) for key, pr, br in reads]
        records += [(key, ins.index, pr, br, True) for key, pr, br in writes]
    return deps


def traced_instrs(kernel, *args, target="trn2"):
    """The placed instruction list of a traced kernel (what lowering computes deps on)."""
    captured = {}
    real = _lower.place_tiles

    def spy(tr):
        captured["instrs"] = list(real(tr))
        return captured["instrs"]

    _lower.place_tiles = spy
    try:
        nki.jit(kernel.fn).trace(*args, target=target)
    finally:
        _lower.place_tiles = real
    return captured["instrs"]


class DependencyIndex(unittest.TestCase):
    def check(self, instrs):
        self.assertEqual(_lower.find_dependencies(instrs), all_pairs_dependencies(instrs))

    def test_traced_kernels(self):
        import matmul
        import rmsnorm
        import nki_alloc

        lhsT, rhs = matmul.inputs(K=512, M=256, N=1024)
        self.check(traced_instrs(matmul.matmul_tiled, lhsT, rhs))
        x, w = rmsnorm.inputs((512, 1024))
        self.check(traced_instrs(rmsnorm.rmsnorm_tutorial, x, w))
        self.check(traced_instrs(rmsnorm.rmsnorm_fused, x, w))
        spilled = traced_instrs(nki_alloc.two_pass_scale, np.zeros((1024, 8192), np.float32))
        self.assertTrue(any(v.space == "hbm" and v.buffer.startswith("spill_")
                            for ins in spilled for v in ins.writes))
        self.check(spilled)

    def test_random_accesses(self):
        rng = random.Random(7)
        f32 = BY_ASM["fp32"]
        for trial in range(20):
            instrs = []
            for i in range(300):
                views = []
                for _ in range(rng.choice((1, 2, 3))):
                    if rng.random() < 0.5:  # an HBM tensor of 512 rows x 4096 columns
                        rows = rng.choice((1, 8, 64, 128, 512))
                        r0 = rng.randrange(0, 512 - rows + 1)
                        cols = rng.choice((1, 100, 512, 4096))
                        c0 = rng.randrange(0, 4096 - cols + 1)
                        views.append(View("hbm", f"t{rng.randrange(2)}", f32, 0, rows, 4096,
                                          (r0 * 4096 + c0) * 4, [(1, cols)], 4096))
                    else:  # SBUF bytes per partition, up to the whole memory (wide)
                        parts = rng.choice((1, 32, 128))
                        p0 = rng.randrange(0, 128 - parts + 1)
                        n = rng.choice((1, 16, 256, 4096, 50000))
                        off = rng.randrange(0, 200000 // 4) * 4
                        views.append(View("sbuf", "_sbuf", f32, p0, parts, 0, off, [(1, n)]))
                writes, reads = views[:1], views[1:]
                ins = Instr("vector", "tensor_copy", views, [], ("x.py", i), writes, reads)
                ins.index = i
                instrs.append(ins)
            self.check(instrs)


class Placement(unittest.TestCase):
    def test_live_tiles_never_overlap(self):
        import matmul
        import nki_alloc
        import rmsnorm

        x, w = rmsnorm.inputs((1024, 2048))
        lhsT, rhs = matmul.inputs(K=512, M=256, N=1024)
        cases = [(rmsnorm.rmsnorm_tutorial, (x, w), "trn2"), (rmsnorm.rmsnorm_fused, (x, w), "trn1"),
                 (matmul.matmul_tiled, (lhsT, rhs), "trn2"),
                 (nki_alloc.two_pass_scale, (np.zeros((1024, 8192), np.float32),), "trn1")]
        for kernel, args, target in cases:
            with self.subTest(kernel=kernel.name):
                kernel = nki.jit(kernel.fn)
                captured = {}
                real = _lower.place_tiles

                def spy(tr):
                    out = real(tr)
                    captured["tr"] = tr
                    return out

                _lower.place_tiles = spy
                try:
                    kernel.trace(*args, target=target)
                finally:
                    _lower.place_tiles = real
                tr = captured["tr"]
                placed = tr.placements
                self.assertTrue(placed)
                capacity = {"sbuf": tr.sbuf.capacity, "psum": tr.psum.capacity}
                for i, (a, off, first, last) in enumerate(placed):
                    self.assertLessEqual(off + a.size, capacity[a.space])
                    self.assertEqual(off % 64, 0)
                    for b, off2, first2, last2 in placed[i + 1:]:
                        if a.space == b.space and first <= last2 and first2 <= last:
                            self.assertFalse(off < off2 + b.size and off2 < off + a.size,
                                             (a.what, off, first, last, b.what, off2, first2, last2))


class MaskShortcut(unittest.TestCase):
    def test_all_true_matches_the_grid(self):
        """A comparison mask's all-true test from its expression's range (the shortcut that
        spares a numpy grid per call) agrees with evaluating the mask on its grid."""
        from neuronsim.nki._index import IndexExpr
        from neuronsim.nki._mask import Mask

        rng = random.Random(7)
        for _ in range(2000):
            ndim = rng.randint(1, 3)
            sizes = {a: rng.randint(1, 6) for a in range(ndim)}
            terms = {a: rng.randint(-3, 3) for a in range(ndim) if rng.random() < 0.8}
            e = IndexExpr(rng.randint(-12, 12), terms, {a: sizes[a] for a in terms}, ndim)
            for cmp in ("is_lt", "is_le", "is_gt", "is_ge", "is_equal", "not_equal"):
                m = Mask.compare(e, cmp)
                shortcut = m.all_true
                m._grid = None
                m.grid()
                with self.subTest(const=e.const, terms=terms, sizes=sizes, cmp=cmp):
                    self.assertEqual(shortcut, m.all_true)
                    self.assertEqual(shortcut, bool(m.grid()[3].all()))


class Bench(unittest.TestCase):
    def test_bench_runs(self):
        out = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "bench", "nki_trace.py"),
                              "--smoke"], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("instr/s", out.stdout)


if __name__ == "__main__":
    unittest.main()
