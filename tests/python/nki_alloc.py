"""neuronsim.nki allocation like NKI's compiler (docs/python.md, "Allocation"): a tile lives
from its first use to its last, not as long as its Python variable; loop iterations get
separate buffers from the allocator; a full SBUF spills tiles to HBM (ordinary dma_copy
instructions with the Python line of the tile's producer / consumer); when nothing can
make room the error lists the tiles live at the failing line.

The kernels are written here in NKI's documented API (nki.language pages: nl.load,
nl.store, nl.ndarray, nl.add, nl.multiply, nl.sum, nl.affine_range; nki.isa pages:
nisa.nc_matmul, nisa.tensor_copy) and checked against numpy on trn1 and trn2."""
import os
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl
from support import line_of

HERE = os.path.abspath(__file__)
TARGETS = ("trn1", "trn2")


@nki.jit
def two_pass_scale(x):
    """out = x * (sum of each row over all row tiles, per partition): every row tile stays
    live from the first pass to the second. At [1024, 8192] fp32 that is 8 tiles of
    32 KiB per partition, 256 KiB against SBUF's 192 / 224 KiB: the tiles spill."""
    N, D = x.shape
    out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    total = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(N // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        tiles.append(t)
        total = nl.add(total, nl.sum(t, axis=1))
    for i in nl.affine_range(N // 128):
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(tiles[i], total))
    return out


def two_pass_reference(x):
    rows = x.reshape(-1, 128, x.shape[1])
    total = rows.sum(axis=(0, 2))  # per partition
    return (rows * total[None, :, None]).reshape(x.shape)


@nki.jit
def held_but_dead(a):
    """Tiles kept in a Python list but never used again take no room: 8 x 32 KiB would
    not fit on trn2 if they lived as long as the list."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    held = []
    for i in nl.affine_range(8):
        t = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf)  # 32 KiB each
        held.append(t)
    nl.store(out, nl.load(a))
    return out


@nki.jit
def operands_too_big(a):
    """One tensor_tensor over three 96 KiB tiles: 288 KiB for one instruction, more than
    any SBUF; spilling cannot help."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(a)
    z = nl.add(x, y)
    nl.store(out, z)
    return out


@nki.jit
def psum_banks(a, b):
    """Nine bank-sized matmul results alive at once: PSUM has 8 banks of 2 KiB and DMA
    cannot reach PSUM, so this fails, naming the live tiles."""
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.load(a)
    bt = nl.load(b)
    results = []
    for i in nl.affine_range(9):
        p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=p, stationary=at, moving=bt)
        results.append(p)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for p in results:
        acc = nl.add(acc, p)
    nl.store(out, acc)
    return out


@nki.jit
def rebound_in_loop(x):
    """A tutorial-style loop rebinding its tiles each iteration: the allocator gives
    consecutive iterations different buffers, so iteration i+1's load overlaps iteration
    i's compute and store."""
    N, D = x.shape
    out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(N // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        y = nl.multiply(t, 2.0)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out


def sbuf_offsets(asm):
    """The SBUF byte offsets the assembly's dma_copy loads write, in stream order."""
    import re
    return [int(m.group(1)) for m in re.finditer(r"dma_copy _sbuf[^{]*\{[^}]*offset=(\d+)\}", asm)]


class Allocation(unittest.TestCase):
    def test_spills_when_sbuf_is_full(self):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((1024, 8192), dtype=np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                traced = two_pass_scale.trace(x, target=target)
                asm = traced.asm()
                stores = [l for l in asm.splitlines() if "dma_copy spill_" in l]
                loads = [l for l in asm.splitlines() if "dma_copy _sbuf{" in l and "spill_" in l]
                self.assertTrue(stores, "no spill store")
                self.assertTrue(loads, "no spill load")
                # The store names the line that made the tile, the load the line using it.
                self.assertIn(f"@py_nki_alloc:{line_of(two_pass_scale, 't = nl.load(')}", stores[0])
                self.assertIn(f"@py_nki_alloc:{line_of(two_pass_scale, 'value=nl.multiply')}",
                              loads[0])
                got = nki.simulate(two_pass_scale, x, target=target)
                np.testing.assert_allclose(got, two_pass_reference(x), rtol=2e-4, atol=1e-2)
                r = nki.benchmark(two_pass_scale, x, target=target)
                self.assertGreater(r.latency_ns, 0)

    def test_dead_tiles_take_no_room(self):
        a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
        for target in TARGETS:
            np.testing.assert_array_equal(nki.simulate(held_but_dead, a, target=target), a)

    def test_loop_iterations_get_separate_buffers(self):
        x = np.random.default_rng(1).standard_normal((1024, 512), dtype=np.float32)
        for target in TARGETS:
            with self.subTest(target=target):
                np.testing.assert_allclose(nki.simulate(rebound_in_loop, x, target=target), 2 * x)
                offsets = sbuf_offsets(rebound_in_loop.trace(x, target=target).asm())
                self.assertEqual(len(offsets), 8)
                self.assertGreater(len(set(offsets)), 2, offsets)  # more than double buffering

    def test_reuse_delay_stays_an_option(self):
        x = np.random.default_rng(2).standard_normal((1024, 512), dtype=np.float32)
        for delay in (0, 2, 8):
            k = nki.jit(rebound_in_loop.fn, reuse_delay=delay)
            np.testing.assert_allclose(nki.simulate(k, x), 2 * x)

    def test_operands_that_cannot_fit_name_the_live_tiles(self):
        a = np.ones((128, 24576), np.float32)  # 96 KiB per partition
        with self.assertRaises(nki.NkiError) as cm:
            operands_too_big.trace(a, target="trn2")
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(f"{HERE}:{line_of(operands_too_big, 'z = nl.add')}:"), msg)
        self.assertIn("SBUF", msg)
        for name in ("x", "y", "z"):
            self.assertIn(f"tile {name}[128, 24576]", msg)
        self.assertIn(f"made at {HERE}:{line_of(operands_too_big, 'x = nl.load')}", msg)

    def test_psum_cannot_spill(self):
        a, b = np.ones((128, 128), np.float32), np.ones((128, 512), np.float32)
        with self.assertRaises(nki.NkiError) as cm:
            psum_banks.trace(a, b)
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(f"{HERE}:{line_of(psum_banks, 'nisa.nc_matmul')}:"), msg)
        self.assertIn("PSUM", msg)
        self.assertEqual(msg.count("tile p[128, 512] float32: 2048 bytes"), 9, msg)

    def test_one_tile_larger_than_memory_fails_at_its_line(self):
        @nki.jit
        def huge(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 65536), dtype=nl.float32, buffer=nl.sbuf)  # 256 KiB
            nl.store(out, t)
            return out

        with self.assertRaises(nki.NkiError) as cm:
            huge.trace(np.ones((128, 65536), np.float32), target="trn2")
        self.assertTrue(str(cm.exception).startswith(f"{HERE}:{line_of(huge.fn, '65536), dtype')}:"),
                        str(cm.exception))
        self.assertIn("229376", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
