"""neuronsim.nki's synchronisation: semaphores inserted from the data dependencies
(RAW, WAR, WAW on buffer regions), the DMA issue order, matmul accumulation groups and
the reuse of DMA semaphores, each checked in the generated assembly and by the numbers
the simulated kernel computes."""
import os
import re
import sys
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))


def section(asm, engine):
    """The instruction lines of one engine's section."""
    m = re.search(rf"^{engine}:\n((?:    .*\n)*)", asm, re.M)
    return [line.strip() for line in m.group(1).splitlines()] if m else []


@nki.jit
def war_kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.activation(dst=u, op=nl.exp, data=t)  # Scalar reads t
    nisa.memset(dst=t, value=2.0)  # Vector overwrites t: WAR, waits for the read
    nisa.tensor_tensor(dst=u, data1=t, data2=t, op=nl.add)  # WAW on u, already waited for
    nl.store(out, u)
    return out


@nki.jit
def waw_kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.activation(dst=u, op=nl.exp, data=t)  # Scalar writes u
    nisa.memset(dst=u, value=3.0)  # Vector writes u again: WAW, after the activation
    nl.store(out, u)
    return out


@nki.jit
def positions_kernel(a):
    # One sequence position of every batch per DMA: the partitions are rows S apart in
    # out [B, S, C], so the stores of different positions touch disjoint rows (no order
    # between them) while reading a position back waits for its own store only.
    B, S, C = a.shape
    out = nl.ndarray((B, S, C), dtype=a.dtype, buffer=nl.shared_hbm)
    back = nl.ndarray((B, C), dtype=a.dtype, buffer=nl.shared_hbm)
    for s in range(S):
        nl.store(out[:, s, :], value=nl.multiply(nl.load(a[:, s, :]), 2.0))
    nl.store(back, value=nl.load(out[:, 1, :]))
    return out, back


class Dependencies(unittest.TestCase):
    def test_war(self):
        a = np.zeros((128, 64), np.float32)
        asm = war_kernel.trace(a).asm()
        scalar, vector, sync = section(asm, "scalar"), section(asm, "vector"), section(asm, "sync")
        self.assertRegex(scalar[0], r"^activation .*wait _dma0>=1 .*signal _done_scalar")
        self.assertRegex(vector[0], r"^memset .*wait [^#]*_done_scalar>=1")  # the WAR wait
        self.assertNotIn("wait", vector[1].split("#")[0])  # implied by the same stream
        self.assertRegex(sync[1], r"^dma_copy out.*wait _done_vector>=1")
        np.testing.assert_array_equal(nki.simulate(war_kernel, a), np.full_like(a, 4.0))

    def test_waw(self):
        a = np.zeros((128, 64), np.float32)
        asm = waw_kernel.trace(a).asm()
        self.assertRegex(section(asm, "vector")[0], r"^memset .*wait [^#]*_done_scalar>=1")
        np.testing.assert_array_equal(nki.simulate(waw_kernel, a), np.full_like(a, 3.0))

    def test_loads_run_ahead_of_stores(self):
        # The Sync engine issues in stream order: the load of tile 1 must come before the
        # store of tile 0, which waits for tile 0's compute.
        import rmsnorm

        x, w = rmsnorm.inputs((512, 256))
        sync = section(rmsnorm.rmsnorm_fused.trace(x, w).asm(), "sync")
        kinds = ["store" if s.startswith("dma_copy y") else "load" for s in sync]
        self.assertLess(kinds.index("load", 2), kinds.index("store"))
        self.assertEqual(kinds.count("load"), 5)

    def test_matmul_accumulation_group(self):
        import matmul

        lhsT, rhs = matmul.inputs(K=384, M=128, N=512)
        tensor = section(matmul.matmul_tiled.trace(lhsT, rhs).asm(), "tensor")
        self.assertEqual([re.search(r"acc=(\w+)", s).group(1) for s in tensor],
                         ["first", "middle", "last"])
        np.testing.assert_allclose(nki.simulate(matmul.matmul_tiled, lhsT, rhs), lhsT.T @ rhs,
                                   rtol=1e-3, atol=1e-3)

    def test_dma_semaphores_reused_safely(self):
        # 64 tiles: 128 loads, more than the pool of 48 DMA semaphores. A reused one
        # first waits for its previous DMA; the sum stays right.
        import tensor_add

        a, b = tensor_add.inputs((8 * 128, 8 * 512))
        asm = tensor_add.tensor_add_loops.trace(a, b).asm()
        self.assertIn("sem _dma47 = 0", asm)
        self.assertNotIn("sem _dma48", asm)
        self.assertRegex(asm, r"dma_copy .*wait [^#]*_dma(\d+)>=\d+[^#]*signal _dma\1\b")
        np.testing.assert_allclose(nki.simulate(tensor_add.tensor_add_loops, a, b), a + b,
                                   rtol=1e-6)


    def test_rows_every_step_apart_are_not_a_block(self):
        from neuronsim.nki._core import rows_meet

        self.assertFalse(rows_meet(0, 31, 10, 1, 32, 10))  # 0, 10, 20, 30 vs 1, 11, 21, 31
        self.assertTrue(rows_meet(0, 31, 10, 20, 21, 1))  # row 20 alone
        self.assertFalse(rows_meet(0, 31, 10, 21, 30, 1))  # rows 21..29 fall between
        a = np.arange(4 * 5 * 8, dtype=np.float32).reshape(4, 5, 8)
        asm = positions_kernel.trace(a).asm()
        stores = [ln for ln in section(asm, "sync") if ln.startswith("dma_copy out")]
        self.assertEqual(len(stores), 5)
        for ln in stores:  # each waits for its multiply, never for another store
            waits = re.search(r"\bwait (.*?)(?:  signal|  @|$)", ln).group(1)
            self.assertNotIn("_dma", waits)
        out, back = nki.simulate(positions_kernel, a)
        np.testing.assert_array_equal(out, 2 * a)
        np.testing.assert_array_equal(back, 2 * a[:, 1, :])

if __name__ == "__main__":
    unittest.main()
