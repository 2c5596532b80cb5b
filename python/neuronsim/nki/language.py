"""neuronsim.nki.language: NKI's nki.language names for a traced kernel.

Tensor creation (ndarray, zeros, full), HBM <-> SBUF movement (load, store), index
grids (arange, mgrid), tile grids (tiles, blocks, alloc_tiles, alloc_blocks: _grid.py),
loops (affine_range, sequential_range, static_range: all plain Python ranges, so tracing
unrolls them), dtypes, buffers, tile_size, and the
elementwise / reduction / matmul conveniences, each lowered to the one or two
neuronsim instructions that compute it (docs/python.md ("neuronsim.nki") lists which).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _core
from . import isa as _isa
from ._core import BY_NKI, FLOAT32, fail, to_dtype, user_location
from ._tensor import HBM_BUFFERS, HbmTensor, IndirectRows, ParDim, Tensor, check_mask, new_tile
from . import _grid, _index, _mask

# Module names that are the implementation's, not NKI's: dir(nl) leaves them out.
_INTERNAL = ("annotations", "builtins", "np", "BY_NKI", "FLOAT32", "fail", "to_dtype",
             "user_location", "HBM_BUFFERS", "HbmTensor", "ParDim", "Tensor", "check_mask",
             "new_tile")

arange = _index.arange  # nl.arange(n)[:, None]: an index expression (nki.language.arange)
mgrid = _index.mgrid  # nl.mgrid[0:128, 0:D]: index expressions, .p / .x (nki.language.mgrid)
ds = _index.ds  # nl.ds(start, size): the slice start:start+size (nki.language.ds)

# --- dtypes and buffers -------------------------------------------------------------------
float32 = BY_NKI["float32"]
tfloat32 = BY_NKI["tfloat32"]
bfloat16 = BY_NKI["bfloat16"]
float16 = BY_NKI["float16"]
float8_e4m3 = BY_NKI["float8_e4m3"]
float8_e5m2 = BY_NKI["float8_e5m2"]
# NeuronCore-v4's MX types: OCP e4m3fn (max 448, no infinity), the e8m0 scale, and the
# 4-packed fp8 data of quantize_mx / nc_matmul_mx (uint32 arrays in numpy: docs/python.md).
float8_e4m3fn = BY_NKI["float8_e4m3fn"]
float8_e8m0fnu = BY_NKI["float8_e8m0fnu"]
float8_e5m2_x4 = BY_NKI["float8_e5m2_x4"]
float8_e4m3fn_x4 = BY_NKI["float8_e4m3fn_x4"]
float4_e2m1fn_x4 = BY_NKI["float4_e2m1fn_x4"]  # four OCP fp4 lanes (uint16 in numpy)
int8, int16, int32 = BY_NKI["int8"], BY_NKI["int16"], BY_NKI["int32"]
uint8, uint16, uint32 = BY_NKI["uint8"], BY_NKI["uint16"], BY_NKI["uint32"]
bool_ = uint8  # NKI's nl.bool_ (page "Supported Data Types"): one byte, 0 or 1


class fp32:
    """NKI's FP32 constants (page nki.language.fp32): `nl.fp32.min` is the most negative
    finite fp32 value (bit pattern 0xff7fffff), the fill of a running maximum."""

    min = -3.4028234663852886e38
    max = 3.4028234663852886e38

sbuf = "sbuf"
psum = "psum"
hbm = "hbm"
private_hbm = "private_hbm"
shared_hbm = "shared_hbm"


class tile_size:
    """NKI's tile size limits (reference sections 2 and 3)."""

    pmax = 128  # partitions
    psum_fmax = 2048 // 4  # fp32 elements in one PSUM bank per partition
    gemm_stationary_fmax = 128  # matmul M
    gemm_moving_fmax = 512  # matmul N
    bn_stats_fmax = 512
    psum_min_align = 4
    sbuf_min_align = 1


def par_dim(n):
    """Marks the partition dimension in a shape (NKI page nki.language.par_dim): in
    (B, nl.par_dim(P), F) the dimensions before it are block dimensions, B tiles of P
    partitions each. An int, so shapes stay tuples of ints."""
    return ParDim(int(n))


class nc(int):
    """nl.nc(n) in a launch grid: a dimension of n programs, one per physical NeuronCore
    of the logical core (NKI page nki.language.nc). An int (the dimension's size);
    `cores` says how many cores it spreads over."""

    def __new__(cls, n):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            fail(f"nl.nc(n) takes a positive number of cores, not {n!r}")
        self = super().__new__(cls, n)
        self.cores = int(n)
        return self

    def core_of(self, index):
        return int(index)

    def __repr__(self):
        return f"nl.nc({int(self)})"


class spmd_dim(int):
    """nl.spmd_dim(a, b, ...) in a launch grid: one dimension of a * b * ... programs,
    its index split over the factors, outermost first; a factor nl.nc(n) spreads its
    part over n physical cores (NKI page nki.language.spmd_dim: spmd_dim(nl.nc(2), 2)
    runs programs 0, 1 on core 0 and 2, 3 on core 1)."""

    def __new__(cls, *factors):
        if not factors:
            fail("nl.spmd_dim needs at least one size")
        size = 1
        for f in factors:
            if int(f) < 1:
                fail(f"nl.spmd_dim sizes must be positive, not {f!r}")
            size *= int(f)
        self = super().__new__(cls, size)
        self.factors = tuple(factors)
        self.cores = 1
        for f in factors:
            self.cores *= getattr(f, "cores", 1)
        return self

    def __repr__(self):
        return f"nl.spmd_dim({', '.join(repr(f) for f in self.factors)})"

    def core_of(self, index):
        """The physical core (0 .. cores-1) of program `index` along this dimension."""
        core, rest = 0, int(index)
        sizes = [int(f) for f in self.factors]
        for k, f in enumerate(self.factors):
            inner = 1
            for s in sizes[k + 1:]:
                inner *= s
            digit, rest = divmod(rest, inner)
            if isinstance(f, (nc, spmd_dim)):
                core = core * f.cores + f.core_of(digit)
        return core


