"""Tensors of a traced kernel (HBM tensors, SBUF/PSUM tiles), NKI-style indexing and the
nl.arange / nl.mgrid index expressions."""
from __future__ import annotations

import sys

from .. import _shapes
from . import _core
from ._core import View, fail, user_location

_row_major = _shapes.row_major_strides  # the name the front end's modules import

HBM_BUFFERS = ("hbm", "private_hbm", "shared_hbm")


class HbmTensor:
    """A tensor in HBM: a kernel argument (input), a returned nl.ndarray(buffer=
    nl.shared_hbm) (output) or any other HBM nl.ndarray (scratch)."""

    def __init__(self, name, shape, dtype, role):
        self.name, self.shape, self.dtype, self.role = name, tuple(shape), dtype, role


class ParDim(int):
    """nl.par_dim(n) in a shape: this dimension is the partition dimension; the ones before
    it are block dimensions (NKI page nki.language.par_dim; programming guide, "Block
    dimension": a (B, par_dim(P), F) tensor is B tiles of P partitions and F elements)."""

    def __repr__(self):
        return f"par_dim({int(self)})"

    __str__ = int.__repr__  # shapes print as numbers


def partition_dim(shape, location):
    """The index of the partition dimension of an on-chip shape: the one marked par_dim,
    else the first (NKI's default)."""
    for s in shape:
        if type(s) is ParDim:
            break
    else:
        return 0
    marked = [i for i, s in enumerate(shape) if isinstance(s, ParDim)]
    if len(marked) > 1:
        fail(f"shape {list(shape)} marks {len(marked)} dimensions with nl.par_dim; mark one",
             location)
    return marked[0] if marked else 0


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


