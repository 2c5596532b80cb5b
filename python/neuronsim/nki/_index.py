"""Index expressions of a traced kernel: nl.arange, nl.mgrid, nl.ds and the affine
expressions built from them (`i_p`, `p * 128 + i_p`, `i_f1 * sz + i_f2`).

An IndexExpr is const + sum coef_a * i_a over the axes of an index grid; axis 0 is the
partition axis. Indexing a tensor with them gives a view whose dimensions are the grid's
axes (NKI's "the index grid is the tile"), and comparing them gives a mask (_mask.py).
"""
from __future__ import annotations

from ._core import fail


class IndexExpr:
    """const + sum coef_a * i_a over the axes of an index grid (nl.arange / nl.mgrid)."""

    def __init__(self, const, terms, sizes, ndim):
        self.const, self.terms, self.sizes, self.ndim = const, dict(terms), dict(sizes), ndim

    def __repr__(self):
        terms = " + ".join(f"{c}*i{a}[{self.sizes[a]}]" for a, c in sorted(self.terms.items()))
        return f"<nki index {terms or ''}{' + ' if terms else ''}{self.const}>"

    def __getitem__(self, key):
        # nl.arange(n)[:, None] / [None, :, None]: place the (single) grid axis.
        if not isinstance(key, tuple):
            key = (key,)
        if len(self.terms) != 1 or self.ndim != 1:
            fail("only a 1-D nl.arange can be reshaped with [:, None] / [None, :]")
        (axis, coef), = self.terms.items()
        pos = [i for i, k in enumerate(key) if k is not None]
        if len(pos) != 1:
            fail("index an nl.arange with exactly one ':' and None elsewhere")
        return IndexExpr(self.const, {pos[0]: coef}, {pos[0]: self.sizes[axis]}, len(key))

    def aligned(self, ndim):
        """This expression in a grid of `ndim` axes, its own axes the last ones: index
        grids of different rank line up from the right, as numpy broadcasts index arrays
        (an (F, S) grid beside a (P, F, 1) one is its last two axes)."""
        shift = ndim - self.ndim
        if shift <= 0:
            return self
        return IndexExpr(self.const, {a + shift: c for a, c in self.terms.items()},
                         {a + shift: n for a, n in self.sizes.items()}, ndim)

    def live_terms(self):
        return {a: c for a, c in self.terms.items() if c != 0}

    def _combine(self, o, sign):
        if isinstance(o, IndexExpr):
            if o.ndim != self.ndim:
                ndim = max(o.ndim, self.ndim)
                return self.aligned(ndim)._combine(o.aligned(ndim), sign)
            terms = dict(self.terms)
            sizes = dict(self.sizes)
            for a, c in o.terms.items():
                if a in sizes and sizes[a] != o.sizes[a]:
                    fail(f"index expressions disagree on the size of grid axis {a} "
                         f"({sizes[a]} and {o.sizes[a]})")
                terms[a] = terms.get(a, 0) + sign * c
                sizes[a] = o.sizes[a]
            return IndexExpr(self.const + sign * o.const, terms, sizes, max(self.ndim, o.ndim))
        return IndexExpr(self.const + sign * _int(o, "+/-"), self.terms, self.sizes, self.ndim)

    def __add__(self, o):
        return self._combine(o, 1)

    __radd__ = __add__

    def __sub__(self, o):
        return self._combine(o, -1)

    def __rsub__(self, o):
        return self.__neg__() + o

    def __neg__(self):
        return IndexExpr(-self.const, {a: -c for a, c in self.terms.items()}, self.sizes, self.ndim)

    def __mul__(self, k):
        if isinstance(k, IndexExpr):
            fail("the product of two index expressions is not affine (an access pattern "
                 "needs const + sum coef * index); multiply by a number")
        k = _int(k, "*")
        return IndexExpr(self.const * k, {a: c * k for a, c in self.terms.items()}, self.sizes,
                         self.ndim)

    __rmul__ = __mul__

    def range(self):
        """(lowest, highest) value over the grid."""
        lo = hi = self.const
        for a, c in self.terms.items():
            span = c * (self.sizes[a] - 1)
            lo += min(0, span)
            hi += max(0, span)
        return lo, hi

    _range = range

    def _compare(self, o, cmp):
        from ._mask import Mask

        return Mask.compare(self - o, cmp)

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

    def __bool__(self):
        fail("an index expression has no truth value in Python; pass a comparison as mask=")

    def as_index(self, location):
        """(int or slice, grid axis or None) for indexing one tensor dimension with a
        single increasing axis (the simple case; _tensor handles the general one)."""
        terms = self.live_terms()
        if not terms:
            return self.const, None
        if len(terms) != 1:
            fail("an index expression over two grid axes cannot index one dimension", location)
        (axis, coef), = terms.items()
        if coef <= 0:
            fail("index expressions must increase along their axis", location)
        size = self.sizes[axis]
        return slice(self.const, self.const + coef * (size - 1) + 1, coef), axis