def program_id(axis):
    """This program's index along `axis` of the launch grid (kernel[gx, gy](...))."""
    tr = _core.trace()
    if not 0 <= axis < builtins.max(len(tr.grid), 1):
        fail(f"program_id({axis}): the launch grid has {len(tr.grid)} axes")
    return tr.program[axis] if tr.grid else 0


def num_programs(axes=None):
    tr = _core.trace()
    grid = tr.grid or (1,)
    if axes is None:
        n = 1
        for g in grid:
            n *= g
        return n
    if isinstance(axes, int):
        return grid[axes]
    return tuple(grid[a] for a in axes)


def program_ndim():
    return len(_core.trace().grid)


def affine_range(*args, **kwargs):
    """Iterations without loop-carried dependencies; traced by unrolling."""
    return range(*args)


def sequential_range(*args, **kwargs):
    """Iterations in order (loop-carried dependencies allowed); traced by unrolling. The
    tracer orders everything by the data dependencies it sees, so this is affine_range."""
    return range(*args)


def static_range(*args, **kwargs):
    return range(*args)


# --- creation -----------------------------------------------------------------------------


def ndarray(shape, dtype=float32, buffer=sbuf, name=None, **kwargs):
    """A new tensor: an SBUF/PSUM tile ([partitions, free...]) or an HBM tensor. An HBM
    tensor of buffer=nl.shared_hbm that the kernel returns is one of its outputs."""
    location = user_location()
    dtype = to_dtype(dtype, location)
    name = name or _core.assigned_name(location)
    if buffer in HBM_BUFFERS:
        from ._tensor import _row_major

        shape = tuple(int(n) for n in shape)  # an nl.par_dim marks nothing in HBM

        tr = _core.trace()
        site = tr.shared_site(location) if buffer == shared_hbm else None
        h = tr.shared.get(site)
        if h is None:
            hname = tr.unique_name(name or "hbm")
            h = HbmTensor(hname, shape, dtype, "scratch")
            tr.hbm[hname] = h
            if site is not None:
                tr.shared[site] = h
        return Tensor("hbm", dtype, shape, _row_major(tuple(shape)), 0, hbm=h, name=h.name)
    if buffer not in (sbuf, psum):
        fail(f"unknown buffer {buffer!r} (nl.sbuf, nl.psum, nl.hbm or nl.shared_hbm)", location)
    return new_tile(shape, dtype, buffer, location, name)


def zeros(shape, dtype=float32, buffer=sbuf, name=None, **kwargs):
    return full(shape, 0.0, dtype, buffer, name)


def full(shape, fill_value, dtype=float32, buffer=sbuf, name=None, **kwargs):
    location = user_location()
    t = ndarray(shape, dtype, buffer, name or _core.assigned_name(location))
    if t.space == "hbm":
        fail("nl.full/nl.zeros in HBM is not supported (fill an SBUF tile and store it)", location)
    # A tile with block dimensions is filled whole, by one memset over all its blocks.
    whole = t.all_blocks()
    if t.space == "psum" and float(fill_value) == 0.0:
        # Traced only if something other than `+=` of a matmul touches it first.
        view = whole.operand()
        ins = _core.Instr("vector", "memset", [view], [("value", "0.0")], location, [view], [])
        _mask.defer_zero(_core.trace(), ins)
        return t
    _isa.emit("vector", "memset", whole, [], [("value", repr(float(fill_value)))], location)
    return t


def ones(shape, dtype=float32, buffer=sbuf, name=None, **kwargs):
    return full(shape, 1.0, dtype, buffer, name)


def _like(a, dtype, buffer, location, transpose_axes=None):
    if not isinstance(a, Tensor):
        fail(f"expected a tensor, got {type(a).__name__}", location)
    shape = a.shape
    buffer = a.space if buffer is None else buffer
    if transpose_axes is not None:
        shape = _grid.tensor_transposed_shape(a, transpose_axes, buffer, location)
    elif a.space != "hbm" and a.pdim:
        shape = a.shape[:a.pdim] + (ParDim(a.shape[a.pdim]),) + a.shape[a.pdim + 1:]
    return shape, (a.dtype if dtype is None else dtype), buffer


def zeros_like(a, dtype=None, buffer=None, name=None, **kwargs):
    """A new tensor of a's shape (and dtype/buffer unless given), zero-filled
    (nki.language.zeros_like); of a grid, a grid as nl.empty_like makes it, its whole
    on-chip allocation zeroed by one memset."""
    location = user_location()
    if isinstance(a, _grid.NkiGrid):
        name = name or _core.assigned_name(location)
        return _grid.zero_fill(_grid.grid_like(a, dtype, buffer, name, None, location), location)
    shape, dtype, buffer = _like(a, dtype, buffer, location)
    return full(shape, 0.0, dtype, buffer, name)


def ones_like(a, dtype=None, buffer=None, name=None, **kwargs):
    shape, dtype, buffer = _like(a, dtype, buffer, user_location())
    return full(shape, 1.0, dtype, buffer, name)


def full_like(a, fill_value, dtype=None, buffer=None, name=None, **kwargs):
    shape, dtype, buffer = _like(a, dtype, buffer, user_location())
    return full(shape, fill_value, dtype, buffer, name)