class Tensor:
    """A view of an HBM tensor or of an on-chip tile. An on-chip tensor's dimension `pdim`
    is its partition dimension (lanes), the ones before it block dimensions (B tiles side
    by side in every partition) and the ones after it free dimensions."""

    # Slots: a traced kernel makes several views per instruction (tens of thousands per
    # kernel), and slot attributes are faster to make and read than a dict's.
    __slots__ = ("space", "dtype", "shape", "strides", "offset", "hbm", "alloc", "pstart",
                 "name", "pdim", "limits", "axes", "producer", "_view",
                 "returned", "sbuf_copy")  # set by nki.isa (_out, _matmul_operand) when needed

    def __init__(self, space, dtype, shape, strides, offset, hbm=None, alloc=None, pstart=0,
                 name=None, pdim=0, limits=None):
        self.space = space  # "hbm", "sbuf", "psum"
        self.dtype = dtype
        self.shape = tuple(map(int, shape))
        self.strides = tuple(strides)  # elements; on-chip: strides[pdim] unused (lanes)
        self.offset = offset  # HBM: elements from the tensor's start; on-chip: bytes in the pool
        self.hbm, self.alloc, self.pstart = hbm, alloc, pstart
        self.name = name
        self.pdim = pdim
        self.limits = limits  # out-of-range indices a mask must exclude (_mask.BoundedView)
        self.axes = None  # indexed by index expressions: the grid axis of each dimension
        self.producer = None  # the Instr that wrote this whole, fresh tensor
        self._view = None  # its operand View, made at its first use (operand)

    # --- NKI attributes ---
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def buffer(self):
        return self.space

    @property
    def data(self):
        """The tensor itself: current NKI writes `t.data` for an operand whether t is a
        grid or a tensor (page nki.language.NkiTileGrid's example: dst=tile.data)."""
        return self

    def __repr__(self):
        return f"<nki tensor {self.name or ''} {self.space} {self.dtype.nki_name}{list(self.shape)}>"

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        fail("a tensor is not iterable in a traced kernel; index it with slices")

    def __bool__(self):
        fail("a traced tensor has no truth value (its data exists only in the simulation)")

    # --- operands ---
    def operand(self):
        """This view as an instruction operand (a frozen access pattern). A tensor is frozen
        too, so every use of it shares one View (a tile is written by one instruction and
        read by the next: a loop's tiles are each used two or three times); placement
        moves a shared view once (_alloc.py). A view indexed by index expressions is made
        per use (the masks restrict it per call)."""
        v = self._view
        if v is None:
            v = self.new_operand()
            if type(v) is View:
                self._view = v
        return v

    def new_operand(self):
        """A View of its own, for an instruction that changes it (emit's exact dims)."""
        cls = _mask.BoundedView if self.limits or self.axes else View
        if self.space == "hbm":
            if not self.shape:
                v = cls("hbm", self.hbm.name, self.dtype, 0, 1, 0, self.offset * self.dtype.size, [(1, 1)])
            else:
                dims = list(zip(self.strides[1:], self.shape[1:]))
                v = cls("hbm", self.hbm.name, self.dtype, 0, self.shape[0], self.strides[0],
                        self.offset * self.dtype.size, dims, self.hbm.shape[-1] if self.hbm.shape else 1)
        else:
            if self.pdim and any(n != 1 for n in self.shape[:self.pdim]):
                fail(f"{self.name or 'this tensor'} {list(self.shape)} has block dimensions "
                     f"{list(self.shape[:self.pdim])}: an instruction takes one block, "
                     f"t[b] (or t[b, i_p, i_f])")
            pool = "_sbuf" if self.space == "sbuf" else "_psum"
            p = self.pdim
            dims = list(zip(self.strides[p + 1:], self.shape[p + 1:]))
            v = cls(self.space, pool, self.dtype, self.pstart, self.shape[p], 0, self.offset, dims)
        if cls is not View:
            v.limits, v.axes = self.limits or [], self._view_axes()
        return v

    def _view_axes(self):
        """The grid axis of each view axis (partition first), or None."""
        if not self.axes:
            return None
        if self.space == "hbm":
            return tuple(self.axes) if self.shape else None
        return tuple(self.axes[self.pdim:])

    def partitions(self):
        return self.shape[self.pdim] if self.shape else 1

    def free_size(self):
        return _prod(self.shape[self.pdim + 1:])

    def _derive(self, shape, strides, offset, pstart=None, pdim=None, limits=None):
        if self.limits:
            fail("this view indexes outside its tensor (only legal under a mask); index the "
                 "tensor once, with the whole index")
        return Tensor(self.space, self.dtype, shape, strides, offset, self.hbm, self.alloc,
                      self.pstart if pstart is None else pstart, self.name,
                      self.pdim if pdim is None else pdim, limits)

    # --- indexing ---
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        plain = True  # only slices and ints (the common case: no Ellipsis, no expressions)
        for k in key:
            if type(k) is not slice and type(k) is not int:
                plain = False
                break
        # The kernel's line, for errors: found by fail() itself when a plain key fails (the
        # same frame walk, done only then: a loop indexes a tensor per instruction).
        location = None if plain else user_location()
        if not plain and self.space == "hbm" and any(isinstance(k, Tensor) for k in key):
            return IndirectRows.from_key(self, key, location)
        if not plain and any(k is Ellipsis for k in key):
            i = [k is Ellipsis for k in key].index(True)
            fill = len(self.shape) - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        if len(key) > len(self.shape):
            fail(f"too many indices ({len(key)}) for a tensor of shape {list(self.shape)}", location)
        if len(key) < len(self.shape):
            key = key + (slice(None),) * (len(self.shape) - len(key))
        exprs = False
        if not plain:
            for k in key:
                if type(k) is not slice and type(k) is not int:
                    key = tuple(_plain(k, location) for k in key)
                    exprs = any(isinstance(k, IndexExpr) for k in key)
                    break
        if exprs and not _simple(key):
            return self._grid_index(key, location)
        shape, strides, axes, limits = [], [], [], []
        offset = self.offset
        pstart = self.pstart
        pdim = 0
        onchip = self.space != "hbm"
        scale = self.dtype.size if onchip else 1
        for dim, (k, n) in enumerate(zip(key, self.shape)):
            stride = self.strides[dim]
            is_p = onchip and dim == self.pdim
            if is_p:
                pdim = len(shape)
            if isinstance(k, IndexExpr):
                # One grid axis, increasing: this dimension of the view is that axis. Out
                # of range is legal where the call's mask is false (a partial tile).
                (axis, coef), = k.live_terms().items()
                size = k.sizes[axis]
                if onchip and dim < self.pdim:
                    fail(f"block dimension {dim} takes an int (t[b, i_p, i_f])", location)
                if is_p and coef != 1:
                    fail("the partition dimension cannot be indexed with a step", location)
                lo, hi = k.range()
                if lo < 0 or hi >= n:
                    limits.append((k.const, {len(shape): coef}, n, f"dimension {dim}"))
                if is_p:
                    pstart += k.const
                    strides.append(0)
                else:
                    offset += k.const * stride * scale
                    strides.append(stride * coef)
                shape.append(size)
                axes.append(axis)
                continue
            if isinstance(k, int):
                if k < 0:
                    k += n
                if not 0 <= k < n:
                    fail(f"index {k} out of range for dimension {dim} of size {n}", location)
                if is_p:
                    pstart += k
                    shape.append(1)
                    strides.append(0)
                    axes.append(None)
                    continue
                offset += k * stride * scale
                continue
            start, stop, step = _slice_bounds(k, n, dim, location)
            size = (stop - start + step - 1) // step
            axes.append(None)
            if is_p:
                if step != 1:
                    fail("the partition dimension cannot be sliced with a step", location)
                pstart += start
                shape.append(size)
                strides.append(0)
                continue
            offset += start * stride * scale
            shape.append(size)
            strides.append(stride * step)
        t = self._derive(shape, strides, offset, pstart, pdim if onchip else 0, limits or None)
        if any(a is not None for a in axes):
            t.axes = tuple(axes)
        return t

    def _grid_index(self, key, location):
        """Indexing by index expressions: the view's dimensions are the grid's axes (axis 0
        the partitions), each with the stride the expressions give it; one tensor
        dimension may combine several axes (`i_f1 * sz + i_f2`) and one axis may step
        through several dimensions. A slice takes the next axis no expression uses."""
        exprs, sizes, ndim = [], {}, 1
        ranks = {k.ndim for k in key if isinstance(k, IndexExpr)}
        if len(ranks) > 1:  # grids of different rank line up from the right (numpy)
            key = tuple(k.aligned(max(ranks)) if isinstance(k, IndexExpr) else k for k in key)
        for k in key:
            if isinstance(k, IndexExpr):
                ndim = max(ndim, k.ndim)
                for a in k.live_terms():
                    if sizes.setdefault(a, k.sizes[a]) != k.sizes[a]:
                        fail(f"grid axis {a} has {sizes[a]} values in one index and "
                             f"{k.sizes[a]} in another", location)
        free_axes = iter([a for a in range(ndim) if a not in sizes] +
                         list(range(max([ndim] + [a + 1 for a in sizes]), 64)))
        for dim, (k, n) in enumerate(zip(key, self.shape)):
            if isinstance(k, IndexExpr):
                exprs.append((k.const, k.live_terms()))
            elif isinstance(k, int):
                exprs.append((k + n if k < 0 else k, {}))
            else:
                start, stop, step = _slice_bounds(k, n, dim, location)
                a = next(free_axes)
                sizes[a] = (stop - start + step - 1) // step
                exprs.append((start, {a: step}))
        ndim = max([ndim] + [a + 1 for a in sizes])
        shape = [sizes.get(a, 1) for a in range(ndim)]
        strides = [0] * ndim
        onchip = self.space != "hbm"
        offset, pstart = self.offset, self.pstart
        scale = self.dtype.size if onchip else 1
        limits = []
        for dim, ((const, terms), n) in enumerate(zip(exprs, self.shape)):
            lo = hi = const
            for a, c in terms.items():
                lo += min(0, c * (sizes[a] - 1))
                hi += max(0, c * (sizes[a] - 1))
            if lo < 0 or hi >= n:
                limits.append((const, dict(terms), n, f"dimension {dim}"))
            if onchip and dim == self.pdim:
                if terms and terms != {0: 1}:
                    fail("the partition dimension of an on-chip tile takes the grid's first "
                         "axis with step 1 (i_p), plus a constant", location)
                pstart += const
                continue
            if onchip and dim < self.pdim and terms:
                fail(f"block dimension {dim} takes an int (t[b, i_p, i_f])", location)
            if onchip and sizes.get(0, 1) > 1 and terms.get(0):
                fail("the grid's first axis (the partitions) cannot index a free dimension of "
                     "an on-chip tile; move data across partitions with nc_transpose", location)
            offset += const * self.strides[dim] * scale
            for a, c in terms.items():
                strides[a] += c * self.strides[dim]
        if onchip:
            strides[0] = 0
        t = self._derive(shape, strides, offset, pstart, 0, limits or None)
        t.axes = tuple(range(ndim))
        return t

    def __setitem__(self, key, value):
        from . import language

        # A value nothing else refers to (t[b] = nl.load(...)) may be written in place.
        temporary = isinstance(value, Tensor) and sys.getrefcount(value) <= _TEMP_REFS
        language._assign(self[key], value, user_location(), temporary)

    def __iadd__(self, value):
        from . import language

        return language._inplace(self, "add", value, user_location())

    def __isub__(self, value):
        from . import language

        return language._inplace(self, "subtract", value, user_location())

    def __imul__(self, value):
        from . import language

        return language._inplace(self, "multiply", value, user_location())

    def __itruediv__(self, value):
        from . import language

        return language._inplace(self, "divide", value, user_location())

    def reshape(self, shape):
        location = user_location()
        shape = tuple(int(s) for s in shape)
        total = 1
        for s in shape:
            total *= s
        if total != self._elems():
            fail(f"cannot reshape {list(self.shape)} to {list(shape)}", location)
        if self.space == "hbm":
            if self.strides != _row_major(self.shape):
                fail("reshape needs a contiguous HBM tensor", location)
            return self._derive(shape, _row_major(shape), self.offset)
        if self.pdim != 0:
            fail("reshape of a tensor with block dimensions: index one block first (t[b])",
                 location)
        if shape[0] != self.shape[0]:
            fail("reshape of an on-chip tile keeps its partition dimension", location)
        if self.strides[1:] != _row_major(self.shape[1:]):
            fail("reshape needs a contiguous tile", location)
        return self._derive(shape, (0,) + _row_major(shape[1:]), self.offset)

    def view(self, dtype):
        """The same bytes read as another dtype (NKI's `tensor.view(dtype)`, page nki.tensor:
        "reinterpret to a specified type"; numpy's rule for the shape): an element size
        that differs scales the innermost dimension, which must be contiguous. On-chip
        tiles only: an instruction names an HBM tensor by its declared dtype, so an HBM
        reinterpretation would not be a view."""
        location = user_location()
        dt = _core.to_dtype(dtype, location)
        if self.space == "hbm":
            fail(f".view({dt.nki_name}) of an HBM tensor: neuronsim.nki reinterprets on-chip "
                 f"tiles only (DMA the bytes to SBUF, then view the tile)", location)
        old, new = self.dtype.size, dt.size
        shape, strides, free = list(self.shape), list(self.strides), self.pdim + 1
        if old != new:
            if len(shape) <= free:
                fail(f".view({dt.nki_name}): a tile without free dimensions cannot change "
                     f"its element size ({old} -> {new} bytes)", location)
            if strides[-1] != 1:
                fail(f".view({dt.nki_name}) needs a contiguous innermost dimension "
                     f"(stride {strides[-1]})", location)
            for d in range(len(shape)):
                if d == self.pdim:
                    continue
                if d == len(shape) - 1:
                    n = shape[d] * old
                    if n % new:
                        fail(f".view({dt.nki_name}): the innermost dimension is {n} bytes, "
                             f"not a multiple of {new}", location)
                    shape[d] = n // new
                else:
                    if (strides[d] * old) % new:
                        fail(f".view({dt.nki_name}): dimension {d}'s stride of {strides[d]} "
                             f"elements is not a whole number of {new}-byte elements", location)
                    strides[d] = strides[d] * old // new
            if self.offset % new:
                fail(f".view({dt.nki_name}): the tile starts at byte {self.offset}, not on a "
                     f"{new}-byte boundary", location)
        t = self._derive(shape, strides, self.offset)
        t.dtype = dt
        return t

    def _elems(self):
        return _prod(self.shape)

    def all_blocks(self):
        """The whole of a tile with block dimensions as one [P, B * F] view (a fill of
        every block by one instruction)."""
        if self.space == "hbm" or self.pdim == 0:
            return self
        p = self.pdim
        per = self.shape[:p] + self.shape[p + 1:]
        if self.strides[:p] + self.strides[p + 1:] != _row_major(per):
            fail("this view of a block tensor is not contiguous; fill each block t[b]")
        return Tensor(self.space, self.dtype, (self.shape[p], _prod(per)), (0, 1), self.offset,
                      self.hbm, self.alloc, self.pstart, self.name)

    def broadcast_to(self, shape):
        """Size-1 dimensions repeat with stride 0: a view, for the free dimensions of a
        tile and every dimension of an HBM tensor (a DMA reads the same row for every
        partition). A lane reads only its own partition, so a one-partition SBUF tile
        broadcast over partitions becomes a new tile, made by the Tensor engine as NKI's
        compiler does: ones[1, P].T @ tile (one matmul and one PSUM-to-SBUF copy per 512
        elements). NKI page nki.language.broadcast_to."""
        location = user_location()
        shape = tuple(int(s) for s in shape)
        if len(shape) != len(self.shape):
            fail(f"broadcast_to {list(shape)} needs {len(self.shape)} dimensions", location)
        if self.space != "hbm" and self.pdim != 0:
            fail("broadcast_to of a tensor with block dimensions: index one block first (t[b])",
                 location)
        strides = list(self.strides)
        for d, (have, want) in enumerate(zip(self.shape, shape)):
            if have == want:
                continue
            if have != 1:
                fail(f"cannot broadcast dimension {d} of size {have} to {want}", location)
            if d == 0 and self.space != "hbm":
                continue
            strides[d] = 0
        if self.space == "hbm":
            return self._derive(shape, strides, self.offset)
        view = self._derive((self.shape[0],) + shape[1:], strides, self.offset)
        if shape[0] != self.shape[0]:
            from . import isa

            return isa.partition_broadcast(view, shape[0], location)
        return view

    def ap(self, pattern, offset=0, **kwargs):
        """An explicit access pattern (NKI's `tensor.ap(pattern, offset)`, page "NKI Access
        Patterns"): pattern = [[partition_step, partitions], [step, num], ...] in elements,
        offset in elements from the tensor's start. On SBUF/PSUM the tensor is its
        partitions' rows side by side (row = the elements one partition holds), so the
        partition step must be one row and the offset counts whole rows plus elements."""
        location = user_location()
        vector_offset = kwargs.pop("vector_offset", None)
        indirect_dim = kwargs.pop("indirect_dim", 0)
        for k, v in kwargs.items():
            if k == "scalar_offset" and v is not None:
                fail(".ap(): scalar_offset= (a runtime start read from a register) is not "
                     "supported by neuronsim.nki, which builds every access pattern at trace "
                     "time; use an int offset, or a [1, 1] index tile as vector_offset", location)
            if v not in (None, 0):
                fail(f".ap(): unknown argument {k}= (NKI's .ap takes pattern, offset, "
                     "scalar_offset, vector_offset, indirect_dim)", location)
        try:
            pattern = [(int(s), int(n)) for s, n in pattern]
            offset = int(offset)
            indirect_dim = int(indirect_dim)
        except (TypeError, ValueError):
            fail(".ap() takes pattern=[[step, num], ...] and offset of ints", location)
        if not pattern:
            fail(".ap() needs at least the partition entry [step, num]", location)
        if vector_offset is not None:
            if self.space != "hbm":
                fail(".ap(): vector_offset on an on-chip tensor is NeuronCore-v4's tensor "
                     "indirection, which neuronsim does not model; index an HBM tensor "
                     "(an indirect DMA; nisa.dma_transpose's indirect form: \"src tensor must "
                     "be on HBM\")", location)
            return IndirectRows.from_ap(self, pattern, offset, vector_offset, indirect_dim,
                                        location)
        if any(n < 1 for _, n in pattern):
            fail(f".ap(): every entry [step, num] needs num >= 1 (pattern "
                 f"{[list(e) for e in pattern]})", location)
        shape = [n for _, n in pattern]
        strides = [s for s, _ in pattern]
        if self.space == "hbm":
            # Page "NKI Access Patterns": the pattern addresses the tensor's elements from
            # offset; every element it reaches must lie in the tensor.
            total = _prod(self.hbm.shape) if self.hbm.shape else 1
            base = self.offset + offset
            lo = base + sum(min(0, (n - 1) * st) for st, n in pattern)
            hi = base + sum(max(0, (n - 1) * st) for st, n in pattern)
            if lo < 0 or hi >= total:
                fail(f".ap(): offset {offset} and pattern {[list(e) for e in pattern]} reach "
                     f"elements {lo}..{hi} of {self.hbm.name} (it has {total}: 0..{total - 1})",
                     location)
            return self._derive(shape, strides, base)
        if self.pdim != 0:
            fail(".ap() on a tensor with block dimensions: index one block first (t[b])", location)
        row = self.alloc_row()
        pstep, parts = pattern[0]
        if parts > 1 and pstep != row:
            fail(f".ap(): on an on-chip tile the partition step is one partition's row "
                 f"({row} elements), not {pstep}", location)
        if offset < 0:
            fail(f".ap(): offset {offset} is negative", location)
        p0, f0 = divmod(offset, row)
        # Within a partition the free entries must stay in the tile's row (the elements one
        # partition of its allocation holds), as the page's SBUF/PSUM layout has it.
        lo = f0 + sum(min(0, (n - 1) * st) for st, n in pattern[1:])
        hi = f0 + sum(max(0, (n - 1) * st) for st, n in pattern[1:])
        if lo < 0 or hi >= row:
            fail(f".ap(): offset {offset} and pattern {[list(e) for e in pattern]} reach "
                 f"elements {lo}..{hi} of a partition row of {row} elements (0..{row - 1})",
                 location)
        if self.pstart + p0 + parts > _core.PARTITIONS:
            fail(f".ap(): partitions {self.pstart + p0}..{self.pstart + p0 + parts - 1} are "
                 f"beyond {_core.PARTITIONS}", location)
        return self._derive(shape, [0] + strides[1:], self.offset + f0 * self.dtype.size,
                            self.pstart + p0, 0)

    def alloc_row(self):
        """Elements one partition of this tile's allocation holds (for .ap offsets)."""
        return getattr(self.alloc, "row_elems", None) or self.free_size()

    # --- arithmetic: nl functions ---
    def __add__(self, o):
        from . import language as nl
        return nl.add(self, o)

    def __radd__(self, o):
        from . import language as nl
        return nl.add(o, self)

    def __sub__(self, o):
        from . import language as nl
        return nl.subtract(self, o)

    def __rsub__(self, o):
        from . import language as nl
        return nl.subtract(o, self)

    def __mul__(self, o):
        from . import language as nl
        return nl.multiply(self, o)

    def __rmul__(self, o):
        from . import language as nl
        return nl.multiply(o, self)

    def __truediv__(self, o):
        from . import language as nl
        return nl.divide(self, o)

    def __rtruediv__(self, o):
        from . import language as nl
        return nl.divide(o, self)

    def __neg__(self):
        from . import language as nl
        return nl.multiply(self, -1.0)

    # Comparisons give 0/1 tiles, as nl.less and the others do (kernels write
    # `col_iota < n` for a mask tile). == and != stay Python's identity tests: a tensor is
    # a dict key and a list member in the tracer.
    def __lt__(self, o):
        from . import language as nl
        return nl.less(self, o)

    def __le__(self, o):
        from . import language as nl
        return nl.less_equal(self, o)

    def __gt__(self, o):
        from . import language as nl
        return nl.greater(self, o)

    def __ge__(self, o):
        from . import language as nl
        return nl.greater_equal(self, o)

    def __pow__(self, o):
        from . import language as nl
        return nl.power(self, o)

    def __rpow__(self, o):
        from . import language as nl
        return nl.power(o, self)

    def __mod__(self, o):
        from . import language as nl
        return nl.mod(self, o)

    def __and__(self, o):
        from . import language as nl
        return nl.bitwise_and(self, o)

    def __rand__(self, o):
        from . import language as nl
        return nl.bitwise_and(o, self)

    def __or__(self, o):
        from . import language as nl
        return nl.bitwise_or(self, o)

    def __ror__(self, o):
        from . import language as nl
        return nl.bitwise_or(o, self)


