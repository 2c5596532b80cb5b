"""Masks of a traced kernel: `mask=(i_p < n)`, `(i_f < m)`, `&` / `|` / `~` of them, and
out-of-range views that a mask makes valid.

NKI (programming guide, "Masking"; every nl/nisa call's `mask=` argument) evaluates the
mask over the call's index grid, axis 0 the partitions and axis k the k-th free
dimension of its tile, and computes only where it is true. Here the mask is evaluated at
trace time (all its values are known), split into rectangles and each instruction of the
call is shrunk to each rectangle: a rectangular mask (the usual bounds mask of a partial
last tile) costs nothing; an affine one like `i_p * F + i_f < n` becomes two or three
instructions. A call sets the mask (check_mask) and isa.emit hands every instruction of
that call to `emit` below, which applies it.
"""
from __future__ import annotations

import copy
import sys
import weakref

import numpy as np

from . import _core
from ._core import View, fail, regions_overlap

_CMP = {"is_lt": np.less, "is_le": np.less_equal, "is_gt": np.greater, "is_ge": np.greater_equal,
        "is_equal": np.equal, "not_equal": np.not_equal}


class Mask:
    """A boolean function of the index grid: a comparison `expr cmp 0` (`expr` and `cmp`
    are what affine_select's earlier form reads) or an and/or/not of masks."""

    def __init__(self, op, parts, expr=None, cmp=None):
        self.op, self.parts, self.expr, self.cmp = op, parts, expr, cmp
        self._grid = None

    @staticmethod
    def compare(diff, cmp):
        return Mask("cmp", (), diff, cmp)

    def __and__(self, o):
        return Mask("and", (self, _as_mask(o)))

    __rand__ = __and__

    def __or__(self, o):
        return Mask("or", (self, _as_mask(o)))

    __ror__ = __or__

    def __invert__(self):
        return Mask("not", (self,))

    def __bool__(self):
        fail("a mask has no truth value in Python (its values exist per element); pass it "
             "as mask= or combine masks with & and |")

    def exprs(self):
        if self.op == "cmp":
            return [self.expr]
        if self.op == "const":
            return []
        return [e for p in self.parts for e in p.exprs()]

    def grid(self):
        """(axes, sizes, ndim, boolean array over the axes the mask uses)."""
        if self._grid is None:
            axes, sizes, ndim = {}, {}, 1
            for e in self.exprs():
                ndim = max(ndim, e.ndim)
                for a, c in e.live_terms().items():
                    sizes[a] = e.sizes[a]
            axes = sorted(sizes)
            coords = {a: np.arange(sizes[a]).reshape([-1 if b == a else 1 for b in axes])
                      for a in axes}
            shape = tuple(sizes[a] for a in axes)
            self._grid = (axes, sizes, ndim, np.broadcast_to(self._eval(coords), shape))
        return self._grid

    def _eval(self, coords):
        if self.op == "cmp":
            v = self.expr.const
            for a, c in self.expr.live_terms().items():
                v = v + c * coords[a]
            return _CMP[self.cmp](np.asarray(v), 0)
        if self.op == "const":
            return np.asarray(self.parts)
        vals = [p._eval(coords) for p in self.parts]
        if self.op == "and":
            return np.logical_and(*vals)
        if self.op == "or":
            return np.logical_or(*vals)
        return np.logical_not(vals[0])

    @property
    def all_true(self):
        if self._grid is None and self.op == "cmp":
            known = _compare_all_true(self.expr, self.cmp)
            if known is not None:
                return known
        return bool(self.grid()[3].all())


def _compare_all_true(e, cmp):
    """Whether `e cmp 0` holds on the whole grid, from e's lowest and highest values (an
    affine expression over a box takes both): the common full-tile mask of a loop
    (`i * 128 + i_p < n`) costs no grid evaluation. None when this cannot tell (==, !=,
    non-integer terms): the grid decides."""
    if cmp not in ("is_lt", "is_le", "is_gt", "is_ge") or type(e.const) is not int:
        return None
    for a, c in e.terms.items():
        n = e.sizes.get(a)
        if type(c) is not int or type(n) is not int or n < 1:
            return None
    lo, hi = e.range()
    if cmp == "is_lt":
        return hi < 0
    if cmp == "is_le":
        return hi <= 0
    if cmp == "is_gt":
        return lo > 0
    return lo >= 0