def empty_like(a, dtype=None, buffer=None, name=None, *, transpose_axes=None, address=None,
               **kwargs):
    """New, uninitialised storage of a's geometry (NKI page nki.language.empty_like): a
    tensor of a's shape, or of a grid (NkiTileGrid / NkiBlockGrid) a grid of the same
    type, navigation shape, tile shape, block grouping and remainder extents, its cells
    packed densely (_grid.grid_like). transpose_axes ((1, 0), (2, 1, 0), (3, 1, 2, 0))
    permutes the (tiled) dimensions of an SBUF destination for a later
    nisa.dma_transpose. `address` is accepted and not honoured (the tracer places tiles)."""
    location = user_location()
    name = name or _core.assigned_name(location)
    if isinstance(a, _grid.NkiGrid):
        return _grid.grid_like(a, dtype, buffer, name, transpose_axes, location)
    shape, dtype, buffer = _like(a, dtype, buffer, location, transpose_axes)
    return ndarray(shape, dtype, buffer, name)


# --- tile grids (NKI pages nki.language.tiles, .blocks, .alloc_tiles, .alloc_blocks) -----
NkiGrid = _grid.NkiGrid
NkiTileGrid = _grid.NkiTileGrid
NkiBlockGrid = _grid.NkiBlockGrid
tiles = _grid.tiles
blocks = _grid.blocks
alloc_tiles = _grid.alloc_tiles
alloc_blocks = _grid.alloc_blocks


def shared_identity_matrix(n, dtype=uint8, **kwargs):
    """An n x n identity matrix in HBM (nki.language.shared_identity_matrix): a
    shared_constant of numpy.eye(n)."""
    return shared_constant(np.eye(int(n)), dtype=dtype)


def shared_constant(constant, dtype=None, **kwargs):
    """An HBM tensor holding `constant` (a numpy array), made once and shared by the
    programs of a launch grid (nki.language.shared_constant): a `constant` tensor of the
    neuronsim kernel, its values in the NEFF."""
    location = user_location()
    arr = np.asarray(constant)
    if dtype is None:
        dtype = arr.dtype if arr.dtype != np.float64 else float32
    dt = to_dtype(dtype, location)
    tr = _core.trace()
    site = tr.shared_site(location)
    h = tr.shared.get(site)
    if h is None:
        h = HbmTensor(tr.unique_name(_core.assigned_name(location) or "const"), arr.shape, dt,
                      "constant")
        if dt.is_float:
            vals = [repr(float(v)) for v in arr.astype(np.float64).ravel()]
        else:
            vals = [str(int(v)) for v in arr.ravel()]
        h.value = vals[0] if len(set(vals)) == 1 else "[" + ", ".join(vals) + "]"
        tr.hbm[h.name] = h
        tr.shared[site] = h
    from ._tensor import _row_major

    return Tensor("hbm", dt, arr.shape, _row_major(arr.shape), 0, hbm=h, name=h.name)


# --- movement -----------------------------------------------------------------------------


def _indirect_skip(kwargs, location):
    """oob_mode= (or mode=, as nki-samples' kernels pass it to nl.load) of an indirect
    nl.load / nl.store: nisa.oob_mode.skip skips the rows whose index is out of range."""
    return _isa._oob_skip(kwargs.get("oob_mode", kwargs.get("mode")), location, "indirect DMA")


def load(src, mask=None, dtype=None, **kwargs):
    """A new SBUF tile holding src (an HBM view), by one DMA."""
    location = user_location()
    check_mask(mask, location)
    if isinstance(src, IndirectRows):  # nl.load(data[idx_tile, i_f]): a gather
        dt = to_dtype(dtype, location) if dtype is not None else src.dtype
        tile = new_tile(src.shape, dt, "sbuf", location, _core.assigned_name(location))
        return _isa.indirect_dma(tile, src, location, skip=_indirect_skip(kwargs, location))
    if not isinstance(src, Tensor) or src.space != "hbm":
        fail("nl.load takes an HBM tensor (a kernel argument or a view of one)"
             + _grid.operand_hint(src), location)
    dt = to_dtype(dtype, location) if dtype is not None else src.dtype
    shape = src.shape if src.ndim >= 2 else (src.shape + (1,) if src.ndim == 1 else (1, 1))
    tile = new_tile(shape, dt, "sbuf", location, _core.assigned_name(location))
    _isa._dma(tile, src, location)
    return tile


def store(dst, value, mask=None, **kwargs):
    """dst (an HBM view) = value, by one DMA; a PSUM value goes through SBUF first."""
    location = user_location()
    check_mask(mask, location)
    if isinstance(dst, IndirectRows):  # nl.store(data[idx_tile, i_f], value): a scatter
        if isinstance(value, Tensor) and value.space == "psum":
            value = _isa.tensor_copy(value)
        _isa.indirect_dma(dst, value, location, skip=_indirect_skip(kwargs, location))
        return
    if not isinstance(dst, Tensor) or dst.space != "hbm":
        fail("nl.store writes an HBM tensor (dst)" + _grid.operand_hint(dst), location)
    if not isinstance(value, Tensor):
        fail("nl.store stores a tile (value)" + _grid.operand_hint(value), location)
    if value.space == "psum":
        value = _isa.tensor_copy(value)
    if dst.partitions() * dst.free_size() != value.partitions() * value.free_size():
        fail(f"nl.store: dst {list(dst.shape)} and value {list(value.shape)} differ in size",
             location)
    _isa._dma(dst, value, location)


def copy(x, dtype=None, mask=None, **kwargs):
    """A copy of the tile x (nki.language.copy): one tensor_copy."""
    location = user_location()
    check_mask(mask, location)
    return _isa.tensor_copy(_tile_of(x, location), dtype=dtype)