class IndirectRows:
    """Rows of an HBM tensor picked at run time by an SBUF index tile: `t[..., idx, ...]`
    (the indirect forms of NKI's nl.load / nl.store pages, `data_tensor[idx_tile, i_f]` or
    `data_tensor[idx_tile[i_p, 0], i_f]`, the index in any one dimension) or
    `t.ap(pattern, offset, vector_offset=idx, indirect_dim=0)` (page "NKI Access
    Patterns"; nki-samples' MoE token gathers). Not a view: nl.load, nl.store and
    nisa.dma_copy take it as a gather's source or a scatter's destination, one indirect
    dma_copy (docs/python.md). `table` is a view whose partition axis is the indexed
    dimension over all of it (the rows an index may name, bounds-checked when the transfer
    runs) and whose free dims are one row's elements; row p of the transfer is table row
    index[p]."""

    def __init__(self, index, table, location, rows=None, rows_error=None):
        """rows (from .ap's pattern): the count of rows moved. nisa.dma_transpose's indirect
        form takes rows up to the count of indices, from [P, K] indices too (its rows are
        indices.T.flatten()[:rows]); a gather or scatter needs one index column of exactly
        `rows` indices, so `copy_error` says why this one cannot be one (rows_error: the
        caller's words for a count that differs), None when it can."""
        if not isinstance(index, Tensor) or index.space != "sbuf":
            where = index.space.upper() if isinstance(index, Tensor) else type(index).__name__
            fail(f"a runtime row index must be an SBUF tile (it is {where}): load the indices "
                 "with nl.load first", location)
        if index.dtype.asm not in ("int32", "uint32"):
            fail(f"a runtime row index must be int32 or uint32, not {index.dtype!r}", location)
        self.copy_error = None
        if index.free_size() != 1:
            self.copy_error = (f"a runtime row index is one index per partition ([P, 1]); "
                               f"this one is {list(index.shape)}")
            if rows is None:
                fail(self.copy_error, location)
        elif rows is not None and rows != index.partitions():
            self.copy_error = rows_error
        self.index = index
        self.table = table
        self.shape = (index.partitions() if rows is None else rows,) + tuple(table.shape[1:])
        self.dtype = table.dtype
        self.space = "hbm"

    @classmethod
    def from_key(cls, tensor, key, location):
        """t[k0, ..., idx, ...]: the index tile in one dimension d, ints, slices or index
        expressions in the others. The transfer's row p is t with dimension d at idx[p]
        and the other dimensions as the key gives them, in order (numpy's t[..., idx, ...]
        with the index's axis moved first: a gather over a middle or the last dimension
        lands each picked slice as one partition row)."""
        if any(k is Ellipsis for k in key):
            i = [k is Ellipsis for k in key].index(True)
            key = key[:i] + (slice(None),) * (tensor.ndim - (len(key) - 1)) + key[i + 1:]
        where = [i for i, k in enumerate(key) if isinstance(k, Tensor)]
        if len(where) != 1:
            fail("an indirect DMA takes one runtime index tile (in one dimension); "
                 f"this index has {len(where)}", location)
        d = where[0]
        index = key[d]
        if tensor.ndim < 2:
            fail("indirect indexing needs a tensor of rows (2-D or more)", location)
        if len(key) > tensor.ndim:
            fail(f"too many indices ({len(key)}) for a tensor of shape {list(tensor.shape)}",
                 location)
        for i, k in enumerate(key):
            if i != d and isinstance(k, IndexExpr) and k.live_terms().get(0):
                # A per-partition index in another dimension (data[i_p, idx_tile[i_p, 0]]:
                # each partition its own element of its own row) is NKI's, not this model's.
                fail(f"indirect DMA: dimension {i} is indexed by the partition axis (i_p) "
                     f"beside the runtime index in dimension {d}, so each partition would pick "
                     "its own element (a per-partition gather), which neuronsim's indirect DMA "
                     "does not model: it picks whole slices of one table. Compute the flat "
                     "index (idx + i_p * row_length, with nisa.iota and nl.add) and gather rows "
                     "of t.reshape((-1, 1)) instead", location)
        full = tuple(slice(None) if i == d else k for i, k in enumerate(key))
        view = tensor[full]
        # The view keeps one dimension per non-int index, in order (a plain or simple key).
        pos = sum(1 for k in full[:d] if not isinstance(k, int))
        if (pos >= view.ndim or view.shape[pos] != tensor.shape[d]
                or view.strides[pos] != tensor.strides[d]):
            fail(f"indirect DMA: the index expressions beside the runtime index reorder the "
                 f"view of {list(tensor.shape)}; index the other dimensions with ints, slices "
                 "or one nl.arange axis each, in order", location)
        order = [pos] + [i for i in range(view.ndim) if i != pos]
        table = view._derive([view.shape[i] for i in order], [view.strides[i] for i in order],
                             view.offset)
        return cls(index, table, location)

    @classmethod
    def from_ap(cls, tensor, pattern, offset, index, indirect_dim, location):
        """t.ap(pattern, offset, vector_offset=index, indirect_dim=0): the pattern's first
        entry [step, num] is the indexed one (num rows, one per index; row p starts at
        offset + index[p] * step), the rest one row's elements. The rows an index may name
        are those that fit in the tensor from offset (NKI/dma_copy: DGE checks addresses
        against the tensor when the transfer runs)."""
        if indirect_dim != 0:
            fail(f".ap(): indirect_dim={indirect_dim} is not modelled (neuronsim's indirect "
                 "DMA indexes the pattern's first entry, the rows); permute the pattern so the "
                 "indexed entry comes first and use indirect_dim=0", location)
        step, num = pattern[0]
        if step <= 0:
            fail(f".ap(): the indexed entry's step is {step}; an indirect row step must be "
                 "positive", location)
        rest = sum((n - 1) * s for s, n in pattern[1:] if n > 0)
        if any(s < 0 for s, _ in pattern[1:]):
            fail(".ap(): negative steps are not supported beside vector_offset", location)
        total = _prod(tensor.hbm.shape) if tensor.hbm.shape else 1
        base = tensor.offset + offset
        if base < 0 or base + rest >= total:
            fail(f".ap(): offset {offset} and pattern {[list(e) for e in pattern]} reach element "
                 f"{base + rest}, outside the tensor's {total}", location)
        rows = (total - 1 - base - rest) // step + 1
        table = tensor._derive([rows] + [n for _, n in pattern[1:]],
                               [step] + [s for s, _ in pattern[1:]], base)
        held = index.partitions() if isinstance(index, Tensor) else 0
        return cls(index, table, location, rows=num,
                   rows_error=f".ap(): the indexed entry [{step}, {num}] has {num} rows but "
                   f"vector_offset {list(index.shape) if held else index!r} holds {held} indices")

    @property
    def ndim(self):
        return len(self.shape)

    def partitions(self):
        return self.shape[0]

    def free_size(self):
        return _prod(self.shape[1:])

    def __repr__(self):
        return f"<nki indirect rows of {self.table!r} by {self.index!r}>"