def _as_mask(o):
    if isinstance(o, Mask):
        return o
    if isinstance(o, (bool, np.bool_)):
        return Mask("const", bool(o))
    fail(f"a mask combines with masks (comparisons of index expressions), not {type(o).__name__}")


def mask_true(m):
    return m is None or m is True or (isinstance(m, Mask) and m.all_true)


# --- the mask of the call being traced ------------------------------------------------------

# (weak reference to the trace, Mask, location, (stack depth, code) of the API call that
# set it): the mask of the call on that Python line. Weak, so a finished trace is not kept
# alive by the last mask it used.
_pending = None


def _stack_depth(frame):
    n = 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


def _setter_active(setter):
    """Whether the API call that set the pending mask is still running (its code at its
    depth of the current stack): `nl.store(out, value=nl.max(x, mask=m))` is two calls on
    one line, and the store after the masked max must not take its mask."""
    depth, code = setter
    frame = sys._getframe(2)
    n = _stack_depth(frame)
    if n < depth:
        return False
    for _ in range(n - depth):
        frame = frame.f_back
    return frame.f_code is code


def check_mask(mask, location):
    """Sets the mask of the nl/nisa call at `location` for the instructions it emits. An
    inner call of that API call (the same location, deeper in the stack) keeps it; a call
    without a mask after it on the same line (its caller's next call) drops it."""
    global _pending
    tr = _core.Trace.active
    if mask is not None and mask is not True and not isinstance(mask, Mask):
        if mask is False:
            mask = Mask("const", False)
        else:
            fail(f"mask= takes a comparison of index expressions (e.g. mask=(i_p < n) with i_p "
                 f"from nl.arange / nl.mgrid), not {type(mask).__name__}", location)
    if mask_true(mask):
        if _pending is not None and (_pending[0]() is not tr or _pending[2] != location or
                                     _stack_depth(sys._getframe(1)) <= _pending[3][0]):
            _pending = None
        return
    if tr is None:
        tr = _core.trace()  # raises: nki calls work only inside a kernel being traced
    caller = sys._getframe(1)
    _pending = (weakref.ref(tr), mask, location, (_stack_depth(caller), caller.f_code))


class BoundedView(View):
    """A view indexed by index expressions: `axes` is the grid axis of each view axis
    (partition first; None for a slice), `limits` [(const, {view axis: coef}, size,
    what)] the tensor dimensions it indexes partly outside, legal only where the call's
    mask is false."""

    __slots__ = ("limits", "axes")


def _axis_size(v, a):
    return v.partitions if a == 0 else v.dims[a - 1][1]


def _sizes(v):
    return [v.partitions] + [n for _, n in v.dims]


def _axis_map(ins, sizes, ndim):
    """(reference operand, {grid axis: view axis}): how the mask's grid axes lie on the
    instruction's operands. An operand indexed by index expressions says which of its
    axes each grid axis is; otherwise grid axis a is view axis a when the ranks agree,
    else the partition axis is axis 0 and the other axes take the free axes of their
    size in order. None when no operand lies on the grid (a helper of the call)."""
    for v in ins.operands:
        axes = getattr(v, "axes", None)
        if axes and all(a in axes for a in sizes):
            m = {a: axes.index(a) for a in sizes}
            if all(_axis_size(v, m[a]) == n for a, n in sizes.items()):
                return v, m
    for v in ins.operands:
        nax = 1 + len(v.dims)
        if nax == ndim:
            m = {a: a for a in sizes}
        else:
            m, used = {}, set()
            for a in sorted(sizes):
                if a == 0:
                    m[0] = 0
                    continue
                k = next((k for k in range(1, nax) if k not in used and
                          _axis_size(v, k) == sizes[a] and k > max([0] + list(used))), None)
                if k is None:
                    break
                m[a] = k
                used.add(k)
        if len(m) == len(sizes) and all(m[a] < nax and _axis_size(v, m[a]) == n
                                        for a, n in sizes.items()):
            return v, m
    return None, None