def _int(x, what):
    try:
        if isinstance(x, bool):
            raise TypeError
        return int(x) if float(x) == int(x) else _bad(x, what)
    except (TypeError, ValueError):
        return _bad(x, what)


def _bad(x, what):
    fail(f"index arithmetic ({what}) takes integers and index expressions, not "
         f"{type(x).__name__} {x!r}")


def arange(*args):
    """nl.arange(start, stop, step): a 1-D index expression (NKI page
    nki.language.arange)."""
    r = range(*(_int(a, "nl.arange") for a in args))
    if r.step <= 0:
        fail("nl.arange needs a positive step")
    if len(r) == 0:
        fail(f"nl.arange{args} is empty")
    return IndexExpr(r.start, {0: r.step}, {0: len(r)}, 1)


class Grid(tuple):
    """The index expressions of an nl.mgrid, one per axis: unpack it
    (`i_p, i_f = nl.mgrid[...]`) or name its axes, `.p` the partition axis and `.x`,
    `.y`, `.z` the free axes in order (NKI page nki.language.mgrid)."""

    def _axis(self, k, name):
        if k >= len(self):
            fail(f"this nl.mgrid has {len(self)} axes: it has no .{name}")
        return self[k]

    @property
    def p(self):
        return self._axis(0, "p")

    @property
    def x(self):
        return self._axis(1, "x")

    @property
    def y(self):
        return self._axis(2, "y")

    @property
    def z(self):
        return self._axis(3, "z")


class _MGrid:
    """nl.mgrid[0:P, 0:F, ...] (NKI page nki.language.mgrid): an index grid, like
    numpy.mgrid, whose expressions index tensors and build masks."""

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        ranges = []
        for s in key:
            if not isinstance(s, slice) or s.stop is None:
                fail("nl.mgrid takes start:stop[:step] ranges, e.g. nl.mgrid[0:128, 0:512]")
            r = range(_int(s.start or 0, "nl.mgrid"), _int(s.stop, "nl.mgrid"),
                      _int(s.step or 1, "nl.mgrid"))
            if r.step <= 0 or len(r) == 0:
                fail(f"nl.mgrid range {s.start}:{s.stop}:{s.step} is empty or decreasing")
            ranges.append(r)
        # Dense, as numpy.mgrid: every expression spans the whole grid, so
        # nisa.iota(grid.p) is a [P, F] tile of row numbers, not a [P, 1] column.
        sizes = {i: len(r) for i, r in enumerate(ranges)}
        out = [IndexExpr(r.start, {i: r.step}, sizes, len(key)) for i, r in enumerate(ranges)]
        return Grid(out) if len(out) > 1 else out[0]


mgrid = _MGrid()


def ds(start, size):
    """nl.ds(start, size): the slice start:start+size (NKI page nki.language.ds). The
    start is a trace-time value here (an int, or an expression of loop indices, which are
    ints when tracing unrolls the loop)."""
    from ._tensor import Tensor

    if isinstance(start, Tensor):
        fail("nl.ds with a runtime start (a tensor) is not supported: neuronsim.nki builds "
             "every access pattern at trace time; use a loop index or an int as the start")
    if isinstance(start, IndexExpr):
        fail("nl.ds takes an int start, not an index expression; add the expression to the "
             "index instead (t[start + nl.arange(size)])")
    return slice(_int(start, "nl.ds"), _int(start, "nl.ds") + _int(size, "nl.ds"))