class _Probe:
    def __setitem__(self, key, value):
        self.refs = sys.getrefcount(value)


def _temp_refs():
    """References a temporary value has inside __setitem__ (measured, not assumed: the
    count differs between Python versions)."""
    probe = _Probe()
    probe[0] = object()
    return probe.refs


_TEMP_REFS = _temp_refs()


def _plain(k, location):
    """An index as int, slice or IndexExpr (numpy ints become ints; an expression without
    grid axes is its constant)."""
    if isinstance(k, IndexExpr):
        return k if k.live_terms() else k.const
    if isinstance(k, slice):
        return k
    if isinstance(k, Tensor):
        fail("a runtime index (a tensor) may only index an HBM tensor, in one of its "
             "dimensions (t[idx_tile, i_f], an indirect DMA); elsewhere neuronsim.nki builds "
             "every access pattern at trace time", location)
    if isinstance(k, bool) or k is None:
        fail(f"unsupported index {k!r} (use ints, slices, nl.ds, nl.arange or nl.mgrid)", location)
    try:
        return int(k)
    except (TypeError, ValueError):
        fail(f"unsupported index {k!r} (use ints, slices, nl.ds, nl.arange or nl.mgrid)", location)


def _simple(key):
    """Every index expression uses one grid axis, increasing, and the axes follow the
    tensor's dimensions: the view keeps the tensor's dimensions (NKI's t[i_p, i_f])."""
    last = -1
    for k in key:
        if not isinstance(k, IndexExpr):
            continue
        terms = k.live_terms()
        if len(terms) != 1:
            return False
        (axis, coef), = terms.items()
        if coef <= 0:
            return False
        if k.sizes[axis] > 1:
            if axis <= last:
                return False
            last = axis
    return True


