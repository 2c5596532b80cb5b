"""The tracer's core: dtypes, errors naming the Python line, access views, tensors,
on-chip allocation and the traced instruction list.

A kernel function runs once, in plain Python, with tensors that record instead of
compute: every nki.isa / nki.language call appends one `Instr` (engine, opcode, operand
views, options, the Python file:line that made it) to the active `Trace`. Loops are
ordinary Python loops (affine_range and sequential_range are range()), so tracing
unrolls them. Lowering (_lower.py) turns the list into neuronsim assembly.
"""
from __future__ import annotations

import gc
import linecache
import os
import re
import sys

try:  # every neuronsim error is a neuronsim.Error (docs/python.md)
    from neuronsim import Error as _BaseError
except ImportError:  # pragma: no cover - the package always provides it
    _BaseError = Exception

from .. import _core as _cxx  # noqa: E402 - after neuronsim.Error

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class NkiError(_BaseError):
    """A tracing, lowering or validation error; the message starts with the Python
    file:line of the kernel code that caused it."""


_INTERNAL = {}  # code file name -> whether it lies inside neuronsim.nki


def _internal(filename):
    inside = _INTERNAL.get(filename)
    if inside is None:
        inside = _INTERNAL[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)
    return inside


def user_location():
    """(file, line) of the innermost stack frame outside neuronsim.nki: the kernel's call.
    Called for every traced instruction, so each file's verdict is computed once."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        inside = _INTERNAL.get(filename)
        if inside is None:
            inside = _internal(filename)
        if not inside:
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def fail(message, location=None):
    file, line = location or user_location()
    raise NkiError(f"{file}:{line}: {message}")


_ASSIGNED = {}  # (file, line) -> the name assigned there, or None


def assigned_name(location):
    """The variable a call's result is assigned to, read from the source line
    (`x_tile = nl.load(...)` -> 'x_tile'), or None. A loop body reaches the same line
    again and again, so each line is read once."""
    if location in _ASSIGNED:
        return _ASSIGNED[location]
    text = linecache.getline(location[0], location[1])
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=[^=]", text)
    name = _ASSIGNED[location] = m.group(1) if m else None
    return name


# --- dtypes -----------------------------------------------------------------------------


class DType:
    """A neuronsim dtype (docs/dtypes.md) under its NKI name. A packed one (the MX x4
    types) holds four fp8 values in each 32-bit element: numpy sees it as uint32."""

    __slots__ = ("nki_name", "asm", "size", "is_float", "packed")  # read per view by lowering

    def __init__(self, nki_name, asm, size, is_float, packed=False):
        self.nki_name, self.asm, self.size, self.is_float = nki_name, asm, size, is_float
        self.packed = packed

    def __repr__(self):
        return f"nl.{self.nki_name}"


DTYPES = [
    DType("float32", "fp32", 4, True),
    DType("tfloat32", "tf32", 4, True),
    DType("bfloat16", "bf16", 2, True),
    DType("float16", "fp16", 2, True),
    DType("float8_e4m3", "fp8_e4m3", 1, True),
    DType("float8_e5m2", "fp8_e5m2", 1, True),
    DType("int8", "int8", 1, False),
    DType("int16", "int16", 2, False),
    DType("int32", "int32", 4, False),
    DType("uint8", "uint8", 1, False),
    DType("uint16", "uint16", 2, False),
    DType("uint32", "uint32", 4, False),
    # NeuronCore-v4's MX types (nki.isa.quantize_mx / nc_matmul_mx; docs/dtypes.md).
    DType("float8_e4m3fn", "fp8_e4m3fn", 1, True),
    DType("float8_e8m0fnu", "fp8_e8m0", 1, True),
    DType("float8_e5m2_x4", "fp8_e5m2_x4", 4, False, packed=True),
    DType("float8_e4m3fn_x4", "fp8_e4m3fn_x4", 4, False, packed=True),
    # Four OCP fp4 E2M1 lanes in 16 bits (MXFP4; nl.float4_e2m1fn_x4): numpy sees uint16.
    DType("float4_e2m1fn_x4", "fp4_e2m1fn_x4", 2, False, packed=True),
]
BY_NKI = {d.nki_name: d for d in DTYPES}
BY_ASM = {d.asm: d for d in DTYPES}
FLOAT32 = BY_NKI["float32"]


def to_dtype(x, location=None):
    """An nl dtype, a numpy dtype (or type) or a neuronsim/NKI dtype name."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str):
        d = BY_NKI.get(x) or BY_ASM.get(x)
        if d:
            return d
    else:
        try:
            import numpy as np

            name = np.dtype(x).name
            d = BY_NKI.get(name)
            if d:
                return d
        except TypeError:
            pass
    fail(f"unsupported dtype {x!r} (supported: {', '.join(BY_NKI)})", location)


