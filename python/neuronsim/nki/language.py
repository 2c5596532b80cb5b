"""neuronsim.nki.language: NKI's nki.language names for a traced kernel.

Tensor creation (ndarray, zeros, full), HBM <-> SBUF movement (load, store), index
grids (arange, mgrid), loops (affine_range, sequential_range, static_range: all plain
Python ranges, so tracing unrolls them), dtypes, buffers, tile_size, and the
elementwise / reduction / matmul conveniences, each lowered to the one or two
neuronsim instructions that compute it (docs/python.md ("neuronsim.nki") lists which).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _core
from . import isa as _isa
from ._core import BY_NKI, FLOAT32, fail, to_dtype, user_location
from ._tensor import HBM_BUFFERS, HbmTensor, Tensor, check_mask, new_tile
from . import _tensor

arange = _tensor.arange  # nl.arange(n)[:, None]: an index expression
mgrid = _tensor.mgrid  # nl.mgrid[0:128, 0:D]: index expressions

# --- dtypes and buffers -------------------------------------------------------------------
float32 = BY_NKI["float32"]
tfloat32 = BY_NKI["tfloat32"]
bfloat16 = BY_NKI["bfloat16"]
float16 = BY_NKI["float16"]
float8_e4m3 = BY_NKI["float8_e4m3"]
float8_e5m2 = BY_NKI["float8_e5m2"]
int8, int16, int32 = BY_NKI["int8"], BY_NKI["int16"], BY_NKI["int32"]
uint8, uint16, uint32 = BY_NKI["uint8"], BY_NKI["uint16"], BY_NKI["uint32"]

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
    """NKI's partition-dimension marker: neuronsim.nki takes the first dimension as the
    partition dimension, so this is n itself."""
    return int(n)


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
    _isa.emit("vector", "memset", t, [], [("value", repr(float(fill_value)))], location)
    return t


def ones(shape, dtype=float32, buffer=sbuf, name=None, **kwargs):
    return full(shape, 1.0, dtype, buffer, name)


# --- movement -----------------------------------------------------------------------------


def load(src, mask=None, dtype=None, **kwargs):
    """A new SBUF tile holding src (an HBM view), by one DMA."""
    location = user_location()
    check_mask(mask, location)
    if not isinstance(src, Tensor) or src.space != "hbm":
        fail("nl.load takes an HBM tensor (a kernel argument or a view of one)", location)
    dt = to_dtype(dtype, location) if dtype is not None else src.dtype
    shape = src.shape if src.ndim >= 2 else (src.shape + (1,) if src.ndim == 1 else (1, 1))
    tile = new_tile(shape, dt, "sbuf", location, _core.assigned_name(location))
    _isa._dma(tile, src, location)
    return tile


def store(dst, value, mask=None, **kwargs):
    """dst (an HBM view) = value, by one DMA; a PSUM value goes through SBUF first."""
    location = user_location()
    check_mask(mask, location)
    if not isinstance(dst, Tensor) or dst.space != "hbm":
        fail("nl.store writes an HBM tensor (dst)", location)
    if not isinstance(value, Tensor):
        fail("nl.store stores a tile (value)", location)
    if value.space == "psum":
        value = _isa.tensor_copy(value)
    if dst.partitions() * dst.free_size() != value.partitions() * value.free_size():
        fail(f"nl.store: dst {list(dst.shape)} and value {list(value.shape)} differ in size",
             location)
    _isa._dma(dst, value, location)


def copy(x, dtype=None, **kwargs):
    location = user_location()
    return _isa.tensor_copy(_tile_of(x, location), dtype=dtype)


def _assign(dst, value, location):
    """dst[...] = value: the instruction that made `value` writes dst instead when it is
    the last one traced (no copy), else a tensor_copy (or a memset for a number)."""
    tr = _core.trace()
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
    forwardable = (p is not None and p is last and p.opcode != "dma_copy"
                   and p.writes[0].region() == value.view().region()
                   # the Tensor engine writes PSUM only
                   and (p.engine != "tensor" or dst.space == "psum"))
    if forwardable:
        p.operands[0] = dst.view()
        p.writes[0] = dst.view()
        dst.producer = p
        return
    _isa.emit("vector", "tensor_copy", dst, [value], [], location)


# --- elementwise --------------------------------------------------------------------------


def _tile_of(x, location):
    if not isinstance(x, Tensor):
        fail(f"expected a tile, got {type(x).__name__}", location)
    if x.space == "hbm":
        fail("this operand is in HBM; nl.load it into SBUF first", location)
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
    location = user_location()
    x = _tile_of(x, location)
    check_mask(mask, location)
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
    """Sum on Vector, then a multiply by 1/n (two instructions)."""
    location = user_location()
    x = _tile_of(x, location)
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
    return _isa.nc_transpose(_tile_of(x, location))
