"""NKI tile grids: a tensor seen in tile (or block) coordinates (NKI pages
nki.language.tiles, nki.language.blocks, nki.language.alloc_tiles,
nki.language.alloc_blocks, nki.language.NkiGrid, nki.language.NkiTileGrid,
nki.language.NkiBlockGrid; tutorial "Tile-grid fundamentals").

A grid is pure trace-time bookkeeping: making, indexing or slicing one emits nothing.
Every source dimension keeps the list of its selected cells (a tile, or a block of
tiles), each cell the source-element ranges it covers, so a selection of any step, a
clamped final cell (is_remainder) and a re-tiling of a selection are all the same data.
`.data` turns the selection into one ordinary Tensor (an NkiTensor) when each dimension's
elements are one arithmetic progression of the backing storage, and says why not
otherwise (is_data_representable).

Backing storage is one of two kinds: a view of an existing tensor (nl.tiles over a kernel
argument, an nl.ndarray, an SBUF tile; HBM allocations of alloc_tiles), or the pages'
"dense rank-two capacity layout" of an on-chip alloc_tiles / alloc_blocks / empty_like
(one allocation of tile_shape[0] partitions, every cell a full nominal tile side by side
along the free dimension, cells in row-major order of their coordinates).
"""
from __future__ import annotations

import operator

from . import _core
from ._core import fail, to_dtype, user_location
from ._tensor import HBM_BUFFERS, Tensor, _row_major, new_tile

_ON_CHIP = ("sbuf", "psum")
# empty_like's transpose_axes orders (NKI page nki.language.empty_like: "(1, 0), (2, 1, 0),
# and (3, 1, 2, 0) for ranks two through four"), those of nisa.dma_transpose.
_TRANSPOSES = ((1, 0), (2, 1, 0), (3, 1, 2, 0))


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _length(ranges):
    return sum(t - s for s, t in ranges)


def _image(ranges, a, b):
    """The source ranges that packed positions [a, b) of `ranges` (concatenated) cover."""
    out, pos = [], 0
    for s, t in ranges:
        n = t - s
        lo, hi = max(a, pos), min(b, pos + n)
        if lo < hi:
            lo, hi = s + lo - pos, s + hi - pos
            if out and out[-1][1] == lo:
                out[-1] = (out[-1][0], hi)
            else:
                out.append((lo, hi))
        pos += n
    return tuple(out)


class _Dim:
    """One source dimension of a grid: its selected cells (each a tuple of source-element
    ranges), the nominal cell length (tile or block extent; 1 for an untiled leading
    dimension), whether the coordinate is still navigable (`kept`) and whether it is an
    untiled leading dimension (a consumed one is dropped: the grid is then one slab)."""

    __slots__ = ("cells", "nominal", "kept", "lead")

    def __init__(self, cells, nominal, kept, lead):
        self.cells, self.nominal, self.kept, self.lead = cells, nominal, kept, lead

    @property
    def dropped(self):
        return self.lead and not self.kept

    def ranges(self):
        out = []
        for cell in self.cells:
            for s, t in cell:
                if out and out[-1][1] == s:
                    out[-1] = (out[-1][0], t)
                else:
                    out.append((s, t))
        return tuple(out)


class _Cells:
    """The capacity layout of an on-chip grid allocation: `tile` is the [T0, cells * F]
    allocation, `tshape` the tile shape, `counts` the cells along each source dimension
    (an untiled leading dimension counts its elements), `nlead` the leading dimensions."""

    def __init__(self, tile, tshape, counts, nlead):
        self.tile, self.tshape, self.counts, self.nlead = tile, tuple(tshape), tuple(counts), nlead
        self.cell_strides = _row_major(self.counts)
        self.free_strides = _row_major(self.tshape[1:])
        self.cell_elems = _prod(self.tshape[1:])