# --- target limits ------------------------------------------------------------------------

# Bytes per partition of SBUF and PSUM, and PSUM's bank size: reference section 1
# (../shared/reference/neuroncore.md), the same numbers as config/targets/*.json
# (sbuf.partition_bytes, psum.*). Validation checks the kernel again against the real
# target config; these let the tracer name the Python line that overflowed.
# dma_transpose: whether the DMA engines transpose 2-byte data (dma.transpose; NKI's
# dma_transpose page: NeuronCore-v3 or newer).
TARGETS = {
    "trn1": {"sbuf": 192 * 1024, "psum": 16 * 1024, "dma_transpose": False},
    "trn2": {"sbuf": 224 * 1024, "psum": 16 * 1024, "dma_transpose": True},
    "trn3": {"sbuf": 256 * 1024, "psum": 16 * 1024, "dma_transpose": True},
}
PSUM_BANK = 2048
PARTITIONS = 128
ALIGN = 64  # the assembler's automatic placement alignment (docs/assembly.md), kept here


# --- access views -------------------------------------------------------------------------


class View:
    """One operand's access pattern, frozen: memory space, buffer name, dtype, partition
    start/count (+ stride for HBM), byte offset, free dims [(stride, size)] in elements."""

    __slots__ = ("space", "buffer", "dtype", "pstart", "partitions", "pstride", "offset", "dims",
                 "row", "exact", "_region", "placed")

    def __init__(self, space, buffer, dtype, pstart, partitions, pstride, offset, dims, row=1):
        self.space, self.buffer, self.dtype, self.row = space, buffer, dtype, row
        self.pstart, self.partitions, self.pstride = pstart, partitions, pstride
        self.offset, self.dims = offset, dims if type(dims) is list else list(dims)  # frozen
        # Keep every dimension of size > 1 apart (no merging of contiguous neighbours):
        # for instructions whose meaning follows the dims (iota, affine_select steps,
        # tensor_reduce axes).
        self.exact = False
        self._region = None
        self.placed = None  # on-chip: the physical offset of its tile once placed

    def place(self, tile_offset, phys):
        """Moves an on-chip view from its tile's virtual offset to the tile's physical one
        (in place, for every instruction sharing the view), or returns a moved copy when
        it was already placed elsewhere (a tile reloaded after a spill)."""
        if self.placed is None:
            v, delta = self, phys - tile_offset
        else:
            if self.placed == phys:
                return self
            v, delta = View.__new__(View), phys - self.placed
            v.space, v.buffer, v.dtype, v.row = self.space, self.buffer, self.dtype, self.row
            v.pstart, v.partitions, v.pstride = self.pstart, self.partitions, self.pstride
            v.dims, v.exact, v._region, v.offset = self.dims, self.exact, self._region, self.offset
        v.offset += delta
        r = v._region
        if r is not None:  # on-chip: the bytes shift with the offset
            v._region = (r[0], r[1], (r[2][0] + delta, r[2][1] + delta))
        v.placed = phys
        return v

    def free_elems(self):
        n = 1
        for _, s in self.dims:
            n *= s
        return n

    def asm(self):
        """The operand's assembly text (defined in python/core/nki_text.cpp)."""
        return _cxx.nki_view_text(self)

    def region(self):
        """(memory key, row range, byte or column range): a bounding box of what it
        touches (python/core/nki_region.hpp). A view is frozen once made, so its region is
        computed once; placement, which moves it, drops the cached one."""
        if self._region is None:
            self._region = self._bounding_box()
        return self._region

    def _bounding_box(self):
        # Defined once, in C++ (python/core/nki_region.cpp), for the lowering passes and here.
        hbm, key, r0, r1, step, b0, b1 = _cxx.nki_view_box(self)
        rows = SteppedRows(r0, r1, step) if step > 1 else (r0, r1)
        return (("hbm", key) if hbm else (key,)), rows, (b0, b1)


