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

import bisect

from ._core import ALIGN, BY_ASM, PSUM_BANK, Instr, View, fail

_UINT8 = BY_ASM["uint8"]


class _Placer:
    """Places blocks of bytes per partition in a memory of `capacity`: 64-byte aligned;
    PSUM blocks of up to one bank never straddle a bank boundary, larger ones start on
    one (a matmul result lies in one bank, reference section 2).

    Next fit: the search starts where the previous block ended and wraps around, so the
    memory is used as a ring and a block freed by a loop iteration is the last place the
    following iterations reuse: multi-buffering as deep as the free memory allows, with
    no setting. A block released fewer than `cooldown` placements ago is also avoided
    while other room exists (the reuse_delay option). Live blocks are kept sorted, so a
    placement costs O(live blocks), not more."""

    def __init__(self, space, capacity, cooldown):
        self.space, self.capacity, self.cooldown = space, capacity, cooldown
        self.live = {}  # Allocation -> (offset, size)
        self.starts, self.ends = [], []  # live blocks by offset (they never overlap)
        self.cooling = []  # (offset, end, placements left)
        self.high_water = 0
        self.cursor = 0  # where the previous placement ended

    def _align(self, c, size):
        off = (c + ALIGN - 1) // ALIGN * ALIGN
        if self.space == "psum":
            if size <= PSUM_BANK and off // PSUM_BANK != (off + size - 1) // PSUM_BANK:
                off = (off // PSUM_BANK + 1) * PSUM_BANK
            elif size > PSUM_BANK and off % PSUM_BANK:
                off = (off // PSUM_BANK + 1) * PSUM_BANK
        return off

    def _search(self, size, avoid_cooling):
        """The first place from the cursor on (wrapping once) where `size` fits."""
        starts, ends, cap = self.starts, self.ends, self.capacity
        c, wrapped = self.cursor, False
        while True:
            off = self._align(c, size)
            end = off + size
            if end > cap:
                if wrapped or self.cursor == 0:
                    return None
                c, wrapped = 0, True
                continue
            if wrapped and off >= self.cursor:
                return None
            i = bisect.bisect_left(starts, end)
            if i and ends[i - 1] > off:  # the live block ending last before `end` clashes
                c = ends[i - 1]
                continue
            if avoid_cooling:
                clash = [e for o, e, _ in self.cooling if o < end and off < e]
                if clash:
                    c = max(clash)
                    continue
            return off

    def place(self, alloc):
        off = None
        if self.cooling:
            off = self._search(alloc.size, True)
        if off is None:
            off = self._search(alloc.size, False)
        if off is None:
            return None
        if self.cooling:
            self.cooling = [(o, e, n - 1) for o, e, n in self.cooling if n > 1]
        end = off + alloc.size
        i = bisect.bisect_left(self.starts, off)
        self.starts.insert(i, off)
        self.ends.insert(i, end)
        self.live[alloc] = (off, alloc.size)
        self.high_water = max(self.high_water, end)
        self.cursor = end
        return off

    def free(self, alloc, cool=True):
        """Gives the block back; cool=False (a spilled tile) makes it reusable at once."""
        off, size = self.live.pop(alloc)
        i = bisect.bisect_left(self.starts, off)
        del self.starts[i]
        del self.ends[i]
        if cool and self.cooldown:
            self.cooling.append((off, off + size, self.cooldown))


class _Tile:
    """Placement state of one traced Allocation."""

    __slots__ = ("alloc", "uses", "next", "parts", "phys", "spill", "dirty", "since")

    def __init__(self, alloc):
        self.alloc = alloc
        self.uses = []  # instruction positions, increasing
        self.next = 0  # index into uses of the next use
        self.parts = 1  # partitions touched: 0..parts
        self.phys = None
        self.spill = None  # HBM scratch tensor once spilled
        self.dirty = False  # written since its last store to `spill`
        self.since = 0  # position in the new list where its current placement began


def place_tiles(tr):
    """Gives every used tile a physical offset by its live range and rewrites each
    instruction's views to it, adding spill stores and loads; returns the new
    instruction list (indices renumbered), sets tr.sbuf/tr.psum.high_water and records
    tr.placements."""
    from ._tensor import HbmTensor

    spaces = {"sbuf": tr.sbuf, "psum": tr.psum}
    starts = {s: [a.offset for a in spaces[s].blocks] for s in spaces}
    tiles = {s: [None] * len(spaces[s].blocks) for s in spaces}
    touched = []  # per instruction: [(tile, written)]
    owners = []  # per instruction: [(view, tile)] of its on-chip views
    instrs = tr.instrs
    bisect_right = bisect.bisect_right
    # Per memory: (block start offsets, blocks, tiles), looked up once per view.
    memories = {s: (starts[s], spaces[s].blocks, tiles[s]) for s in spaces}
    for i, ins in enumerate(instrs):
        mine, owner, seen = {}, [], set()
        option_views = [v for _, v in ins.options if isinstance(v, View)] if ins.options else ()
        for group, is_write in ((ins.writes, True), (ins.reads, False), (ins.operands, False),
                                (option_views, False)):
            for v in group:
                space = v.space
                if space == "hbm":
                    continue
                vid = id(v)
                if vid in seen:
                    continue
                seen.add(vid)
                offsets, blocks, space_tiles = memories[space]
                k = bisect_right(offsets, v.offset) - 1
                block = blocks[k] if k >= 0 else None
                if block is None or v.region()[2][1] > block.offset + block.size:
                    _outside(v, block, ins)
                t = space_tiles[k]
                if t is None:
                    t = space_tiles[k] = _Tile(block)
                    t.uses.append(i)
                elif t.uses[-1] != i:
                    t.uses.append(i)
                end = v.pstart + v.partitions
                if end > t.parts:
                    t.parts = end
                owner.append((v, t))
                if is_write:
                    mine[t] = True
                elif t not in mine:
                    mine[t] = False
        touched.append(list(mine.items()))
        owners.append(owner)

    placers = {s: _Placer(s, spaces[s].capacity, spaces[s].cooldown) for s in spaces}
    out = []
    # (Allocation, physical offset, first and last position in `out`) of every placement:
    # what the tests check for overlaps.
    placements = tr.placements = []

    def spill_view(t):
        return View("sbuf", "_sbuf", _UINT8, 0, t.parts, 0, t.phys, [(1, t.alloc.size)])

    def hbm_view(t):
        h = t.spill
        return View("hbm", h.name, _UINT8, 0, t.parts, t.alloc.size, 0, [(1, t.alloc.size)],
                    t.alloc.size)

    def dma(dst, src, queue, location):
        ins = Instr("sync", "dma_copy", [dst, src], [("queue", queue)], location, [dst], [src],
                    queue)
        out.append(ins)

    def make_room(t, needed, ins):
        placer = placers[t.alloc.space]
        off = placer.place(t.alloc)
        while off is None:
            victims = [] if t.alloc.space != "sbuf" else [
                v for v in placer.live if v not in needed]
            if not victims:
                _no_room(t, placer, needed, ins)
            # Belady: the live tile whose next use is furthest away.
            victim = max((tiles_of[v] for v in victims), key=lambda x: x.uses[x.next])
            if victim.spill is None:
                name = tr.unique_name(f"spill_{victim.alloc.name or 'tile'}")
                victim.spill = HbmTensor(name, (victim.parts, victim.alloc.size), _UINT8,
                                         "scratch")
                tr.hbm[name] = victim.spill
                victim.dirty = True
            if victim.dirty:  # the store carries the line that made the tile
                dma(hbm_view(victim), spill_view(victim), "_store", victim.alloc.location)
                victim.dirty = False
            placer.free(victim.alloc, cool=False)
            placements.append((victim.alloc, victim.phys, victim.since, len(out) - 1))
            victim.phys = None
            off = placer.place(t.alloc)
        t.phys, t.since = off, len(out)
        if t.spill is not None:  # loaded back for its consumer
            dma(spill_view(t), hbm_view(t), "_load", ins.location)

    tiles_of = {}
    for s in tiles:
        for t in tiles[s]:
            if t is not None:
                tiles_of[t.alloc] = t
    for i, ins in enumerate(instrs):
        mine = touched[i]
        if mine:
            needed = None  # the tiles this instruction uses: made only when one needs room
            for t, _ in mine:
                if t.phys is None:
                    if needed is None:
                        needed = {t.alloc for t, _ in mine}
                    make_room(t, needed, ins)
            _move_views(ins, owners[i])
        out.append(ins)
        for t, w in mine:
            if w:
                t.dirty = True
            t.next += 1
            if t.next == len(t.uses):
                placers[t.alloc.space].free(t.alloc)
                placements.append((t.alloc, t.phys, t.since, len(out) - 1))
    for k, ins in enumerate(out):
        ins.index = k
    tr.instrs = out
    tr.sbuf.high_water = placers["sbuf"].high_water
    tr.psum.high_water = placers["psum"].high_water
    return out


def _move_views(ins, owner):
    """Moves the instruction's on-chip views from virtual to physical offsets; a view
    already placed for an earlier placement of its tile is replaced by a moved copy."""
    replaced = None
    for v, t in owner:
        m = v.place(t.alloc.offset, t.phys)
        if m is not v:
            if replaced is None:
                replaced = {}
            replaced[id(v)] = m
    if replaced:
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


def _no_room(t, placer, needed, ins):
    """The capacity error: what the instruction needs and what is live at its line."""
    space = t.alloc.space.upper()
    live = sorted(placer.live, key=lambda a: placer.live[a][0])
    used = sum(a.size for a in live)
    lines = []
    for a in live + [t.alloc]:
        file, line = a.location
        mark = " (this instruction's operand)" if a in needed else ""
        lines.append(f"  {a.what}: {a.size} bytes per partition, made at {file}:{line}{mark}")
    why = ("the tiles this instruction uses do not fit together" if t.alloc.space == "sbuf" else
           "PSUM tiles cannot be spilled (DMA does not reach PSUM)")
    fail(f"{t.alloc.what} needs {t.alloc.size} bytes per partition of {space}, but only "
         f"{placer.capacity - used} of {placer.capacity} are free: {why}. Tiles live at this "
         f"line:\n" + "\n".join(lines) + "\nuse smaller tiles, or end a tile's use (its last "
         f"read) before making the next", ins.location)