def _assign(dst, value, location, temporary=False):
    """dst[...] = value: the instruction that made `value` writes dst instead when it is
    the last one traced (no copy), else a tensor_copy (or a memset for a number). A DMA
    is redirected only when nothing else refers to `value` (t[b] = nl.load(...));
    `t[...] += x` writes t already, so assigning it back does nothing."""
    tr = _core.trace()
    if isinstance(value, Tensor) and _same_view(value, dst):
        return
    if not isinstance(value, Tensor):
        if dst.space == "hbm":
            fail("assigning a number to an HBM tensor is not supported", location)
        _isa.emit("vector", "memset", dst, [], [("value", repr(float(value)))], location)
        return
    if dst.space == "hbm":
        fail("assign to HBM with nl.store(dst, value)", location)
    if dst.partitions() != value.partitions() or dst.free_size() != value.free_size():
        fail(f"cannot assign a {list(value.shape)} tile to a {list(dst.shape)} view", location)
    p = value.producer
    last = tr.instrs[-1] if tr.instrs else None
    forwardable = (p is not None and p is last and
                   (p.opcode != "dma_copy" or (temporary and dst.space == "sbuf"))
                   and p.writes[0].region() == value.operand().region()
                   # the Tensor engine writes PSUM only
                   and (p.engine != "tensor" or dst.space == "psum"))
    if forwardable and p.opcode == "dma_copy" and dst.partitions() != value.partitions():
        forwardable = False  # a DMA's two sides must agree on the partitions
    if forwardable:
        _mask.flush_zeros(tr, [dst.operand()], before_last=True)
        p.operands[0] = dst.operand()
        p.writes[0] = dst.operand()
        dst.producer = p
        return
    if dst.space == "sbuf" and value.space == "hbm":
        fail("assigning an HBM tensor to a tile: nl.load it (t[...] = nl.load(x))", location)
    _isa.emit("vector", "tensor_copy", dst, [value], [], location)


def _same_view(a, b):
    """a and b address the same elements in the same order (t[...] += x assigning t's
    view back to itself)."""
    if a.space != b.space or a.dtype is not b.dtype or a.hbm is not b.hbm:
        return False
    va, vb = a.operand(), b.operand()
    return (va.pstart, va.partitions, va.pstride, va.offset, va.dims) == \
        (vb.pstart, vb.partitions, vb.pstride, vb.offset, vb.dims)


def _inplace(t, opname, value, location):
    """t += value (and -=, *=, /=), in place. On a PSUM tile, `+=` of a fresh matmul
    result is NKI's accumulation idiom (res_psum += nl.matmul(...)): the matmul
    accumulates into t. Otherwise one Vector instruction t = t op value."""
    tr = _core.trace()
    if t.space == "hbm":
        fail(f"{opname} in place on an HBM tensor: compute in SBUF and nl.store the result "
             "(or accumulate with nisa.dma_copy(dst_rmw_op=nl.add))", location)
    if not isinstance(value, Tensor) and not _is_number(value):
        fail(f"cannot {opname} a {type(value).__name__} into a tile", location)
    p = value.producer if isinstance(value, Tensor) else None
    if (opname == "add" and t.space == "psum" and p is not None and tr.instrs and
            p is tr.instrs[-1] and p.opcode == "matmul" and
            p.writes[0].region() == value.operand().region()):
        if t.partitions() != value.partitions() or t.free_size() != value.free_size():
            fail(f"cannot accumulate a {list(value.shape)} matmul result into a "
                 f"{list(t.shape)} PSUM tile", location)
        view = t.operand()
        zeroed = _mask.take_zero(tr, view.region())  # nl.zeros: its fill is not needed
        _mask.flush_zeros(tr, [view], before_last=True)  # a zeroed tile t is part of
        p.operands[0], p.writes[0] = view, t.operand()
        # Zero (nl.zeros) or never written: the first matmul may start the group;
        # holding data: it adds to it.
        p.acc = "auto" if zeroed or _zero_or_unwritten(tr, t, view) else True
        t.producer = None
        return t
    location_value = value
    if isinstance(value, Tensor):
        value = _tile_of(value, location)
        if t.space == "psum" and value.space == "psum":
            # A Vector instruction reads at most one PSUM input: bring value to SBUF.
            value = _isa.tensor_copy(value)
        if value.partitions() == t.partitions() and value.free_size() == 1 and t.free_size() > 1:
            _isa.tensor_scalar(dst=t, data=t, op0=opname, operand0=value)
        else:
            if value.shape != t.shape and value.free_size() != t.free_size():
                value = value.broadcast_to(t.shape)
            _isa.tensor_tensor(dst=t, data1=t, data2=value, op=opname)
    else:
        _isa.tensor_scalar(dst=t, data=t, op0=opname, operand0=float(location_value))
    t.producer = None
    return t


def _zero_or_unwritten(tr, t, view):
    """Whether the last write to t's region (before the matmul just traced) is a memset
    of 0 covering it, or there is none since t was allocated."""
    key = view.region()
    start = getattr(t.alloc, "first_instr", 0)
    for ins in reversed(tr.instrs[start:-1]):
        for w in ins.writes:
            r = w.region()
            if r[0] == key[0] and r[1][0] < key[1][1] and key[1][0] < r[1][1] and \
                    r[2][0] < key[2][1] and key[2][0] < r[2][1]:
                covers = r[1][0] <= key[1][0] and key[1][1] <= r[1][1] and \
                    r[2][0] <= key[2][0] and key[2][1] <= r[2][1]
                return (ins.opcode == "memset" and covers and
                        float(dict(ins.options)["value"]) == 0.0)
    return True


# --- elementwise --------------------------------------------------------------------------


def _tile_of(x, location):
    if not isinstance(x, Tensor):
        fail(f"expected a tile, got {type(x).__name__}{_grid.operand_hint(x)}", location)
    if x.space == "hbm":
        fail("this operand is in HBM; nl.load it into SBUF first", location)
    if any(n != 1 for n in x.shape[:x.pdim]):
        fail(f"{x.name or 'this tile'} {list(x.shape)} has block dimensions "
             f"{list(x.shape[:x.pdim])}: a call takes one block, t[b] (or t[b, i_p, i_f])",
             location)
    return x