class SteppedRows(tuple):
    """An HBM region's rows (lo, hi) of which only lo, lo + step, ... are touched: a view
    whose partitions are rows of the tensor `step` rows apart (one sequence position of
    every batch, `t[i_b, s, i_c]`). Without it the box would span every row between, and
    tiles of different positions would look like they overlap."""

    def __new__(cls, lo, hi, step):
        t = tuple.__new__(cls, (lo, hi))
        t.step = step
        return t

    def __eq__(self, o):
        return tuple.__eq__(self, o) and getattr(o, "step", 1) == self.step

    def __ne__(self, o):
        return not self.__eq__(o)

    __hash__ = tuple.__hash__


# Whether rows a0, a0 + sa, ... below a1 and b0, b0 + sb, ... below b1 share one:
# rows_meet(a0, a1, sa, b0, b1, sb), defined once in C++ (python/core/nki_lowering.cpp)
# for the dependency pass there and the mask checks here.
rows_meet = _cxx.nki_rows_meet


def regions_overlap(a, b):
    """Whether two regions (View.region) may share a byte."""
    if a[0] != b[0] or not (a[2][0] < b[2][1] and b[2][0] < a[2][1]):
        return False
    ra, rb = a[1], b[1]
    return rows_meet(ra[0], ra[1], getattr(ra, "step", 1), rb[0], rb[1], getattr(rb, "step", 1))


# --- on-chip allocation -------------------------------------------------------------------


class Allocation:
    """One tile's block of bytes on every partition of SBUF or PSUM. While tracing,
    `offset` is virtual: each tile has a range of its own, so every access names its tile.
    Lowering places the tile by its live range (_alloc.place_tiles)."""

    # Slots: a loop makes a tile per iteration. row_elems (elements per partition) and
    # first_instr (the trace's length when it was made) are set by _tensor.new_tile.
    __slots__ = ("space", "offset", "size", "_what", "location", "name", "row_elems",
                 "first_instr")

    def __init__(self, space, offset, size, what, location, name=None):
        self.space, self.offset, self.size = space, offset, size
        self._what, self.location, self.name = what, location, name
        self.row_elems, self.first_instr = None, 0

    @property
    def what(self):
        """What the tile is, for messages: the text given, or for (shape, dtype) given by a
        tile (_tensor.new_tile) `tile NAME[shape] dtype`, made only when a message needs it
        (a loop makes a tile per iteration)."""
        w = self._what
        if isinstance(w, str):
            return w
        shape, dtype = w
        return f"tile {self.name or ''}{list(shape)} {dtype.nki_name}"


class Allocator:
    """The tiles made in one memory of `capacity` bytes per partition, in the order they
    were made. A tile larger than the whole memory fails at once, at its Python line;
    everything else is placed after tracing (_alloc.py), with `cooldown` placements
    before a freed block is reused when other room exists (multi-buffering)."""

    def __init__(self, space, capacity, cooldown):
        self.space, self.capacity, self.cooldown = space, capacity, cooldown
        self.blocks = []  # Allocation, by increasing virtual offset
        self.high_water = 0  # bytes per partition the placed tiles reach (set by lowering)
        self._next = 0

    def allocate(self, size, what, location, name=None):
        alloc = Allocation(self.space, self._next, size, what, location, name)
        if size > self.capacity:
            fail(f"{alloc.what} needs {size} bytes per partition of {self.space.upper()}, "
                 f"more than the {self.capacity} it has; use smaller tiles", location)
        self._next += (size + ALIGN - 1) // ALIGN * ALIGN
        self.blocks.append(alloc)
        return alloc