def _restrict(v, box, ref):
    """v shrunk to the box ({view axis: (lo, hi)}) on every axis whose size is the
    reference operand's on that axis."""
    nax = 1 + len(v.dims)
    change = {a: r for a, r in box.items()
              if a < nax and _axis_size(v, a) == ref[a] and r != (0, ref[a])}
    if not change and type(v) is View:
        return v
    es = v.dtype.size
    dims, offset, pstart, parts = list(v.dims), v.offset, v.pstart, v.partitions
    for a, (lo, hi) in change.items():
        if a == 0:
            if v.space == "hbm":
                offset += lo * v.pstride * es
            else:
                pstart += lo
            parts = hi - lo
        else:
            stride, _ = dims[a - 1]
            offset += lo * stride * es
            dims[a - 1] = (stride, hi - lo)
    out = View(v.space, v.buffer, v.dtype, pstart, parts, v.pstride, offset, dims, v.row)
    out.exact = v.exact
    return out


def _check_limits(v, box, ref, location, masked):
    for const, coefs, n, what in v.limits:
        lo = hi = const
        for a, c in coefs.items():
            size = _axis_size(v, a)
            r0, r1 = box[a] if a in box and ref and a < len(ref) and ref[a] == size else (0, size)
            span0, span1 = c * r0, c * (r1 - 1)
            lo += min(span0, span1)
            hi += max(span0, span1)
        if lo < 0 or hi >= n:
            fail(f"index {lo}..{hi} is out of range for {what} (size {n})" +
                 (" where the mask is true" if masked else
                  "; a mask= that is false outside the tensor makes a partial tile legal"),
                 location)


def boxes(b):
    """Disjoint boxes [((lo, hi), ...) per axis] whose union is the true part of b."""
    if b.ndim == 0:  # a mask over no grid axis: everything or nothing
        return [()] if bool(b) else []
    if b.ndim == 1:
        out, i, n = [], 0, len(b)
        while i < n:
            if not b[i]:
                i += 1
                continue
            j = i + 1
            while j < n and b[j]:
                j += 1
            out.append(((i, j),))
            i = j
        return out
    out, i, n = [], 0, b.shape[0]
    while i < n:
        j = i + 1
        while j < n and np.array_equal(b[j], b[i]):
            j += 1
        for sub in boxes(b[i]):
            out.append(((i, j),) + sub)
        i = j
    return out


_INDEX_OPTIONS = {"iota": "base", "affine_select": "offset"}


def _shift_index_options(ins, dst, box, ref):
    """iota / affine_select compute from the element's index: a box that starts at lo
    starts its values at base + lo * step, and steps of dims that shrink to 1 go."""
    key = _INDEX_OPTIONS[ins.opcode]
    opts = dict(ins.options)
    base, pstep = int(opts[key]), int(opts["partition_step"])
    steps = [int(s) for s in opts["steps"].strip("[]").split(",")]
    if 0 in box and ref[0] == dst.partitions:
        base += box[0][0] * pstep
    kept, k = [], 0
    for a, (stride, n) in enumerate(dst.dims, start=1):
        if n == 1:
            continue
        st = steps[k] if k < len(steps) else 0
        k += 1
        if a in box and ref[a] == n:
            base += box[a][0] * st
            n = box[a][1] - box[a][0]
        if n != 1:
            kept.append(st)
    new = {key: str(base), "steps": "[" + ", ".join(str(s) for s in kept or [0]) + "]"}
    ins.options = [(k2, new.get(k2, v)) for k2, v in ins.options]


def _legal_start(start, n):
    """A compute engine's access starts at partition 0, 32, 64 or 96 for up to 32
    partitions, 0 or 64 for up to 64, 0 beyond (the validator's rule, reference
    section 1)."""
    return start % 32 == 0 if n <= 32 else (start % 64 == 0 if n <= 64 else start == 0)