def _slice_bounds(k, n, dim, location):
    start, stop, step = k.start, k.stop, k.step
    if type(start) is int and type(stop) is int and step is None and 0 <= start < stop <= n:
        return start, stop, 1  # the common case, t[a:b] in range: nothing to check
    return _slice_bounds_checked(k, n, dim, location)


def _slice_bounds_checked(k, n, dim, location):
    def num(x, default):
        if x is None:
            return default
        if isinstance(x, IndexExpr):
            if x.live_terms():
                fail("a slice bound cannot be an index expression over a grid axis", location)
            return x.const
        try:
            return int(x)
        except (TypeError, ValueError):
            fail(f"slice bound {x!r} must be an int", location)

    step = num(k.step, 1)
    if step <= 0:
        fail(f"slice step {step} must be positive", location)
    start = num(k.start, 0)
    stop = num(k.stop, n)
    start = start + n if start < 0 else start
    stop = stop + n if stop < 0 else stop
    if not (0 <= start < n and start < stop <= n):
        fail(f"slice {start}:{stop} out of range for dimension {dim} of size {n}", location)
    return start, stop, step


# (shape as given, its partition dimension, dtype size) -> (shape, bytes per partition,
# elements per partition, strides) of the tiles made so far: a loop makes the same tile
# shape every iteration.
_TILE_LAYOUTS = {}