# --- traced instructions ------------------------------------------------------------------


class Instr:
    """One instruction of the trace: engine, opcode, operand views (dst first when it has
    one), options as (key, text or View) and where in Python it came from."""

    __slots__ = ("engine", "opcode", "operands", "options", "location", "writes", "reads",
                 "queue", "index", "waits", "signals", "acc", "acc_flag")

    def __init__(self, engine, opcode, operands, options, location, writes, reads, queue=None):
        self.engine, self.opcode = engine, opcode
        self.operands = operands  # list of View
        self.options = options  # list of (key, text) ; text may be a View
        self.location = location
        self.writes, self.reads = writes, reads  # lists of View
        self.queue = queue
        self.index = -1
        # Lowering sets these (the empty tuple until then: one object for every instruction).
        self.waits = self.signals = ()
        self.acc = None  # matmul: accumulate= (None -> "auto", True, False)
        self.acc_flag = None  # matmul: single/first/middle/last, set by lowering

    def asm(self):
        """The instruction's assembly text: opcode, operands, key=value options, waits and
        signals (defined in python/core/nki_text.cpp)."""
        return _cxx.nki_instr_text(self, View)


class _ActiveTrace(type):
    """`Trace.active`, the trace being recorded. Python's cyclic garbage collector is
    paused from when a trace becomes active until it is cleared (the tracer does that in
    a `finally`): tracing makes objects by the million and no cycles, and each collection
    would walk everything made so far (a quarter to a third of tracing time)."""

    _active = None
    _collecting = False

    @property
    def active(cls):
        return cls._active

    @active.setter
    def active(cls, trace):
        if trace is not None and cls._active is None:
            _ActiveTrace._collecting = gc.isenabled()
            gc.disable()
            _ActiveTrace._active = trace
        elif trace is None and cls._active is not None:
            # Dropped first: a trace nothing else holds is freed while the collector is
            # still paused (its objects hold no cycles), not walked by its next collection.
            _ActiveTrace._active = None
            if _ActiveTrace._collecting:
                gc.enable()
        else:
            _ActiveTrace._active = trace


class Trace(metaclass=_ActiveTrace):
    """What one tracing of a kernel collects."""

    def __init__(self, target, reuse_delay=8):
        if target not in TARGETS:
            fail(f"unknown target '{target}' (expected one of {', '.join(TARGETS)})")
        self.target = target
        self.instrs = []
        self.hbm = {}  # name -> HbmTensor, in declaration order
        self.sbuf = Allocator("sbuf", TARGETS[target]["sbuf"], cooldown=reuse_delay)
        self.psum = Allocator("psum", TARGETS[target]["psum"], cooldown=min(reuse_delay, 4))
        self.constants = {}  # (value, partitions) -> Tensor kept for the kernel's lifetime
        self.names = set()
        self.program, self.grid = (), ()
        self.shared = {}  # (call site, occurrence) -> HbmTensor shared by SPMD programs
        self.occurrences = {}

    def start_program(self, program, grid):
        self.program, self.grid = tuple(program), tuple(grid)
        self.occurrences = {}

    def shared_site(self, location):
        """The key of an nl.shared_hbm allocation: its call site and how many times this
        program has reached it, the same in every program."""
        n = self.occurrences.get(location, 0)
        self.occurrences[location] = n + 1
        return (location, n)

    def emit(self, instr):
        instr.index = len(self.instrs)
        self.instrs.append(instr)
        return instr

    def unique_name(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base or "t")
        if not re.match(r"[A-Za-z]", base):
            base = "t" + base
        if base in ("inf", "nan", "true", "false"):
            base += "_"
        name, k = base, 1
        while name in self.names:
            name, k = f"{base}_{k}", k + 1
        self.names.add(name)
        return name


def trace():
    t = Trace.active
    if t is None:
        fail("nki calls only work inside a kernel being traced (decorate it with @nki.jit and "
             "call it through nki.simulate / nki.benchmark)")
    return t