def _align_partitions(ins, rects, axes, b, ref_sizes):
    """Each box's partition range split into pieces an engine can access (each starting
    at a legal partition for its size). A range that starts between legal starts grows
    down to one: the partitions it adds must be true in the mask (another box writes
    them too, later, so a reduction's partial rows are rewritten); grown pieces go
    first."""
    starts = [v.pstart for v in ins.operands if v.space != "hbm" and v.partitions == ref_sizes[0]]

    def piece(s, hi):
        for n in (hi - s, min(64, hi - s), min(32, hi - s)):
            if all(_legal_start(p + s, n) for p in starts):
                return n
        return None

    grown, exact = [], []
    for box in rects:
        if 0 not in box:
            exact.append(box)
            continue
        lo, hi = box[0]
        s = lo
        if piece(s, hi) is None:
            s = next((t for t in range(lo - 1, -1, -1) if piece(t, hi) is not None), None)
            clobbered = tuple(slice(s, lo) if a == 0 else slice(*box.get(a, (0, b.shape[k])))
                              for k, a in enumerate(axes)) if s is not None else None
            if s is None or not b[clobbered].all():
                fail(f"this mask's true part starts at partition {lo}; an engine instruction "
                     "starts at partition 0, 32, 64 or 96 (for up to 32 partitions; 0 or 64 "
                     "for up to 64, 0 beyond), and the partitions before it are false in the "
                     "mask; start the mask at such a partition or slice the tile", ins.location)
            n = piece(s, hi)
            grown.append({**box, 0: (s, s + n)})
            s += n
        while s < hi:
            n = piece(s, hi)
            exact.append({**box, 0: (s, s + n)})
            s += n
    return grown + exact, len(grown)


def _element_offsets(v):
    """The byte offsets of the elements an on-chip view touches in one partition."""
    offs = np.array([v.offset], dtype=np.int64)
    es = v.dtype.size
    for stride, size in v.dims:
        offs = (offs[:, None] + np.arange(size, dtype=np.int64)[None, :] * (stride * es)).ravel()
    return offs


def _views_overlap(a, b):
    """Whether two views write a common element. Bounding boxes first; for two on-chip
    views of one dtype whose boxes meet, the elements themselves: the boxes of a reduction
    split by a padding mask (one box per edge row and column of the output) interleave in
    memory without sharing an element."""
    ra, rb = a.region(), b.region()
    if not regions_overlap(ra, rb):
        return False
    if a.space == "hbm" or a.dtype is not b.dtype:
        return True
    return np.intersect1d(_element_offsets(a), _element_offsets(b)).size > 0


# nki.isa's helpers whose tiles the trace keeps and reuses across calls (a constant bias,
# the ones row of a partition broadcast): never shrunk to one call's mask.
_SHARED_HELPERS = ("constant_tile", "partition_broadcast")


def _in_shared_helper():
    frame = sys._getframe(2)
    for _ in range(6):
        if frame is None:
            return False
        if frame.f_code.co_name in _SHARED_HELPERS:
            return True
        frame = frame.f_back
    return False


def _any_bounded(ins):
    for v in ins.operands:
        if type(v) is BoundedView and v.limits:
            return True
    for _, v in ins.options:
        if type(v) is BoundedView and v.limits:
            return True
    return False


# --- zeroed PSUM tiles ------------------------------------------------------------------------
# nl.zeros(..., buffer=nl.psum) followed by `+=` of matmuls is NKI's accumulation idiom;
# the first matmul of the group overwrites the tile, so the zero fill is only traced when
# something else touches the tile first (deferred until then, dropped by `+=`).


def defer_zero(tr, ins):
    zeros = tr.__dict__.setdefault("_nki_deferred_zeros", [])
    zeros.append((ins.writes[0].region(), ins))


def take_zero(tr, region):
    """Drops the deferred zero fill of exactly `region`; True if there was one."""
    zeros = tr.__dict__.get("_nki_deferred_zeros")
    for k, (r, _) in enumerate(zeros or ()):
        if r == region:
            del zeros[k]
            return True
    return False