def new_tile(shape, dtype, space, location, name=None):
    """A fresh SBUF/PSUM tile on partitions 0..P-1: [partitions, free...], or with block
    dimensions before a par_dim, (B..., par_dim(P), free...): per partition it holds
    B * free elements, block b at b * free."""
    tr = _core.trace()
    if isinstance(shape, int):
        shape = (shape,)
    pdim = partition_dim(shape, location)
    key = (shape, pdim, dtype.size) if type(shape) is tuple else None
    layout = _TILE_LAYOUTS.get(key) if key is not None else None
    if layout is None:
        layout = _tile_layout(shape, pdim, dtype, location)
        if key is not None:
            _TILE_LAYOUTS[key] = layout
    shape, size, row_elems, strides = layout
    allocator = tr.sbuf if space == "sbuf" else tr.psum
    # What the tile is (`tile NAME[shape] dtype` in messages), formatted only if needed.
    alloc = allocator.allocate(size, (shape, dtype), location, name)
    alloc.row_elems = row_elems
    alloc.first_instr = len(tr.instrs)  # where a search for its writes may stop
    return Tensor(space, dtype, shape, strides, alloc.offset, alloc=alloc, name=name, pdim=pdim)


def _tile_layout(shape, pdim, dtype, location):
    """new_tile's checks of a shape, and (shape, bytes per partition, elements per
    partition, element strides)."""
    shape = tuple(map(int, shape))
    if not shape:
        fail("an on-chip tile needs a partition dimension", location)
    if not 1 <= shape[pdim] <= _core.PARTITIONS:
        hint = (" (mark the partition dimension with nl.par_dim: (B, nl.par_dim(P), F) is B "
                "tiles of P partitions; for a tile grid's storage, nl.empty_like(grid, "
                "buffer=nl.sbuf) or nl.alloc_tiles)" if pdim == 0 and len(shape) > 1 else "")
        fail(f"partition dimension {shape[pdim]} of {list(shape)} must be 1..{_core.PARTITIONS}"
             + hint, location)
    if min(shape) < 1:
        fail(f"tile shape {list(shape)} has an empty dimension", location)
    per_partition = shape[:pdim] + shape[pdim + 1:]
    row_elems = _prod(per_partition)
    nbytes = max(row_elems * dtype.size, 1)
    size = (nbytes + _core.ALIGN - 1) // _core.ALIGN * _core.ALIGN
    rm = _row_major(per_partition)
    return shape, size, row_elems, rm[:pdim] + (0,) + rm[pdim:]


# The index expressions and masks live in their own modules; these names stay here for
# the modules that import them from _tensor.
from ._index import IndexExpr  # noqa: E402
from ._mask import check_mask  # noqa: E402,F401 - nki.isa imports it from here
from . import _mask  # noqa: E402