def _affine(ranges, f, seg, inner):
    """(first value, slope, count) when f over the elements of `ranges` is one arithmetic
    progression, else None. f is affine with slope `inner` within each aligned segment of
    `seg` elements (seg None: everywhere)."""
    pieces = []
    for s, t in ranges:
        while s < t:
            e = t if seg is None else min(t, (s // seg + 1) * seg)
            pieces.append((s, e))
            s = e
    slope, last = None, None
    for s, t in pieces:
        if last is not None:
            jump = f(s) - last
            if slope is None:
                slope = jump
            elif jump != slope:
                return None
        if t - s > 1:
            if slope is None:
                slope = inner
            elif inner != slope:
                return None
        last = f(t - 1)
    count = _length(ranges)
    return f(ranges[0][0]), (1 if slope is None else slope), count


class NkiGrid:
    """A tensor region in tile or block coordinates (NKI page nki.language.NkiGrid): made by
    nl.tiles / nl.blocks / nl.alloc_tiles / nl.alloc_blocks / nl.empty_like, never
    directly. Indexing by ints (which consume a coordinate) and positive-step slices keeps
    a grid; `.data` is the selection as one tensor operand."""

    _kind = "grid"

    def __init__(self, backing, dims, tile_shape, block_shape=None):
        self._backing = backing  # a Tensor (a view of existing storage) or _Cells
        self._dims = tuple(dims)
        self._tile = tuple(tile_shape)
        self._block = None if block_shape is None else tuple(block_shape)

    # --- the pages' attributes ----------------------------------------------------------
    @property
    def shape(self):
        """Cells (tiles or blocks) along each navigable coordinate."""
        return tuple(len(d.cells) for d in self._dims if d.kept)

    @property
    def tile_shape(self):
        """The nominal source-element shape of one tile."""
        return self._tile

    @property
    def element_shape(self):
        """Selected elements along each source dimension (a consumed untiled leading
        dimension is gone: the selection is one slab)."""
        return tuple(sum(_length(c) for c in d.cells) for d in self._dims if not d.dropped)

    @property
    def index_step_elements(self):
        """Source elements between consecutive cells of each navigable coordinate."""
        out = []
        for d in self._dims:
            if d.kept:
                out.append(d.cells[1][0][0] - d.cells[0][0][0] if len(d.cells) > 1
                           else d.nominal)
        return tuple(out)

    @property
    def is_remainder(self):
        """Whether a selected cell is clamped at the source's edge (shorter than nominal)."""
        return any(_length(c) < d.nominal for d in self._dims if not d.dropped for c in d.cells)

    @property
    def is_data_representable(self):
        return self._data()[0] is not None

    @property
    def data(self):
        """The selection as one Tensor (NkiTensor) operand; an NkiError at the kernel's line
        when it is not one access pattern (is_data_representable False)."""
        t, why = self._data()
        if t is None:
            fail(f"{self._kind} selection {list(self.element_shape)} of {self._what()} is not "
                 f"one access pattern, so .data cannot represent it (is_data_representable is "
                 f"False): {why}; move it one tile at a time (grid[i, j].data)")
        return t

    @property
    def dtype(self):
        return self._tensor().dtype

    @property
    def buffer(self):
        return self._tensor().space

    def __repr__(self):
        extra = f" block_shape={list(self._block)}" if self._block else ""
        return (f"<nki {type(self).__name__} shape={list(self.shape)} tile_shape="
                f"{list(self._tile)}{extra} element_shape={list(self.element_shape)} over "
                f"{self._what()}>")

    def __bool__(self):
        return True

    def __iter__(self):
        fail(f"an {type(self).__name__} is not iterable; loop over range(grid.shape[k]) and "
             "index it")

    # --- indexing --------------------------------------------------------------------------
    def __getitem__(self, key):
        location = user_location()
        if not isinstance(key, tuple):
            key = (key,)
        kept = [i for i, d in enumerate(self._dims) if d.kept]
        if any(k is Ellipsis for k in key):
            i = [k is Ellipsis for k in key].index(True)
            if any(k is Ellipsis for k in key[i + 1:]):
                fail("an index can only have a single ellipsis ('...')", location)
            key = key[:i] + (slice(None),) * (len(kept) - len(key) + 1) + key[i + 1:]
        if len(key) > len(kept):
            fail(f"too many indices ({len(key)}) for a {type(self).__name__} of shape "
                 f"{list(self.shape)}", location)
        dims = list(self._dims)
        for pos, (i, k) in enumerate(zip(kept, key)):
            d = dims[i]
            n = len(d.cells)
            if isinstance(k, slice):
                start, stop, step = k.start, k.stop, k.step
                if step is not None and _as_int(step, location) <= 0:
                    fail(f"grid slice step {step} must be positive (NKI page "
                         "nki.language.empty_like: a positive-step grid slice)", location)
                cells = d.cells[slice(*(None if x is None else _as_int(x, location)
                                        for x in (start, stop, step)))]
                if not cells:
                    fail(f"slice {_slice_text(k)} selects no cell of coordinate {pos} (size "
                         f"{n})", location)
                dims[i] = _Dim(cells, d.nominal, True, d.lead)
            else:
                c = _as_int(k, location)
                if c < 0:
                    c += n
                if not 0 <= c < n:
                    fail(f"index {k} out of range for coordinate {pos} of a grid of shape "
                         f"{list(self.shape)}", location)
                dims[i] = _Dim((d.cells[c],), d.nominal, False, d.lead)
        return type(self)(self._backing, dims, self._tile, self._block)

    def __setitem__(self, key, value):
        fail("a grid is a view, not a value: write its data with an instruction "
             "(nisa.dma_copy(dst=grid[i, j].data, src=...))")

    # --- internals -------------------------------------------------------------------------
    def _tensor(self):
        return self._backing.tile if isinstance(self._backing, _Cells) else self._backing

    def _what(self):
        t = self._tensor()
        return f"{t.space.upper()} tensor {t.name or ''}{list(t.shape)}".replace(" [", "[")

    def _regions(self):
        return [d.ranges() for d in self._dims]

    def _data(self):
        """(Tensor, None) or (None, the reason)."""
        if isinstance(self._backing, _Cells):
            return self._cells_data()
        src = self._backing
        key = []
        for i, d in enumerate(self._dims):
            ranges = d.ranges()
            got = _affine(ranges, lambda e: e, None, 1)
            if got is None:
                return None, (f"source dimension {i} selects the elements "
                              f"{_ranges_text(ranges)}, which are not evenly spaced")
            first, slope, count = got
            onchip_p = src.space != "hbm" and i == src.pdim
            if onchip_p and slope != 1:
                return None, (f"the partition dimension selects every {slope}th partition "
                              f"({_ranges_text(ranges)}); an engine reads consecutive partitions")
            key.append(first if d.dropped else slice(first, first + slope * (count - 1) + 1, slope))
        return src[tuple(key)], None

    def _cells_data(self):
        b = self._backing
        tile, p = b.tile, b.nlead
        shape, strides, pdim = [], [], 0
        const, pstart = 0, tile.pstart
        for i, d in enumerate(self._dims):
            ranges = d.ranges()
            if i < p:
                cs = b.cell_strides[i] * b.cell_elems
                got = _affine(ranges, lambda e, cs=cs: e * cs, None, cs)
            elif i == p:
                t0 = b.tshape[0]
                lo, hi = ranges[0][0], ranges[-1][1] - 1
                if lo // t0 != hi // t0:
                    return None, (f"it spans {hi // t0 - lo // t0 + 1} tiles along the partition "
                                  f"dimension, which all lie on partitions 0..{t0 - 1} of one "
                                  f"{tile.space.upper()} allocation")
                got = _affine(ranges, lambda e: e, None, 1)
                if got is None or got[1] != 1:
                    return None, (f"the partition dimension selects {_ranges_text(ranges)}, "
                                  "not consecutive partitions")
                first, _, count = got
                const += (lo // t0) * b.cell_strides[i] * b.cell_elems
                pstart += first % t0
                pdim = len(shape)
                shape.append(count)
                strides.append(0)
                continue
            else:
                k = i - p
                tk, cs, fs = b.tshape[k], b.cell_strides[i] * b.cell_elems, b.free_strides[k - 1]
                got = _affine(ranges, lambda e, tk=tk, cs=cs, fs=fs: (e // tk) * cs + (e % tk) * fs,
                              tk, fs)
            if got is None:
                return None, (f"source dimension {i} selects {_ranges_text(ranges)}, whose cells "
                              "are not evenly spaced in the allocation")
            first, slope, count = got
            const += first
            if not d.dropped:
                shape.append(count)
                strides.append(slope)
        t = Tensor(tile.space, tile.dtype, shape, strides, tile.offset + const * tile.dtype.size,
                   alloc=tile.alloc, pstart=pstart, name=tile.name, pdim=pdim)
        return t, None


class NkiTileGrid(NkiGrid):
    """A tensor view navigated in tile coordinates (NKI page nki.language.NkiTileGrid)."""

    _kind = "tile"


class NkiBlockGrid(NkiGrid):
    """A tensor view navigated in block coordinates, a block being block_shape tiles (NKI
    page nki.language.NkiBlockGrid); nl.tiles(block) gives its tiles."""

    _kind = "block"

    @property
    def block_shape(self):
        """Tiles per block along each tiled dimension."""
        return self._block


def operand_hint(x):
    """The words an operand error adds when it was given a grid: a grid is a view in tile
    coordinates, its operand is .data (NKI page nki.language.tiles)."""
    if isinstance(x, NkiGrid):
        return f" ({type(x).__name__} is a view in tile coordinates; its operand is grid.data)"
    return ""


def _as_int(x, location):
    if isinstance(x, bool):
        fail(f"grid index {x!r} must be an int", location)
    try:
        return operator.index(x)
    except TypeError:
        fail(f"grid index {x!r} must be an int or a slice (a grid is indexed by tile "
             "coordinates at trace time)", location)


def _slice_text(k):
    return ":".join("" if x is None else str(x) for x in (k.start, k.stop, k.step)).rstrip(":")


def _ranges_text(ranges):
    shown = ", ".join(f"{s}:{t}" for s, t in ranges[:4])
    return f"[{shown}{', ...' if len(ranges) > 4 else ''}]"


def _shape_arg(value, what, location, at_least=1):
    """A shape argument as the pages require: a tuple of exact, positive Python ints (a
    TypeError / ValueError there, an NkiError naming the line here)."""
    if not isinstance(value, tuple) or any(isinstance(x, bool) or not isinstance(x, int)
                                           for x in value):
        fail(f"{what} must be a tuple of Python ints, not {value!r}", location)
    value = tuple(int(x) for x in value)
    if len(value) < at_least:
        fail(f"{what} {list(value)} needs at least {at_least} dimensions", location)
    if any(x <= 0 for x in value):
        fail(f"{what} {list(value)} has a nonpositive entry", location)
    return value


def _build(cls, backing, regions, dropped, tile_shape, block_shape, location):
    """A fresh grid over `regions` (per source dimension, the packed source ranges): the
    last len(tile_shape) dimensions not dropped are tiled, the others leading."""
    live = [i for i, gone in enumerate(dropped) if not gone]
    if len(tile_shape) > len(live):
        fail(f"tile_shape {list(tile_shape)} has more dimensions than the source's "
             f"{len(live)}", location)
    tiled = live[len(live) - len(tile_shape):]
    dims = []
    for i, ranges in enumerate(regions):
        if dropped[i]:
            dims.append(_Dim((ranges,), 1, False, True))
        elif i in tiled:
            k = tiled.index(i)
            cell = tile_shape[k] * (block_shape[k] if block_shape else 1)
            extent = _length(ranges)
            cells = tuple(_image(ranges, c * cell, min((c + 1) * cell, extent))
                          for c in range((extent + cell - 1) // cell))
            dims.append(_Dim(cells, cell, True, False))
        else:
            dims.append(_Dim(tuple(_image(ranges, e, e + 1) for e in range(_length(ranges))),
                             1, True, True))
    return cls(backing, dims, tile_shape, block_shape)


def _over(source, tile_shape, block_shape, cls, what, location):
    if isinstance(source, NkiGrid):
        if tile_shape is None:
            tile_shape = source.tile_shape
        tile_shape = _shape_arg(tile_shape, "tile_shape", location, 2)
        regions = source._regions()
        dropped = [d.dropped for d in source._dims]
        backing = source._backing
    elif isinstance(source, Tensor):
        if tile_shape is None:
            fail(f"nl.{what} of a tensor needs tile_shape=", location)
        tile_shape = _shape_arg(tile_shape, "tile_shape", location, 2)
        if source.limits:
            fail(f"nl.{what}: this view indexes outside its tensor", location)
        regions = [((0, n),) for n in source.shape]
        dropped = [False] * len(source.shape)
        backing = source
    else:
        fail(f"nl.{what} takes an NkiTensor, NkiTileGrid or NkiBlockGrid, not "
             f"{type(source).__name__}", location)
    if block_shape is not None:
        block_shape = _shape_arg(block_shape, "block_shape", location)
        if len(block_shape) != len(tile_shape):
            fail(f"block_shape {list(block_shape)} must have the rank of tile_shape "
                 f"{list(tile_shape)}", location)
    if isinstance(backing, Tensor) and backing.space != "hbm":
        live = [i for i, gone in enumerate(dropped) if not gone]
        if len(tile_shape) <= len(live) and live[len(live) - len(tile_shape)] != backing.pdim:
            fail(f"on an {backing.space.upper()} tensor {list(backing.shape)} a tile's first "
                 f"dimension is the partition dimension (dimension {backing.pdim}): tile_shape "
                 f"{list(tile_shape)} starts at dimension {live[len(live) - len(tile_shape)]}",
                 location)
    return _build(cls, backing, regions, dropped, tile_shape, block_shape, location)


def tiles(source, *, tile_shape=None):
    """A tile-coordinate view of a tensor or of a grid's selection (NKI page
    nki.language.tiles): tile_shape applies to the trailing dimensions, the ones before it
    are untiled (indexed one slab at a time), the last tile of each dimension is clamped.
    Of a grid, tile_shape defaults to the grid's (a block's tiles)."""
    return _over(source, tile_shape, None, NkiTileGrid, "tiles", user_location())


def blocks(source, *, tile_shape=None, block_shape):
    """A block-coordinate view, each block block_shape tiles (NKI page nki.language.blocks)."""
    return _over(source, tile_shape, block_shape, NkiBlockGrid, "blocks", user_location())


def _alloc(cls, tile_shape, block_shape, element_shape, buffer, dtype, name, location):
    tile_shape = _shape_arg(tile_shape, "tile_shape", location, 2)
    element_shape = _shape_arg(element_shape, "element_shape", location)
    if block_shape is not None:
        block_shape = _shape_arg(block_shape, "block_shape", location)
        if len(block_shape) != len(tile_shape):
            fail(f"block_shape {list(block_shape)} must have the rank of tile_shape "
                 f"{list(tile_shape)}", location)
    if len(tile_shape) > len(element_shape):
        fail(f"tile_shape {list(tile_shape)} has more dimensions than element_shape "
             f"{list(element_shape)}", location)
    dtype = to_dtype(dtype, location)
    if buffer in HBM_BUFFERS:
        # HBM: the compact logical extent is the storage (NKI page nki.language.alloc_blocks).
        from . import language

        t = language.ndarray(element_shape, dtype, buffer, name)
        return _over(t, tile_shape, block_shape, cls, "alloc", location)
    if buffer not in _ON_CHIP:
        fail(f"unsupported buffer {buffer!r} (nl.sbuf, nl.psum, nl.hbm or nl.shared_hbm)",
             location)
    nlead = len(element_shape) - len(tile_shape)
    if tile_shape[0] > _core.PARTITIONS:
        fail(f"tile_shape {list(tile_shape)}: an {buffer.upper()} tile has at most "
             f"{_core.PARTITIONS} partitions", location)
    counts = element_shape[:nlead] + tuple(
        (e + t - 1) // t for e, t in zip(element_shape[nlead:], tile_shape))
    per_cell = _prod(tile_shape[1:])
    tile = new_tile((tile_shape[0], _prod(counts) * per_cell), dtype, buffer, location, name)
    backing = _Cells(tile, tile_shape, counts, nlead)
    regions = [((0, e),) for e in element_shape]
    return _build(cls, backing, regions, [False] * len(element_shape), tile_shape, block_shape,
                  location)


def alloc_tiles(*, tile_shape, element_shape, buffer, dtype, address=None, name=""):
    """New, uninitialised storage as a grid of tiles (NKI page nki.language.alloc_tiles):
    in HBM an element_shape tensor, on chip one allocation of tile_shape[0] partitions
    holding every (nominal) tile side by side. `address` is accepted and not honoured: the
    tracer's allocator places every tile (docs/python.md, "Allocation")."""
    location = user_location()
    return _alloc(NkiTileGrid, tile_shape, None, element_shape, buffer, dtype,
                  name or _core.assigned_name(location), location)


def alloc_blocks(*, tile_shape, block_shape, element_shape, buffer, dtype, address=None,
                 name=""):
    """alloc_tiles' storage in block coordinates (NKI page nki.language.alloc_blocks)."""
    location = user_location()
    return _alloc(NkiBlockGrid, tile_shape, block_shape, element_shape, buffer, dtype,
                  name or _core.assigned_name(location), location)


def _transposed(transpose_axes, rank, location):
    axes = tuple(transpose_axes)
    if axes not in _TRANSPOSES or len(axes) != rank:
        fail(f"transpose_axes {axes} is not one of {', '.join(map(str, _TRANSPOSES))} for rank "
             f"{rank} (NKI page nki.language.empty_like)", location)
    return axes


def grid_like(grid, dtype, buffer, name, transpose_axes, location):
    """nl.empty_like of a grid (NKI page nki.language.empty_like): new storage of the same
    grid type, navigation shape, tile shape, block grouping and remainder extents, the
    selected cells packed densely; transpose_axes permutes the tiled dimensions for a later
    nisa.dma_transpose."""
    dtype = grid.dtype if dtype is None else to_dtype(dtype, location)
    buffer = grid.buffer if buffer is None else buffer
    live = [d for d in grid._dims if not d.dropped]
    element = list(grid.element_shape)
    tile = list(grid.tile_shape)
    block = None if grid._block is None else list(grid._block)
    consumed = [not d.kept for d in live]
    n = len(tile)
    if transpose_axes is not None:
        axes = _transposed(transpose_axes, n, location)
        if buffer != "sbuf":
            fail(f"transpose_axes prepares an SBUF destination (for nisa.dma_transpose), not "
                 f"{buffer}", location)
        lead = len(element) - n
        element = element[:lead] + [element[lead + a] for a in axes]
        consumed = consumed[:lead] + [consumed[lead + a] for a in axes]
        tile = [tile[a] for a in axes]
        block = None if block is None else [block[a] for a in axes]
        if tile[0] > _core.PARTITIONS:
            fail(f"transpose_axes {axes}: the source tile extent {tile[0]} that becomes the "
                 f"destination's partitions exceeds {_core.PARTITIONS}", location)
    new = _alloc(type(grid), tuple(tile), None if block is None else tuple(block),
                 tuple(element), buffer, dtype, name, location)
    if any(consumed):
        # Coordinates the source consumed stay consumed (the navigation shape is kept).
        dims = list(new._dims)
        for i, gone in enumerate(consumed):
            if gone:
                d = dims[i]
                dims[i] = _Dim(d.cells[:1], d.nominal, False, d.lead)
        new = type(grid)(new._backing, dims, new._tile, new._block)
    return new


def tensor_transposed_shape(a, transpose_axes, buffer, location):
    """The shape of nl.empty_like(tensor, transpose_axes=...): a's dimensions permuted."""
    axes = _transposed(transpose_axes, len(a.shape), location)
    if buffer != "sbuf":
        fail(f"transpose_axes prepares an SBUF destination (for nisa.dma_transpose), not "
             f"{buffer}", location)
    shape = tuple(a.shape[x] for x in axes)
    if shape[0] > _core.PARTITIONS:
        fail(f"transpose_axes {axes}: dimension {axes[0]} of {list(a.shape)} ({shape[0]}) would "
             f"be the destination's partitions, at most {_core.PARTITIONS}", location)
    return shape


def zero_fill(grid, location):
    """zeros_like of a grid: one memset over its whole on-chip allocation."""
    from . import isa as _isa

    b = grid._backing
    if not isinstance(b, _Cells):
        fail("nl.zeros_like of a grid in HBM is not supported (fill an SBUF grid and copy it)",
             location)
    _isa.emit("vector", "memset", b.tile, [], [("value", "0.0")], location)
    return grid