def flush_zeros(tr, views, before_last=False):
    """Traces the deferred zero fills that `views` touch: next, or just before the last
    instruction (which is about to be redirected to write them)."""
    zeros = tr.__dict__.get("_nki_deferred_zeros")
    if not zeros:
        return
    regions = [v.region() for v in views]
    keep = []
    for r, ins in zeros:
        if any(regions_overlap(r, q) for q in regions):
            if before_last and tr.instrs:
                last = tr.instrs.pop()
                tr.emit(ins)
                tr.emit(last)
            else:
                tr.emit(ins)
        else:
            keep.append((r, ins))
    zeros[:] = keep


def emit(tr, ins):
    """Appends `ins` to the trace, shrunk to the true part of the current call's mask
    (one instruction per rectangle, none where it is all false), after checking that
    every out-of-range view is in range where the mask is true."""
    if tr.__dict__.get("_nki_deferred_zeros"):
        flush_zeros(tr, ins.reads + ins.writes + [v for _, v in ins.options if isinstance(v, View)])
    p = _pending
    mask = p[1] if (p is not None and p[0]() is tr and p[2] == ins.location and
                    _setter_active(p[3])) else None
    if mask is None and not _any_bounded(ins):
        return tr.emit(ins)  # the common case: nothing to check, nothing allocated
    bounded = [v for v in ins.operands if type(v) is BoundedView and v.limits]
    for _, v in ins.options:
        if type(v) is BoundedView and v.limits:
            bounded.append(v)
    if mask is None and not bounded:
        return tr.emit(ins)
    ref = mapping = None
    if mask is not None and _in_shared_helper():
        mask = None
    if mask is not None:
        axes, sizes, ndim, b = mask.grid()
        ref, mapping = _axis_map(ins, sizes, ndim)
    if ref is None and mask is not None and ins.opcode != "memset" and \
            any(v.free_elems() > 1 for v in ins.operands):
        fail(f"the mask's index grid (axes {dict(sorted(sizes.items()))}) does not match "
             f"this call's tile {_sizes(ins.operands[0])} (partitions first); build the "
             "mask from the grid that indexes the tile", ins.location)
    if ref is None:  # no mask, or a helper of the call (a constant, a [P, 1] value)
        for v in bounded:
            _check_limits(v, {}, None, ins.location, False)
        return tr.emit(ins)
    if ins.engine == "tensor":
        fail(f"a mask that is false somewhere is not supported on the Tensor engine "
             f"({ins.opcode}); slice the operands to the part you need", ins.location)
    ref_sizes = _sizes(ref)
    rects = [{mapping[a]: r for a, r in zip(axes, rect)} for rect in boxes(b)]
    if 0 in mapping and mapping[0] == 0:
        rects, n_grown = _align_partitions(ins, rects, axes, b, ref_sizes)
    else:
        n_grown = 0
    spans = [_sizes(v) == ref_sizes for v in ins.operands]
    if ins.opcode == "dma_copy" and not all(spans):
        fail("a partial mask on a DMA needs both sides indexed by the mask's grid (the same "
             "shape)", ins.location)
    dst0 = ins.operands[0] if ins.operands else None
    ops0, reads0, full_writes, options0 = (list(ins.operands), list(ins.reads), list(ins.writes),
                                           list(ins.options))
    written = []
    for n, box in enumerate(rects):
        for v in bounded:
            _check_limits(v, box, ref_sizes, ins.location, True)
        out = ins if n == 0 else copy.copy(ins)
        out.operands = [_restrict(v, box, ref_sizes) for v in ops0]
        out.reads = [_restrict(v, box, ref_sizes) for v in reads0]
        out.writes = [_restrict(v, box, ref_sizes) for v in full_writes]
        out.options = [(k, _restrict(v, box, ref_sizes) if isinstance(v, View) else v)
                       for k, v in options0]
        if n:
            out.waits = out.signals = ()
        if ins.opcode in _INDEX_OPTIONS:
            _shift_index_options(out, dst0, box, ref_sizes)
        for w, full in zip(out.writes, full_writes):
            if _sizes(full) == ref_sizes or n < n_grown:  # grown boxes are rewritten later
                continue
            if any(_views_overlap(w, o) for o in written):
                fail(f"{ins.opcode}: this mask is not a rectangle along the axes the call "
                     "reduces; use a rectangular mask (e.g. i_f < m) here", ins.location)
            written.append(w)
        tr.emit(out)
    return ins
