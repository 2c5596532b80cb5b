"""Tensors of a traced kernel (HBM tensors, SBUF/PSUM tiles), NKI-style indexing and the
nl.arange / nl.mgrid index expressions."""
from __future__ import annotations

from . import _core
from ._core import View, fail, user_location

HBM_BUFFERS = ("hbm", "private_hbm", "shared_hbm")


class HbmTensor:
    """A tensor in HBM: a kernel argument (input), a returned nl.ndarray(buffer=
    nl.shared_hbm) (output) or any other HBM nl.ndarray (scratch)."""

    def __init__(self, name, shape, dtype, role):
        self.name, self.shape, self.dtype, self.role = name, tuple(shape), dtype, role


def _row_major(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


class Tensor:
    """A view of an HBM tensor or of an on-chip tile. `shape[0]` of an SBUF/PSUM tile is
    its partition dimension; the rest are free dimensions."""

    def __init__(self, space, dtype, shape, strides, offset, hbm=None, alloc=None, pstart=0,
                 name=None):
        self.space = space  # "hbm", "sbuf", "psum"
        self.dtype = dtype
        self.shape = tuple(int(n) for n in shape)
        self.strides = tuple(strides)  # elements; on-chip: strides[0] unused (lanes)
        self.offset = offset  # HBM: elements from the tensor's start; on-chip: bytes in the pool
        self.hbm, self.alloc, self.pstart = hbm, alloc, pstart
        self.name = name
        self.producer = None  # the Instr that wrote this whole, fresh tensor

    # --- NKI attributes ---
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def buffer(self):
        return self.space

    def __repr__(self):
        return f"<nki tensor {self.name or ''} {self.space} {self.dtype.nki_name}{list(self.shape)}>"

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        fail("a tensor is not iterable in a traced kernel; index it with slices")

    def __bool__(self):
        fail("a traced tensor has no truth value (its data exists only in the simulation)")

    # --- operands ---
    def view(self):
        if self.space == "hbm":
            if not self.shape:
                return View("hbm", self.hbm.name, self.dtype, 0, 1, 0, self.offset * self.dtype.size, [(1, 1)])  # noqa: E501
            dims = list(zip(self.strides[1:], self.shape[1:]))
            return View("hbm", self.hbm.name, self.dtype, 0, self.shape[0], self.strides[0],
                        self.offset * self.dtype.size, dims, self.hbm.shape[-1] if self.hbm.shape else 1)
        pool = "_sbuf" if self.space == "sbuf" else "_psum"
        dims = list(zip(self.strides[1:], self.shape[1:]))
        return View(self.space, pool, self.dtype, self.pstart, self.shape[0], 0, self.offset, dims)

    def partitions(self):
        return self.shape[0] if self.shape else 1

    def free_size(self):
        n = 1
        for s in self.shape[1:]:
            n *= s
        return n

    def _derive(self, shape, strides, offset, pstart=None):
        t = Tensor(self.space, self.dtype, shape, strides, offset, self.hbm, self.alloc,
                   self.pstart if pstart is None else pstart, self.name)
        return t

    # --- indexing ---
    def __getitem__(self, key):
        location = user_location()
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = [k is Ellipsis for k in key].index(True)
            fill = len(self.shape) - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        if len(key) > len(self.shape):
            fail(f"too many indices ({len(key)}) for a tensor of shape {list(self.shape)}", location)
        key = key + (slice(None),) * (len(self.shape) - len(key))
        shape, strides = [], []
        offset = self.offset
        pstart = self.pstart
        last_axis = -1
        onchip = self.space != "hbm"
        for dim, (k, n) in enumerate(zip(key, self.shape)):
            stride = self.strides[dim]
            if isinstance(k, IndexExpr):
                k, axis = k.as_index(location)
                if axis is not None and k.stop - k.start > 1:  # size-1 axes do not order
                    if axis <= last_axis:
                        fail("index expressions must follow the tensor's dimension order "
                             "(a transposing index needs nc_transpose)", location)
                    last_axis = axis
            if isinstance(k, bool) or not isinstance(k, (int, slice)):
                try:
                    k = int(k)
                except (TypeError, ValueError):
                    fail(f"unsupported index {k!r} (use ints, slices, nl.arange or nl.mgrid)", location)
            if isinstance(k, int):
                if k < 0:
                    k += n
                if not 0 <= k < n:
                    fail(f"index {k} out of range for dimension {dim} of size {n}", location)
                if onchip and dim == 0:
                    pstart += k
                    shape.append(1)
                    strides.append(0)
                    continue
                offset += k * stride * (self.dtype.size if onchip else 1)
                continue
            start, stop, step = k.start, k.stop, k.step
            step = 1 if step is None else step
            if step <= 0:
                fail(f"slice step {step} must be positive", location)
            start = 0 if start is None else (start + n if start < 0 else start)
            stop = n if stop is None else (stop + n if stop < 0 else stop)
            if not (0 <= start < n and start < stop <= n):
                fail(f"slice {start}:{stop} out of range for dimension {dim} of size {n}", location)
            size = (stop - start + step - 1) // step
            if onchip and dim == 0:
                if step != 1:
                    fail("the partition dimension cannot be sliced with a step", location)
                pstart += start
                shape.append(size)
                strides.append(0)
                continue
            offset += start * stride * (self.dtype.size if onchip else 1)
            shape.append(size)
            strides.append(stride * step)
        return self._derive(shape, strides, offset, pstart)

    def __setitem__(self, key, value):
        from . import language

        language._assign(self[key], value, user_location())

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
        if shape[0] != self.shape[0]:
            fail("reshape of an on-chip tile keeps its partition dimension", location)
        if self.strides[1:] != _row_major(self.shape[1:]):
            fail("reshape needs a contiguous tile", location)
        return self._derive(shape, (0,) + _row_major(shape[1:]), self.offset)

    def _elems(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def broadcast_to(self, shape):
        """Size-1 dimensions repeat with stride 0: a view, for the free dimensions of a
        tile and every dimension of an HBM tensor (a DMA reads the same row for every
        partition). A lane reads only its own partition, so a one-partition SBUF tile
        broadcast over partitions becomes a new tile, made by the Tensor engine as NKI's
        compiler does: ones[1, P].T @ tile (one matmul and one PSUM-to-SBUF copy per 512
        elements)."""
        location = user_location()
        shape = tuple(int(s) for s in shape)
        if len(shape) != len(self.shape):
            fail(f"broadcast_to {list(shape)} needs {len(self.shape)} dimensions", location)
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

    def ap(self, pattern, offset=0):
        """An explicit access pattern on an HBM tensor, NKI's `tensor.ap(pattern, offset)`:
        pattern = [[partition_stride, partitions], [stride, size], ...] in elements."""
        location = user_location()
        if self.space != "hbm":
            fail(".ap() is supported on HBM tensors only", location)
        shape = [int(n) for _, n in pattern]
        strides = [int(s) for s, _ in pattern]
        return self._derive(shape, strides, self.offset + int(offset))

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


def new_tile(shape, dtype, space, location, name=None):
    """A fresh SBUF/PSUM tile: [partitions, free...], allocated on partitions 0.."""
    tr = _core.trace()
    shape = tuple(int(s) for s in shape)
    if not shape:
        fail("an on-chip tile needs a partition dimension", location)
    if shape[0] > _core.PARTITIONS or shape[0] < 1:
        fail(f"partition dimension {shape[0]} must be 1..{_core.PARTITIONS}", location)
    free = 1
    for s in shape[1:]:
        free *= s
    nbytes = max(free * dtype.size, 1)
    size = (nbytes + _core.ALIGN - 1) // _core.ALIGN * _core.ALIGN
    allocator = tr.sbuf if space == "sbuf" else tr.psum
    what = f"tile {name or ''}{list(shape)} {dtype.nki_name}".replace("tile [", "tile [", 1)
    alloc = allocator.allocate(size, what, location, name)
    strides = (0,) + _row_major(shape[1:])
    return Tensor(space, dtype, shape, strides, alloc.offset, alloc=alloc, name=name)


# --- index expressions -------------------------------------------------------------------


class Mask:
    """A comparison of an index expression with 0 over an index grid (`expr cmp 0`). As a
    `mask=` neuronsim.nki supports masks that are all true (the tutorials' bounds masks
    on shapes that tile exactly); as affine_select's predicate any one comparison."""

    def __init__(self, all_true, expr=None, cmp=None):
        self.all_true, self.expr, self.cmp = all_true, expr, cmp

    def __and__(self, o):
        return Mask(self.all_true and _mask_true(o))

    __rand__ = __and__


def _mask_true(m):
    if m is None or m is True:
        return True
    if isinstance(m, Mask):
        return m.all_true
    return False


def check_mask(mask, location):
    if mask is not None and not _mask_true(mask):
        fail("a mask that is false somewhere is not supported: neuronsim.nki traces whole "
             "tiles (pad the tensor to a multiple of the tile size)", location)


class IndexExpr:
    """const + sum coef_a * i_a over the axes of an index grid (nl.arange / nl.mgrid)."""

    def __init__(self, const, terms, sizes, ndim):
        self.const, self.terms, self.sizes, self.ndim = const, dict(terms), dict(sizes), ndim

    def __getitem__(self, key):
        # arange(n)[:, None] / [None, :]: place the (single) grid axis.
        if not isinstance(key, tuple):
            key = (key,)
        if len(self.terms) != 1 or self.ndim != 1:
            fail("only a 1-D nl.arange can be reshaped with [:, None] / [None, :]")
        (axis, coef), = self.terms.items()
        pos = [i for i, k in enumerate(key) if k is not None]
        if len(pos) != 1:
            fail("index an nl.arange with exactly one ':' and None elsewhere")
        return IndexExpr(self.const, {pos[0]: coef}, {pos[0]: self.sizes[axis]}, len(key))

    def _combine(self, o, sign):
        if isinstance(o, IndexExpr):
            terms = dict(self.terms)
            sizes = dict(self.sizes)
            for a, c in o.terms.items():
                terms[a] = terms.get(a, 0) + sign * c
                sizes[a] = o.sizes[a]
            return IndexExpr(self.const + sign * o.const, terms, sizes, max(self.ndim, o.ndim))
        return IndexExpr(self.const + sign * int(o), self.terms, self.sizes, self.ndim)

    def __add__(self, o):
        return self._combine(o, 1)

    __radd__ = __add__

    def __sub__(self, o):
        return self._combine(o, -1)

    def __rsub__(self, o):
        neg = IndexExpr(-self.const, {a: -c for a, c in self.terms.items()}, self.sizes, self.ndim)
        return neg + o

    def __mul__(self, k):
        k = int(k)
        return IndexExpr(self.const * k, {a: c * k for a, c in self.terms.items()}, self.sizes, self.ndim)

    __rmul__ = __mul__

    def _range(self):
        lo = hi = self.const
        for a, c in self.terms.items():
            span = c * (self.sizes[a] - 1)
            lo += min(0, span)
            hi += max(0, span)
        return lo, hi

    def _compare(self, o, cmp):
        diff = self - o
        lo, hi = diff._range()
        all_true = {"is_lt": hi < 0, "is_le": hi <= 0, "is_gt": lo > 0, "is_ge": lo >= 0,
                    "is_equal": lo == hi == 0, "not_equal": lo > 0 or hi < 0}[cmp]
        return Mask(all_true, diff, cmp)

    def __lt__(self, o):
        return self._compare(o, "is_lt")

    def __le__(self, o):
        return self._compare(o, "is_le")

    def __gt__(self, o):
        return self._compare(o, "is_gt")

    def __ge__(self, o):
        return self._compare(o, "is_ge")

    def __eq__(self, o):
        return self._compare(o, "is_equal")

    def __ne__(self, o):
        return self._compare(o, "not_equal")

    __hash__ = object.__hash__

    def as_index(self, location):
        """(int or slice, grid axis or None) for indexing one tensor dimension."""
        terms = {a: c for a, c in self.terms.items() if c != 0}
        if not terms:
            return self.const, None
        if len(terms) != 1:
            fail("an index expression over two grid axes cannot index one dimension", location)
        (axis, coef), = terms.items()
        if coef <= 0:
            fail("index expressions must increase along their axis", location)
        size = self.sizes[axis]
        return slice(self.const, self.const + coef * (size - 1) + 1, coef), axis


def arange(*args):
    r = range(*args)
    if r.step <= 0:
        fail("nl.arange needs a positive step")
    return IndexExpr(r.start, {0: r.step}, {0: len(r)}, 1)


class _MGrid:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        out = []
        for i, s in enumerate(key):
            r = range(s.start or 0, s.stop, s.step or 1)
            out.append(IndexExpr(r.start, {i: r.step}, {i: len(r)}, len(key)))
        return tuple(out) if len(out) > 1 else out[0]


mgrid = _MGrid()
