"""Tile grids (NKI pages nki.language.tiles, nki.language.blocks, nki.language.alloc_tiles,
nki.language.alloc_blocks, nki.language.NkiGrid / NkiTileGrid / NkiBlockGrid,
nki.language.empty_like; tutorial "Tile-grid fundamentals"): kernels written here in the
documented API, run by nki.simulate against numpy and timed by nki.benchmark on trn1 and
trn2 (neuronsim accepts the grids on every target: docs/python.md "Tile grids")."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl
import neuronsim.nki.isa as nisa

TARGETS = ("trn1", "trn2")


@nki.jit
def tiled_copy(src):
    # One tile at a time: an SBUF tile of the grid cell's element_shape, two DMAs.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 256))
    out_g = nl.tiles(out, tile_shape=(128, 256))
    for r in range(src_g.shape[0]):
        for c in range(src_g.shape[1]):
            cell = src_g[r, c]
            buf = nl.ndarray(cell.element_shape, dtype=src.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=buf.data, src=cell.data)
            nisa.dma_copy(dst=out_g[r, c].data, src=buf.data)
    return out


@nki.jit
def sliced_copy(src):
    # tiled_copy written with slices: the grid version must trace to the same instructions.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    for r in range(src.shape[0] // 128):
        for c in range(src.shape[1] // 256):
            buf = nl.ndarray((128, 256), dtype=src.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=buf, src=src[r * 128:(r + 1) * 128, c * 256:(c + 1) * 256])
            nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, c * 256:(c + 1) * 256], src=buf)
    return out


@nki.jit
def scale_tiles(src, factor=3.0):
    # empty_like of a one-tile grid gives an SBUF grid; scale it in place.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 128))
    out_g = nl.tiles(out, tile_shape=(128, 128))
    for r in range(src_g.shape[0]):
        for c in range(src_g.shape[1]):
            sb = nl.empty_like(src_g[r, c], buffer=nl.sbuf)
            nisa.dma_copy(sb.data, src_g[r, c].data)
            nisa.tensor_scalar(sb.data, sb.data, nl.multiply, factor)
            nisa.dma_copy(out_g[r, c].data, sb.data)
    return out


@nki.jit
def tile_rows(src):
    # A whole row of tiles per DMA: the SBUF grid of the row holds its tiles side by side,
    # so its .data is one [128, W] tile; the compute still goes a tile at a time.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 128))
    out_g = nl.tiles(out, tile_shape=(128, 128))
    for r in range(src_g.shape[0]):
        row = nl.empty_like(src_g[r, :], buffer=nl.sbuf)
        nisa.dma_copy(dst=row.data, src=src_g[r, :].data)
        for c in range(row.shape[0]):  # src_g[r, :] consumed r: the row is 1-D
            nisa.tensor_scalar(dst=row[c].data, data=row[c].data, op0=nl.add,
                               operand0=float(c))
        nisa.dma_copy(dst=out_g[r, :].data, src=row.data)
    return out


@nki.jit
def block_copy(src):
    # Blocks of 2 x 2 tiles; a block's SBUF copy spans two tile rows (partitions 0..127
    # twice), so it moves one tile row of the block per DMA.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_b = nl.blocks(src, tile_shape=(128, 256), block_shape=(2, 2))
    out_b = nl.blocks(out, tile_shape=(128, 256), block_shape=(2, 2))
    for i in range(src_b.shape[0]):
        for j in range(src_b.shape[1]):
            blk = nl.empty_like(src_b[i, j], buffer=nl.sbuf)
            src_t, blk_t, out_t = nl.tiles(src_b[i, j]), nl.tiles(blk), nl.tiles(out_b[i, j])
            for a in range(blk_t.shape[0]):
                nisa.dma_copy(dst=blk_t[a, :].data, src=src_t[a, :].data)
                nisa.dma_copy(dst=out_t[a, :].data, src=blk_t[a, :].data)
    return out


@nki.jit
def remainder_scale(src):
    # 300 x 700 in 128 x 256 tiles: the last tile row has 44 rows, the last column 188.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 256))
    out_g = nl.tiles(out, tile_shape=(128, 256))
    for r in range(src_g.shape[0]):
        for c in range(src_g.shape[1]):
            sb = nl.empty_like(src_g[r, c], buffer=nl.sbuf)
            nisa.dma_copy(dst=sb.data, src=src_g[r, c].data)
            nisa.tensor_scalar(dst=sb.data, data=sb.data, op0=nl.multiply,
                               operand0=2.0 if src_g[r, c].is_remainder else 1.0)
            nisa.dma_copy(dst=out_g[r, c].data, src=sb.data)
    return out


@nki.jit
def alloc_tiles_kernel(src):
    # One SBUF allocation for a [128, 1024] row of 4 tiles, loaded by one DMA, each tile
    # scaled by its own factor, stored by one DMA.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    g = nl.alloc_tiles(tile_shape=(128, 256), element_shape=src.shape, buffer=nl.sbuf,
                       dtype=src.dtype)
    nisa.dma_copy(dst=g.data, src=src)
    for c in range(g.shape[1]):
        nisa.tensor_scalar(dst=g[0, c].data, data=g[0, c].data, op0=nl.multiply,
                           operand0=float(c + 1))
    nisa.dma_copy(dst=out, src=g.data)
    return out


@nki.jit
def strided_rows(src):
    # Every other tile row: the selection has gaps, so it moves a row at a time; its
    # empty_like packs the two rows densely (nl.empty_like page).
    out = nl.ndarray((256, src.shape[1]), dtype=src.dtype, buffer=nl.shared_hbm)
    sel = nl.tiles(src, tile_shape=(128, 128))[::2, :]
    dst = nl.empty_like(sel, buffer=nl.sbuf)
    out_g = nl.tiles(out, tile_shape=(128, 128))
    for r in range(sel.shape[0]):
        nisa.dma_copy(dst=dst[r, :].data, src=sel[r, :].data)
        nisa.dma_copy(dst=out_g[r, :].data, src=dst[r, :].data)
    return out


@nki.jit
def subgrid_scale(src):
    # Copy everything a tile row per DMA, then scale the 2 x 2 tiles at (1:3, 1:3) again:
    # the second stores overwrite part of the first ones, so they must follow them.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 128))
    out_g = nl.tiles(out, tile_shape=(128, 128))
    for r in range(src_g.shape[0]):
        row = nl.empty_like(src_g[r, :], buffer=nl.sbuf)
        nisa.dma_copy(dst=row.data, src=src_g[r, :].data)
        nisa.dma_copy(dst=out_g[r, :].data, src=row.data)
    sub, out_sub = src_g[1:3, 1:3], out_g[1:3, 1:3]
    sb = nl.empty_like(sub, buffer=nl.sbuf)  # two tiles tall: moved a tile row at a time
    for r in range(sub.shape[0]):
        nisa.dma_copy(dst=sb[r, :].data, src=sub[r, :].data)
        nisa.tensor_scalar(dst=sb[r, :].data, data=sb[r, :].data, op0=nl.multiply,
                           operand0=4.0)
        nisa.dma_copy(dst=out_sub[r, :].data, src=sb[r, :].data)
    return out


@nki.jit
def batched(src):
    # A leading untiled dimension: one slab per batch index.
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 128))
    out_g = nl.tiles(out, tile_shape=(128, 128))
    for b in range(src_g.shape[0]):
        for c in range(src_g.shape[2]):
            sb = nl.empty_like(src_g[b, 0, c], buffer=nl.sbuf)
            nisa.dma_copy(dst=sb.data, src=src_g[b, 0, c].data)
            nisa.tensor_scalar(dst=sb.data, data=sb.data, op0=nl.add, operand0=float(b))
            nisa.dma_copy(dst=out_g[b, 0, c].data, src=sb.data)
    return out


@nki.jit
def alternate_rows(src):
    # A 3-D tile one row tall: every other row of a [128, 4, 64] tensor is one strided
    # selection, one DMA each way (its .data is [128, 2, 64] with a row step of 2).
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 1, 64))
    out_g = nl.tiles(out, tile_shape=(128, 1, 64))
    for first, factor in ((0, 2.0), (1, 3.0)):
        sel = src_g[0, first::2, 0]
        sb = nl.empty_like(sel, buffer=nl.sbuf)
        nisa.dma_copy(dst=sb.data, src=sel.data)
        nisa.tensor_scalar(dst=sb.data, data=sb.data, op0=nl.multiply, operand0=factor)
        nisa.dma_copy(dst=out_g[0, first::2, 0].data, src=sb.data)
    return out


@nki.jit
def transposed_tiles(src):
    # empty_like(..., transpose_axes=(1, 0)) shapes the SBUF destination of a
    # nisa.dma_transpose: tile (r, c) of src lands as tile (c, r) of out.
    out = nl.ndarray((src.shape[1], src.shape[0]), dtype=src.dtype, buffer=nl.shared_hbm)
    src_g = nl.tiles(src, tile_shape=(128, 64))
    out_g = nl.tiles(out, tile_shape=(64, 128))
    for r in range(src_g.shape[0]):
        for c in range(src_g.shape[1]):
            t = nl.empty_like(src_g[r, c], buffer=nl.sbuf, transpose_axes=(1, 0))
            nisa.dma_transpose(dst=t.data, src=src_g[r, c].data)
            nisa.dma_copy(dst=out_g[c, r].data, src=t.data)
    return out


@nki.jit
def grid_matmul(lhsT, rhs):
    # out[M, N] = lhsT.T @ rhs with every operand a grid: the operands live in SBUF grids
    # loaded a tile row per DMA, the results in a PSUM grid of one bank per tile.
    K, M = lhsT.shape
    N = rhs.shape[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    a_g = nl.tiles(lhsT, tile_shape=(128, 128))
    b_g = nl.tiles(rhs, tile_shape=(128, 512))
    o_g = nl.tiles(out, tile_shape=(128, 512))
    a_sb = nl.empty_like(a_g, buffer=nl.sbuf)
    b_sb = nl.empty_like(b_g, buffer=nl.sbuf)
    for k in range(a_g.shape[0]):
        nisa.dma_copy(dst=a_sb[k, :].data, src=a_g[k, :].data)
        nisa.dma_copy(dst=b_sb[k, :].data, src=b_g[k, :].data)
    for m in range(a_g.shape[1]):
        acc = nl.alloc_tiles(tile_shape=(128, 512), element_shape=(128, N), buffer=nl.psum,
                             dtype=nl.float32)
        res = nl.empty_like(o_g[m, :], buffer=nl.sbuf)
        for n in range(b_g.shape[1]):
            for k in range(a_g.shape[0]):
                nisa.nc_matmul(acc[0, n].data, a_sb[k, m].data, b_sb[k, n].data)
            nisa.tensor_copy(dst=res[n].data, src=acc[0, n].data)
        nisa.dma_copy(dst=o_g[m, :].data, src=res.data)
    return out


@nki.jit
def sbuf_grid(src):
    # A grid over an SBUF tile: tiles of 32 partitions (engines start at 0, 32, 64, 96).
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src)
    g = nl.tiles(t, tile_shape=(32, 256))
    for r in range(g.shape[0]):
        for c in range(g.shape[1]):
            nisa.tensor_scalar(dst=g[r, c].data, data=g[r, c].data, op0=nl.multiply,
                               operand0=float(2 * r + c + 1))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def zeros_like_grid(src):
    out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
    g = nl.tiles(src, tile_shape=(128, 128))
    z = nl.zeros_like(g, buffer=nl.sbuf)
    for c in range(z.shape[1]):
        nisa.dma_copy(dst=z[0, c].data, src=g[0, c].data)
    nisa.dma_copy(dst=out, src=z.data)
    return out


class Bad:
    """Kernels that must fail at their own line."""

    @staticmethod
    @nki.jit
    def gap_data(src):
        sel = nl.tiles(src, tile_shape=(128, 128))[::2, :]
        return sel.data  # the tile rows 0 and 2 are not one pattern

    @staticmethod
    @nki.jit
    def two_partition_tiles(src):
        g = nl.alloc_tiles(tile_shape=(128, 128), element_shape=(256, 128), buffer=nl.sbuf,
                           dtype=nl.float32)
        return g.data  # two tiles both on partitions 0..127

    @staticmethod
    @nki.jit
    def one_dim_tile(src):
        return nl.tiles(src, tile_shape=(128,))

    @staticmethod
    @nki.jit
    def float_tile(src):
        return nl.tiles(src, tile_shape=(128, 128.0))

    @staticmethod
    @nki.jit
    def negative_step(src):
        return nl.tiles(src, tile_shape=(128, 128))[::-1, :]

    @staticmethod
    @nki.jit
    def out_of_range(src):
        return nl.tiles(src, tile_shape=(128, 128))[4, 0]

    @staticmethod
    @nki.jit
    def grid_operand(src):
        g = nl.tiles(src, tile_shape=(128, 128))
        sb = nl.empty_like(g[0, 0], buffer=nl.sbuf)
        nisa.dma_copy(dst=sb.data, src=g[0, 0])  # the grid itself, not g[0, 0].data

    @staticmethod
    @nki.jit
    def sbuf_not_partition_first(src):
        t = nl.ndarray((128, 4, 64), dtype=nl.float32, buffer=nl.sbuf)
        return nl.tiles(t, tile_shape=(2, 64))

    @staticmethod
    @nki.jit
    def bad_transpose(src):
        return nl.empty_like(nl.tiles(src, tile_shape=(128, 128)), buffer=nl.sbuf,
                             transpose_axes=(0, 1))


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class TileGrids(unittest.TestCase):
    def run_both(self, kernel, want, *args, rtol=0, atol=0):
        times = {}
        for target in TARGETS:
            got = nki.simulate(kernel, *args, target=target)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=target)
            times[target] = nki.benchmark(kernel, *args, target=target).latency_ns
            self.assertGreater(times[target], 0)
        print(f"{kernel.__name__}: " + ", ".join(f"{t} {ns / 1000:.2f} us"
                                                   for t, ns in times.items()))
        return times

    def test_tiled_copy(self):
        a = rand(512, 1024)
        self.run_both(tiled_copy, a, a)
        asm = tiled_copy.trace(a).asm()
        self.assertEqual(asm.count("dma_copy"), 2 * 4 * 4)

        def body(text):  # the instructions without their Python line comments
            return [ln.split("@")[0].split("#")[0].strip() for ln in text.splitlines()
                    if "dma_copy" in ln]

        self.assertEqual(body(asm), body(sliced_copy.trace(a).asm()))
        self.assertEqual(nki.benchmark(tiled_copy, a, target="trn2").latency_ns,
                         nki.benchmark(sliced_copy, a, target="trn2").latency_ns)

    def test_scale_tiles(self):
        a = rand(512, 512)
        self.run_both(scale_tiles, a * 3.0, a, rtol=1e-6)

    def test_tile_rows(self):
        a = rand(512, 512)
        want = a + np.repeat(np.arange(4, dtype=np.float32), 128)[None, :]
        self.run_both(tile_rows, want, a, rtol=1e-6)
        asm = tile_rows.trace(a).asm()
        self.assertEqual(asm.count("dma_copy"), 2 * 4)  # one DMA per tile row each way

    def test_block_copy(self):
        a = rand(512, 1024)
        self.run_both(block_copy, a, a)

    def test_remainder(self):
        a = rand(300, 700)
        want = a.copy()
        want[256:, :] *= 2.0
        want[:, 512:] *= 2.0
        want[256:, 512:] /= 2.0  # the corner tile is scaled once
        self.run_both(remainder_scale, want, a, rtol=1e-6)

    def test_grid_attributes(self):
        seen = {}

        @nki.jit
        def probe(src):
            g = nl.tiles(src, tile_shape=(128, 256))
            seen["g"] = (g.shape, g.tile_shape, g.element_shape, g.index_step_elements,
                         g.is_remainder, g.dtype, g.buffer)
            last = g[-1, -1]
            seen["last"] = (last.shape, last.element_shape, last.is_remainder,
                            last.is_data_representable, last.data.shape)
            col = g[:, 1]
            seen["col"] = (col.shape, col.element_shape, col.is_data_representable,
                           col.data.shape, col.data.strides)
            row_step = g[::2, :]
            seen["step"] = (row_step.shape, row_step.index_step_elements,
                            row_step.is_data_representable)
            b = nl.blocks(src, tile_shape=(128, 256), block_shape=(2, 2))
            seen["b"] = (b.shape, b.block_shape, b.tile_shape, b[1, 1].element_shape,
                         b[1, 1].is_remainder, nl.tiles(b[1, 1]).shape)
            sb = nl.empty_like(g[-1, :], buffer=nl.sbuf)
            seen["sb"] = (type(sb).__name__, sb.shape, sb.element_shape, sb.buffer,
                          sb.is_remainder, sb.data.shape)
            narrow = nl.tiles(src, tile_shape=(128, 64))[0, 1:3]
            t = nl.empty_like(narrow, buffer=nl.sbuf, transpose_axes=(1, 0))
            # Two 64-partition tiles one above the other: not one SBUF access pattern.
            seen["t"] = (t.shape, t.tile_shape, t.element_shape, t.is_data_representable,
                         t[1].data.shape)
            seen["isinstance"] = (isinstance(g, nl.NkiTileGrid), isinstance(b, nl.NkiBlockGrid),
                                  isinstance(b, nl.NkiGrid), isinstance(g, nl.NkiBlockGrid))
            out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=src)
            return out

        probe.trace(np.zeros((300, 700), np.float32))
        self.assertEqual(seen["g"][:5], ((3, 3), (128, 256), (300, 700), (128, 256), True))
        self.assertEqual(seen["g"][6], "hbm")
        self.assertEqual(seen["last"], ((), (44, 188), True, True, (44, 188)))
        self.assertEqual(seen["col"], ((3,), (300, 256), True, (300, 256), (700, 1)))
        self.assertEqual(seen["step"], ((2, 3), (256, 256), False))
        self.assertEqual(seen["b"], ((2, 2), (2, 2), (128, 256), (44, 188), True, (1, 1)))
        self.assertEqual(seen["sb"], ("NkiTileGrid", (3,), (44, 700), "sbuf", True, (44, 700)))
        self.assertEqual(seen["t"], ((2,), (64, 128), (128, 128), False, (64, 128)))
        self.assertEqual(seen["isinstance"], (True, True, True, False))

    def test_alloc_tiles(self):
        a = rand(128, 1024)
        want = a * np.repeat(np.arange(1, 5, dtype=np.float32), 256)[None, :]
        self.run_both(alloc_tiles_kernel, want, a, rtol=1e-6)
        self.assertEqual(alloc_tiles_kernel.trace(a).asm().count("dma_copy"), 2)

    def test_alloc_blocks(self):
        seen = {}

        @nki.jit
        def probe(src):
            g = nl.alloc_blocks(tile_shape=(128, 128), block_shape=(1, 2),
                                element_shape=(128, 640), buffer=nl.sbuf, dtype=nl.float32)
            seen["g"] = (g.shape, g.block_shape, g[0, 2].element_shape, g[0, 2].is_remainder,
                         g.data.shape, nl.tiles(g[0, 1]).shape)
            out = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=g.data, src=src)
            nisa.dma_copy(dst=out, src=g.data)
            return out

        a = rand(128, 640)
        np.testing.assert_array_equal(nki.simulate(probe, a), a)
        self.assertEqual(seen["g"], ((1, 3), (1, 2), (128, 128), True, (128, 640), (1, 2)))

    def test_empty_like_strided(self):
        a = rand(512, 384)
        self.run_both(strided_rows, np.concatenate([a[0:128], a[256:384]]), a)

    def test_subgrid(self):
        a = rand(512, 512)
        want = a.copy()
        want[128:384, 128:384] *= 4.0
        self.run_both(subgrid_scale, want, a, rtol=1e-6)

    def test_batched(self):
        a = rand(3, 128, 256)
        self.run_both(batched, a + np.arange(3, dtype=np.float32)[:, None, None], a, rtol=1e-6)

    def test_higher_rank_tile(self):
        a = rand(128, 4, 64)
        want = a.copy()
        want[:, 0::2] *= 2.0
        want[:, 1::2] *= 3.0
        self.run_both(alternate_rows, want, a, rtol=1e-6)
        self.assertEqual(alternate_rows.trace(a).asm().count("dma_copy"), 4)

    def test_transpose_axes(self):
        a = rand(256, 128)
        self.run_both(transposed_tiles, a.T, a)

    def test_sbuf_grid(self):
        a = rand(128, 512)
        f = (2 * np.arange(4)[:, None] + np.arange(2)[None, :] + 1).astype(np.float32)
        self.run_both(sbuf_grid, a * np.kron(f, np.ones((32, 256), np.float32)), a, rtol=1e-6)

    def test_zeros_like(self):
        a = rand(128, 512)
        self.run_both(zeros_like_grid, a, a)

    def test_grid_matmul(self):
        lhsT, rhs = rand(256, 256, seed=1), rand(256, 1024, seed=2)
        self.run_both(grid_matmul, lhsT.T @ rhs, lhsT, rhs, rtol=1e-4, atol=1e-3)
        asm = grid_matmul.trace(lhsT, rhs).asm()
        self.assertEqual(asm.count("    matmul "), 2 * 2 * 2)

    def test_errors(self):
        a = np.zeros((512, 512), np.float32)
        cases = [
            (Bad.gap_data, ["is_data_representable is False", "0:128, 256:384"]),
            (Bad.two_partition_tiles, ["spans 2 tiles along the partition dimension"]),
            (Bad.one_dim_tile, ["tile_shape [128] needs at least 2 dimensions"]),
            (Bad.float_tile, ["tile_shape must be a tuple of Python ints"]),
            (Bad.negative_step, ["must be positive"]),
            (Bad.out_of_range, ["index 4 out of range"]),
            (Bad.bad_transpose, ["transpose_axes (0, 1) is not one of"]),
            (Bad.grid_operand, ["dma_copy: src must be a tensor", "its operand is grid.data"]),
            (Bad.sbuf_not_partition_first, ["a tile's first dimension is the partition"]),
        ]
        for kernel, words in cases:
            with self.subTest(kernel.__name__):
                with self.assertRaises(nki.NkiError) as cm:
                    kernel.trace(a)
                msg = str(cm.exception)
                self.assertIn("nki_tile_grids.py:", msg)
                for w in words:
                    self.assertIn(w, msg)


if __name__ == "__main__":
    unittest.main()