def _is_number(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _binary(opname, x, y, dtype=None, mask=None):
    location = user_location()
    check_mask(mask, location)
    op = _isa.alu_op(opname, location)
    if _is_number(x) and _is_number(y):
        return getattr(np, opname)(x, y)
    dt = to_dtype(dtype, location) if dtype is not None else None
    commutative = op in ("add", "multiply", "max", "min", "is_equal", "not_equal")
    if _is_number(y) or (isinstance(y, Tensor) and isinstance(x, Tensor) and _column(y, x)):
        x = _tile_of(x, location)
        return _isa.tensor_scalar(data=x, op0=op, operand0=y if _is_number(y) else _tile_of(y, location),
                                  dtype=dt)
    if _is_number(x) or (isinstance(x, Tensor) and isinstance(y, Tensor) and _column(x, y)):
        y = _tile_of(y, location)
        return _isa.tensor_scalar(data=y, op0=op, operand0=x if _is_number(x) else _tile_of(x, location),
                                  reverse0=not commutative, dtype=dt)
    x, y = _tile_of(x, location), _tile_of(y, location)
    if x.shape != y.shape:
        x, y = _broadcast_pair(x, y, location)
    return _isa.tensor_tensor(data1=x, data2=y, op=op, dtype=dt)


def _column(c, other):
    """c is a [P,1] tile and other a bigger tile of the same partitions: a tensor_scalar."""
    return (c.partitions() == other.partitions() and c.free_size() == 1 and other.free_size() > 1)


def _broadcast_pair(x, y, location):
    if len(x.shape) != len(y.shape):
        fail(f"shapes {list(x.shape)} and {list(y.shape)} do not broadcast", location)
    shape = tuple(builtins.max(a, b) for a, b in zip(x.shape, y.shape))
    return x.broadcast_to(shape), y.broadcast_to(shape)


def add(x, y, dtype=None, mask=None, **kw):
    return _binary("add", x, y, dtype, mask)


def subtract(x, y, dtype=None, mask=None, **kw):
    return _binary("subtract", x, y, dtype, mask)


def multiply(x, y, dtype=None, mask=None, **kw):
    return _binary("multiply", x, y, dtype, mask)


def divide(x, y, dtype=None, mask=None, **kw):
    return _binary("divide", x, y, dtype, mask)


def maximum(x, y, dtype=None, mask=None, **kw):
    return _binary("maximum", x, y, dtype, mask)


def minimum(x, y, dtype=None, mask=None, **kw):
    return _binary("minimum", x, y, dtype, mask)


def power(x, y, dtype=None, mask=None, **kw):
    return _binary("power", x, y, dtype, mask)


def equal(x, y, dtype=None, mask=None, **kw):
    return _binary("equal", x, y, dtype, mask)


def not_equal(x, y, dtype=None, mask=None, **kw):
    return _binary("not_equal", x, y, dtype, mask)


def greater(x, y, dtype=None, mask=None, **kw):
    return _binary("greater", x, y, dtype, mask)


def greater_equal(x, y, dtype=None, mask=None, **kw):
    return _binary("greater_equal", x, y, dtype, mask)


def less(x, y, dtype=None, mask=None, **kw):
    return _binary("less", x, y, dtype, mask)


def less_equal(x, y, dtype=None, mask=None, **kw):
    return _binary("less_equal", x, y, dtype, mask)


def negative(x, dtype=None, mask=None, **kw):
    return _binary("multiply", x, -1.0, dtype, mask)


def _unary(name):
    def fn(x, dtype=None, mask=None, **kw):
        location = user_location()
        x = _tile_of(x, location)
        return _isa.activation(op=name, data=x, dtype=dtype, mask=mask)

    fn.__name__ = name
    fn.__doc__ = f"nl.{name}: one Scalar-engine activation ({name})."
    return fn


exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
square = _unary("square")
relu = _unary("relu")
sigmoid = _unary("sigmoid")
tanh = _unary("tanh")
gelu = _unary("gelu")
gelu_apprx_tanh = _unary("gelu_apprx_tanh")
silu = _unary("silu")
softplus = _unary("softplus")
erf = _unary("erf")
sin = _unary("sin")
sign = _unary("sign")
abs = _unary("abs")  # noqa: A001 - NKI's name
reciprocal = _unary("reciprocal")


def cos(x, dtype=None, mask=None, **kw):
    """cos(x) = sin(x + pi/2) (nki.language.cos): one Scalar activation, sin with a bias
    of pi/2 (neuronsim has sin, not cos)."""
    location = user_location()
    x = _tile_of(x, location)
    return _isa.activation(op="sin", data=x, bias=float(np.pi / 2), dtype=dtype, mask=mask)

identity = _unary("copy")


def where(condition, x, y, dtype=None, mask=None, **kw):
    """x where condition (a tile, nonzero = true) else y: one Vector select (a number
    for x or y becomes a memset tile)."""
    location = user_location()
    check_mask(mask, location)
    return _isa._select({"predicate": condition, "on_true": x, "on_false": y, "dtype": dtype},
                        location)


# --- reductions ---------------------------------------------------------------------------


def _reduce(opname, x, axis, dtype, keepdims, mask):
    """One tensor_reduce. The instruction reduces the innermost free axes, so other
    free axes (nl.sum(t, axis=[2, 4]) of a 5-D pooling view) are moved last first: a
    reordering of the view's dimensions, no data moves."""
    location = user_location()
    x = _tile_of(x, location)
    check_mask(mask, location)
    if axis is None:
        axes = list(range(1, x.ndim))
    else:
        axes = [axis] if isinstance(axis, int) else list(axis)
    axes = sorted(int(a) + x.ndim if int(a) < 0 else int(a) for a in axes)
    inner = list(range(x.ndim - len(axes), x.ndim))
    if x.pdim == 0 and 0 not in axes and axes != inner:
        keep = [d for d in range(x.ndim) if d not in axes]
        order = keep + axes
        moved = x._derive([x.shape[d] for d in order], [x.strides[d] for d in order], x.offset)
        moved.axes = tuple(x.axes[d] for d in order) if x.axes else None
        out = _isa.tensor_reduce(op=opname, data=moved, axis=inner, keepdims=False, dtype=dtype)
        if keepdims:
            out = out.reshape(tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
        return out
    return _isa.tensor_reduce(op=opname, data=x, axis=axis, keepdims=keepdims, dtype=dtype)


def sum(x, axis, dtype=None, keepdims=False, mask=None, **kw):  # noqa: A001
    return _reduce("add", x, axis, dtype, keepdims, mask)


def max(x, axis, dtype=None, keepdims=False, mask=None, **kw):  # noqa: A001
    return _reduce("max", x, axis, dtype, keepdims, mask)


def min(x, axis, dtype=None, keepdims=False, mask=None, **kw):  # noqa: A001
    return _reduce("min", x, axis, dtype, keepdims, mask)


def prod(x, axis, dtype=None, keepdims=False, mask=None, **kw):
    return _reduce("multiply", x, axis, dtype, keepdims, mask)


def mean(x, axis, dtype=None, keepdims=False, mask=None, **kw):
    """Sum on Vector, then a multiply by 1/n (two instructions). A mask may restrict the
    partitions (and kept axes), not the averaged ones: n is the whole count."""
    location = user_location()
    x = _tile_of(x, location)
    if not _mask.mask_true(mask):
        axes = [axis] if isinstance(axis, int) else list(axis)
        axes = [a + x.ndim if a < 0 else a for a in axes]
        used = {a for e in mask.exprs() for a in e.live_terms()}
        if used & set(axes):
            fail("nl.mean with a mask over the averaged axes: the count would be the "
                 "mask's; use nl.sum with the mask and divide by the count", location)
    check_mask(mask, location)
    total = _isa.tensor_reduce(op="add", data=x, axis=axis, keepdims=keepdims,
                               dtype=dtype if dtype is not None else FLOAT32)
    n = x.free_size() // total.free_size()
    _isa.tensor_scalar(dst=total, data=total, op0="multiply", operand0=1.0 / n)
    return total


# --- Tensor engine ------------------------------------------------------------------------


def matmul(x, y, transpose_x=False, mask=None, **kw):
    """x @ y into a new PSUM tile (fp32). transpose_x=True: x is already [K, M] (the
    stationary layout), one nc_matmul. Otherwise x [M, K] is first transposed through the
    Tensor engine (nc_transpose to PSUM, tensor_copy back to SBUF)."""
    location = user_location()
    x, y = _tile_of(x, location), _tile_of(y, location)
    check_mask(mask, location)
    if not transpose_x:
        xt = _isa.nc_transpose(x)
        x = _isa.tensor_copy(xt)
    return _isa.nc_matmul(x, y)


def transpose(x, dtype=None, mask=None, **kw):
    """x.T through the Tensor engine, into a new PSUM tile."""
    location = user_location()
    check_mask(mask, location)
    return _isa.nc_transpose(_tile_of(x, location))


# --- more of nki.language -------------------------------------------------------------------


def broadcast_to(src, shape, **kwargs):
    """src broadcast to `shape` (nki.language.broadcast_to): Tensor.broadcast_to."""
    location = user_location()
    if not isinstance(src, Tensor):
        fail(f"nl.broadcast_to takes a tensor, not {type(src).__name__}", location)
    return src.broadcast_to(shape)


def expand_dims(data, axis, **kwargs):
    """data with a new size-1 dimension at `axis` (nki.language.expand_dims): a view."""
    location = user_location()
    if not isinstance(data, Tensor):
        fail(f"nl.expand_dims takes a tensor, not {type(data).__name__}", location)
    axis = int(axis)
    if axis < 0:
        axis += data.ndim + 1
    if not (1 if data.space != "hbm" else 0) <= axis <= data.ndim:
        fail(f"nl.expand_dims: axis {axis} is not a free dimension of a {data.ndim}-D tensor "
             "(the partition dimension stays first)", location)
    return data.reshape(data.shape[:axis] + (1,) + data.shape[axis:])


def static_cast(data, dtype, mask=None, **kwargs):
    """data converted to dtype (nki.language.static_cast): one tensor_copy, rounding as
    the engines round (docs/numerics.md)."""
    location = user_location()
    check_mask(mask, location)
    return _isa.tensor_copy(_tile_of(data, location), dtype=to_dtype(dtype, location))


class _Info:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return "nl." + self.__class__.__name__ + "(" + ", ".join(
            f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


class finfo(_Info):
    """Machine limits of an nl float dtype, like numpy.finfo (nki.language.finfo): bits,
    eps, max, min, tiny (smallest normal), dtype."""

    # eps = 2^-mantissa bits, tiny = 2^(1 - bias), max from the format (OCP FP8 e4m3:
    # 448, no infinities; e5m2: 57344).
    _TABLE = {"float32": (32, 2.0 ** -23, 3.4028234663852886e38, 2.0 ** -126),
              "tfloat32": (32, 2.0 ** -10, 3.4011621342146535e38, 2.0 ** -126),
              "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e38, 2.0 ** -126),
              "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14),
              "float8_e4m3": (8, 2.0 ** -3, 448.0, 2.0 ** -6),
              "float8_e5m2": (8, 2.0 ** -2, 57344.0, 2.0 ** -14),
              "float8_e4m3fn": (8, 2.0 ** -3, 448.0, 2.0 ** -6)}

    def __init__(self, dtype):
        d = to_dtype(dtype, user_location())
        if d.nki_name not in self._TABLE:
            fail(f"nl.finfo takes a float dtype, not {d!r} (nl.iinfo is for integers)")
        bits, eps, mx, tiny = self._TABLE[d.nki_name]
        super().__init__(bits=bits, eps=eps, max=mx, min=-mx, tiny=tiny, smallest_normal=tiny,
                         resolution=10.0 ** -int(np.floor(-np.log10(eps))), dtype=d)


class iinfo(_Info):
    """Limits of an nl integer dtype, like numpy.iinfo: bits, min, max, dtype."""

    def __init__(self, dtype):
        d = to_dtype(dtype, user_location())
        if d.is_float:
            fail(f"nl.iinfo takes an integer dtype, not {d!r} (nl.finfo is for floats)")
        info = np.iinfo(np.dtype(d.nki_name))
        super().__init__(bits=info.bits, min=int(info.min), max=int(info.max), dtype=d)


def floor(x, dtype=None, mask=None, **kw):
    """The largest integer <= x, elementwise (nki.language.floor). neuronsim has no floor
    function, so it is four Vector instructions: r = round-to-nearest(x) (a copy to
    int32, which rounds half to even), r back to fp32, then r - (r > x). Exact for
    |x| < 2^31."""
    location = user_location()
    check_mask(mask, location)
    x = _tile_of(x, location)
    r = _isa.tensor_copy(x, dtype=int32)
    rf = _isa.tensor_copy(r, dtype=FLOAT32)
    above = _isa.tensor_tensor(data1=rf, data2=x, op="greater", dtype=FLOAT32)
    return _isa.tensor_tensor(data1=rf, data2=above, op="subtract",
                              dtype=to_dtype(dtype, location) if dtype is not None else x.dtype)


def ceil(x, dtype=None, mask=None, **kw):
    """The smallest integer >= x (nki.language.ceil): -floor(-x), six instructions."""
    location = user_location()
    check_mask(mask, location)
    x = _tile_of(x, location)
    neg = _isa.tensor_scalar(data=x, op0="multiply", operand0=-1.0, dtype=FLOAT32)
    f = floor(neg)
    return _isa.tensor_scalar(data=f, op0="multiply", operand0=-1.0,
                              dtype=to_dtype(dtype, location) if dtype is not None else x.dtype)


def mod(x, y, dtype=None, mask=None, **kw):
    """x mod y with the sign of y, like numpy.mod (nki.language.mod): x - y * floor(x / y),
    seven Vector instructions (no modulo ALU op in neuronsim); y a number, a [P,1] tile
    or a tile of x's shape."""
    location = user_location()
    check_mask(mask, location)
    if _is_number(x) and _is_number(y):
        return np.mod(x, y)
    x = _tile_of(x, location)
    q = divide(x, y, dtype=FLOAT32)
    fq = floor(q)
    prod = multiply(fq, y, dtype=FLOAT32)
    return subtract(x, prod, dtype=to_dtype(dtype, location) if dtype is not None else x.dtype)


def _bitwise(name):
    def fn(x, y, dtype=None, mask=None, **kw):
        return _binary(name, x, y, dtype, mask)

    fn.__name__ = name
    fn.__doc__ = (f"nl.{name}, elementwise on integer tiles (nki.language.{name}): one Vector "
                  "ALU op.")
    return fn


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")
left_shift = _bitwise("left_shift")
right_shift = _bitwise("right_shift")


def var(x, axis, dtype=None, mask=None, **kw):
    """Variance along the free axes (nki.language.var): mean(x^2) - mean(x)^2 in fp32,
    by bn_stats + bn_aggr when the reduction is over the whole free size of a 2-D tile
    (two Vector instructions), else by the two means."""
    location = user_location()
    check_mask(mask, location)
    x = _tile_of(x, location)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if x.ndim == 2 and axes in ([1], [-1]) and x.free_size() <= tile_size.bn_stats_fmax:
        stats = _isa.bn_stats(x)
        mv = _isa.bn_aggr(stats)
        out = new_tile((x.partitions(), 1), to_dtype(dtype, location) if dtype else FLOAT32,
                       "sbuf", location, _core.assigned_name(location))
        _isa.tensor_copy(dst=out, src=mv[:, 1:2])
        return out
    m = mean(x, axis=axis, dtype=FLOAT32, keepdims=True)
    m2 = mean(square(x, dtype=FLOAT32), axis=axis, dtype=FLOAT32, keepdims=True)
    return subtract(m2, multiply(m, m), dtype=dtype)


def load_transpose2d(src, dtype=None, mask=None, **kwargs):
    """A new SBUF tile holding src.T for a 2-D HBM src [A, B] (nki.language.
    load_transpose2d): one DMA whose source pattern walks src by columns (element-wise
    descriptors, the slow DMA pattern a transposing load is on hardware)."""
    location = user_location()
    check_mask(mask, location)
    if not isinstance(src, Tensor) or src.space != "hbm" or src.ndim != 2:
        fail("nl.load_transpose2d takes a 2-D HBM tensor (a kernel argument or a view of one)",
             location)
    a, b = src.shape
    if b > _core.PARTITIONS:
        fail(f"nl.load_transpose2d: the transposed tile has {b} partitions (at most "
             f"{_core.PARTITIONS}); load a slice of at most {_core.PARTITIONS} columns", location)
    view = src._derive((b, a), (src.strides[1], src.strides[0]), src.offset)
    dt = to_dtype(dtype, location) if dtype is not None else src.dtype
    tile = new_tile((b, a), dt, "sbuf", location, _core.assigned_name(location))
    _isa._dma(tile, view, location)
    return tile


def atomic_rmw(dst, value, op, mask=None, **kwargs):
    """dst = op(dst, value) on HBM (nki.language.atomic_rmw): one accumulating DMA;
    neuronsim's DMA accumulates by adding, so op must be nl.add."""
    location = user_location()
    check_mask(mask, location)
    if not isinstance(dst, Tensor) or dst.space != "hbm":
        fail("nl.atomic_rmw writes an HBM tensor (dst)", location)
    value = _tile_of(value, location)
    if value.space == "psum":
        value = _isa.tensor_copy(value)
    _isa._dma(dst, value, location, op)


def _user_variable(name):
    """The value of variable `name` in the kernel's frame (the innermost one outside
    neuronsim.nki), or None."""
    import os
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_core._PACKAGE_DIR + os.sep):
            return frame.f_locals.get(name)
        frame = frame.f_back
    return None


def loop_reduce(x, op, loop_indices, dtype=None, mask=None, **kwargs):
    """Reduces x over the iterations of a loop (nki.language.loop_reduce). The NKI page
    defines `b = nl.loop_reduce(a, op, ...)` as `b = op(b, a)`: the tile assigned to is
    also op's other input. So the variable the result is assigned to is read from the
    kernel (a tile of x's shape, e.g. made by nl.zeros before the loop) and updated in
    place by one Vector instruction; without such a tile the result is a copy of x (the
    first iteration)."""
    location = user_location()
    check_mask(mask, location)
    x = _tile_of(x, location)
    opname = _isa.alu_op(op, location)
    name = _core.assigned_name(location)
    b = _user_variable(name) if name else None
    if isinstance(b, Tensor) and b.space != "hbm" and b.partitions() == x.partitions() and \
            b.free_size() == x.free_size():
        _isa.tensor_tensor(dst=b, data1=b, data2=x, op=opname)
        return b
    dt = to_dtype(dtype, location) if dtype is not None else x.dtype
    return _isa.tensor_copy(x, dtype=dt)


def softmax(x, axis, dtype=None, compute_dtype=None, mask=None, **kwargs):
    """softmax along the last free axis of a 2-D tile (nki.language.softmax): max (Vector,
    negated), exp(x - max) with its row sum (one Scalar activation), 1/sum and the
    scale (Vector): four instructions."""
    location = user_location()
    check_mask(mask, location)
    x = _tile_of(x, location)
    if x.ndim != 2 or axis not in (1, -1, [1], (1,), [-1], (-1,)):
        fail("nl.softmax: neuronsim.nki supports the last free axis of a 2-D tile (axis=1)",
             location)
    neg_max = _isa.tensor_reduce(op="max", data=x, axis=[1], keepdims=True, negate=True,
                                 dtype=FLOAT32)
    total = new_tile((x.partitions(), 1), FLOAT32, "sbuf", location, "softmax_sum")
    e = _isa.activation(op="exp", data=x, bias=neg_max, reduce_op="add", reduce_res=total,
                        dtype=FLOAT32)
    inv = _isa.activation(op="reciprocal", data=total, dtype=FLOAT32)
    return _isa.tensor_scalar(data=e, op0="multiply", operand0=inv,
                              dtype=to_dtype(dtype, location) if dtype is not None else x.dtype)


def logical_not(x, dtype=None, mask=None, **kw):
    """1 where x == 0, else 0 (nki.language.logical_not): one tensor_scalar."""
    return _binary("equal", x, 0.0, dtype, mask)


def _logical(name, combine):
    def fn(x, y, dtype=None, mask=None, **kw):
        location = user_location()
        check_mask(mask, location)
        a = _binary("not_equal", x, 0.0, FLOAT32)
        b = _binary("not_equal", y, 0.0, FLOAT32)
        return _binary(combine, a, b, dtype)

    fn.__name__ = name
    fn.__doc__ = (f"nl.{name} (nki.language.{name}): x != 0 and y != 0 (two tensor_scalar), "
                  f"then {combine} of the two 0/1 tiles: three Vector instructions.")
    return fn


logical_and = _logical("logical_and", "multiply")
logical_or = _logical("logical_or", "maximum")
logical_xor = _logical("logical_xor", "not_equal")


def invert(x, dtype=None, mask=None, **kw):
    """Bitwise NOT of an integer tile (nki.language.invert): xor with all ones, one
    Vector instruction."""
    location = user_location()
    t = _tile_of(x, location)
    if t.dtype.is_float:
        fail("nl.invert takes an integer tile (it flips bits)", location)
    ones = -1 if t.dtype.nki_name.startswith("int") else (1 << (8 * t.dtype.size)) - 1
    return _binary("bitwise_xor", t, ones, dtype, mask)


def trunc(x, dtype=None, mask=None, **kw):
    """x rounded toward zero (nki.language.trunc): sign(x) * floor(|x|), seven
    instructions (abs and sign on Scalar, floor's four and the product on Vector)."""
    location = user_location()
    check_mask(mask, location)
    t = _tile_of(x, location)
    mag = floor(_isa.activation(op="abs", data=t, dtype=FLOAT32))
    sgn = _isa.activation(op="sign", data=t, dtype=FLOAT32)
    return multiply(mag, sgn, dtype=dtype if dtype is not None else t.dtype)


def tan(x, dtype=None, mask=None, **kw):
    """tan(x) = sin(x) / cos(x) (nki.language.tan): two Scalar activations and a divide."""
    location = user_location()
    check_mask(mask, location)
    t = _tile_of(x, location)
    return divide(sin(t, dtype=FLOAT32), cos(t, dtype=FLOAT32),
                  dtype=dtype if dtype is not None else t.dtype)


def dropout(x, rate, dtype=None, mask=None, **kw):
    """Zeroes elements of x with probability `rate` (nki.language.dropout): nki.isa's
    dropout instruction where neuronsim.nki.isa provides one."""
    location = user_location()
    check_mask(mask, location)
    return _isa.dropout(data=_tile_of(x, location), prob=rate, dtype=dtype)


def random_seed(seed, mask=None, **kw):
    """Seeds the random numbers of the dropouts that follow (nki.language.random_seed):
    the same seed gives the same masks (docs/numerics.md "dropout"). The seed is an int
    known when the kernel is traced."""
    location = user_location()
    check_mask(mask, location)
    if kw:
        fail(f"nl.random_seed: unexpected keyword(s) {', '.join(sorted(kw))}", location)
    _isa.set_random_seed(seed, location)
