"""Placing the traced kernel's tiles in SBUF and PSUM (docs/python.md, "Allocation").

While tracing, every tile gets a virtual byte range of its own (`Allocator` in
_core.py), so the trace records which tile each access touches and nothing is reused.
After tracing, `place_tiles` sweeps the instructions in program order, as NKI's compiler
allocates: a tile takes physical room at its first use and gives it back after its last
use, whatever its Python variable does. A freed block cools down for `reuse_delay`
further placements when other room exists, so consecutive loop iterations land in
different buffers and overlap (multi-buffering from the allocator). When SBUF is full, the
live tile used again furthest in the future is spilled: stored to an HBM scratch tensor
by a dma_copy and loaded back before its next use, both ordinary instructions carrying
the Python line of the tile's producer and consumer. When even that cannot make room
(one instruction's own operands do not fit; PSUM, which DMA cannot reach), the error
lists the tiles live at the failing Python line.

Dependencies are computed afterwards on the physical addresses (_lower.find_dependencies),
so the orderings that reuse creates (a new tile's writer after the old tile's last reader)
are part of the kernel like any other.
"""
from __future__ import annotations

from .. import _core as _cxx
from ._core import ALIGN, BY_ASM, PSUM_BANK, Instr, View, fail

_UINT8 = BY_ASM["uint8"]


# The placement itself runs in C++ (_core.nki_place_tiles, python/core/nki_placement.cpp):
# a sweep that finds each on-chip view's tile, its uses and partitions, then one over the
# instructions that places each tile at its first use and frees it after its last.
#
# A memory's free room (one Placer there per memory) is placed in 64-byte aligned blocks
# per partition; PSUM blocks of up to one bank never straddle a bank boundary, larger ones
# start on one (a matmul result lies in one bank, reference section 2). Next fit: the
# search starts where the previous block ended and wraps around, so the memory is used as
# a ring and a block freed by a loop iteration is the last place the following iterations
# reuse: multi-buffering as deep as the free memory allows, with no setting. A block
# released fewer than `cooldown` placements ago is also avoided while other room exists
# (the reuse_delay option). Live blocks are kept sorted, so a placement costs O(live
# blocks). When an SBUF tile does not fit, the live tile (not one of the instruction's
# own) whose next use is furthest away is spilled (Belady), the first such in placement
# order on a tie.


def place_tiles(tr):
    """Gives every used tile a physical offset by its live range and rewrites each
    instruction's views to it, adding spill stores and loads; returns the new
    instruction list (indices renumbered), sets tr.sbuf/tr.psum.high_water and records
    tr.placements: (Allocation, physical offset, first and last position in the new list)
    of every placement, what the tests check for overlaps."""
    from ._tensor import HbmTensor

    def new_spill(alloc, parts):
        name = tr.unique_name(f"spill_{alloc.name or 'tile'}")
        h = tr.hbm[name] = HbmTensor(name, (parts, alloc.size), _UINT8, "scratch")
        return h

    def spill_dma(alloc, h, parts, phys, store, location):
        # The store carries the line that made the tile, the load its consumer's.
        size = alloc.size
        sbuf = View("sbuf", "_sbuf", _UINT8, 0, parts, 0, phys, [(1, size)])
        hbm = View("hbm", h.name, _UINT8, 0, parts, size, 0, [(1, size)], size)
        dst, src = (hbm, sbuf) if store else (sbuf, hbm)
        queue = "_store" if store else "_load"
        return Instr("sync", "dma_copy", [dst, src], [("queue", queue)],
                     alloc.location if store else location, [dst], [src], queue)

    memories = [(space, a.blocks, a.capacity, a.cooldown)
                for space, a in (("sbuf", tr.sbuf), ("psum", tr.psum))]
    out, high, tr.placements = _cxx.nki_place_tiles(
        tr.instrs, memories, ALIGN, PSUM_BANK, View, _outside, _no_room, new_spill, spill_dma,
        lambda v, tile_offset, phys: v.place(tile_offset, phys), _swap_views)
    tr.instrs = out
    tr.sbuf.high_water, tr.psum.high_water = high
    return out


def _swap_views(ins, replaced):
    """Swaps the instruction's views for their moved copies ({id(view): copy})."""
    def swap(x):
        return replaced.get(id(x), x) if isinstance(x, View) else x

    ins.operands = [swap(v) for v in ins.operands]
    ins.reads = [swap(v) for v in ins.reads]
    ins.writes = [swap(v) for v in ins.writes]
    ins.options = [(k, swap(v)) for k, v in ins.options]


def _outside(view, block, ins):
    """An access reaching past the end of its tile (an explicit access pattern)."""
    what = block.what if block is not None else "any tile"
    fail(f"{ins.opcode}: an operand's access pattern reaches outside {what} "
         f"({block.size if block else 0} bytes per partition); keep it inside the tile",
         ins.location)


def _no_room(alloc, live, capacity, needed, ins):
    """The capacity error: what the instruction needs (`alloc`, one of `needed`) and what
    is live at its line (`live`: (Allocation, offset))."""
    space = alloc.space.upper()
    live = [a for a, _ in sorted(live, key=lambda e: e[1])]
    used = sum(a.size for a in live)
    lines = []
    for a in live + [alloc]:
        file, line = a.location
        mark = " (this instruction's operand)" if a in needed else ""
        lines.append(f"  {a.what}: {a.size} bytes per partition, made at {file}:{line}{mark}")
    why = ("the tiles this instruction uses do not fit together" if alloc.space == "sbuf" else
           "PSUM tiles cannot be spilled (DMA does not reach PSUM)")
    fail(f"{alloc.what} needs {alloc.size} bytes per partition of {space}, but only "
         f"{capacity - used} of {capacity} are free: {why}. Tiles live at this "
         f"line:\n" + "\n".join(lines) + "\nuse smaller tiles, or end a tile's use (its last "
         f"read) before making the next", ins.location)
