"""N-D tensors over the row model (docs/torch.md, "N-D tensors: views and blocks").

A graph tensor is 2-D rows (_lowering.Value), so attention as PyTorch users write it
(`q.view(B, T, H, D).transpose(1, 2)`, `q @ k.transpose(-2, -1)`, `p @ v`, a [T, T] mask
broadcast over B and H, `o.transpose(1, 2).reshape(B, T, H * D)`) is lowered through two
symbolic forms that exist only in the lowering, never in the graph:

- `Blocks`: an N-D tensor (N >= 3) as a grid over its leading dimensions of 2-D graph
  tensors, t[i..., :, :] = grid[i...] (a head's scores, a batch's product). An op on it
  runs per block: one graph node per block (a bmm is one `matmul` per block, which the
  fused compiler takes into its attention kernel where the pattern is there).
- `View`: a strided view (torch's shape, stride, offset) of a source's elements in the
  source's row-major order; the source is a Value (its torch shape) or a Blocks (its grid
  shape + block shape). Views, transposes, permutes, expands and slices are stride
  arithmetic on it, done by PyTorch itself on a meta tensor, and make no graph node. When
  an op reads a View, each 2-D block it needs is a region of one source matrix, made with
  the graph's layout ops: a column range is a `slice`, a region read with its strides
  swapped a `transpose`, a row range other than all rows a `transpose`, `slice`,
  `transpose` (the graph slices only its last axis), and a reshape that merges the heads
  back into rows a `concat` of the blocks' columns (and of their rows through transposes,
  for more than one batch).

A view no region expresses (rows of another length than its source's, a step) raises
Unsupported naming the view op that made it."""
import math

import numpy as np
import torch

from .._shapes import row_major_strides
from ._lowering import Unsupported, Value, _last_dim


class Blocks:
    """grid: an object ndarray over shape[:-2] of 2-D Values [shape[-2], shape[-1]]."""
    __slots__ = ("grid", "shape", "dtype")

    def __init__(self, grid, dtype):
        self.grid = grid
        self.shape = tuple(grid.shape) + tuple(grid.flat[0].shape)
        self.dtype = dtype


class View:
    """src (a Value or Blocks) seen through torch strides over its row-major elements;
    origin names the view op that made it and the shapes, for errors."""
    __slots__ = ("src", "shape", "stride", "offset", "dtype", "origin")

    def __init__(self, src, shape, stride, offset, origin):
        self.src, self.shape, self.stride = src, tuple(shape), tuple(stride)
        self.offset, self.dtype, self.origin = offset, src.dtype, origin


def is_symbolic(x):
    return isinstance(x, (View, Blocks))


class _Out:
    """The shape and dtype a per-block lowering sees as its op's output."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype


def _view_of(x):
    """x as a View of itself (row-major)."""
    if isinstance(x, View):
        return x
    return View(x, x.shape, row_major_strides(x.shape), 0, None)


# --- regions of a source: the graph's layout ops, made once per graph ---

def _memo(g):
    if not hasattr(g, "_regions"):
        g._regions = {}
    return g._regions


def _as2d(v, r, c):
    return v if tuple(v.shape) == (r, c) else Value(v.name, (r, c), v.dtype)


def _transpose(g, v):
    key = ("t", v.name)
    m = _memo(g)
    if key not in m:
        r, c = v.shape
        m[key] = g.add("transpose", [v], (c, r), v.dtype, v.name + "_t")
    return m[key]


def _col_slice(g, v, c0, c1):
    r, c = v.shape
    if (c0, c1) == (0, c):
        return v
    key = ("s", v.name, c0, c1)
    m = _memo(g)
    if key not in m:
        m[key] = g.add("slice", [v], (r, c1 - c0), v.dtype, v.name + "_c", start=c0, end=c1,
                       dim=-1)
    return m[key]


def _row_range(g, v, r0, r1):
    """Rows r0..r1 of 2-D v: the graph slices the last axis only, so through transposes."""
    r, c = v.shape
    if (r0, r1) == (0, r):
        return v
    return _transpose(g, _col_slice(g, _transpose(g, v), r0, r1))


def _col_cat(g, vs):
    if len(vs) == 1:
        return vs[0]
    r = vs[0].shape[0]
    return g.add("concat", list(vs), (r, sum(v.shape[1] for v in vs)), vs[0].dtype, "cat",
                 dim=-1)


def _row_cat(g, vs):
    if len(vs) == 1:
        return vs[0]
    return _transpose(g, _col_cat(g, [_transpose(g, v) for v in vs]))


def _source(view, off):
    """(2-D source Value [R, C], the offset within it, the source element limit)."""
    src = view.src
    if isinstance(src, Blocks):
        m, n = src.shape[-2:]
        b, local = divmod(off, m * n)
        return _as2d(src.grid.flat[b], m, n), local
    shape = tuple(src.shape)
    r, c = (math.prod(shape[:-1]), shape[-1]) if len(shape) >= 1 else (1, 1)
    return _as2d(src, r, c), off


def _why(view, what):
    origin = (" made by %s" % view.origin) if view.origin else ""
    return Unsupported("a view%s %s; the graph format has no reshape of the last dimension "
                       "(a region of rows of its source is a slice or a transpose, nothing "
                       "else)" % (origin, what))


def _region(g, view, off, nr, sr, nc, sc):
    """The [nr, nc] matrix view[off + i sr + j sc] as a graph Value of one source matrix."""
    s, local = _source(view, off)
    rows, cols = s.shape
    r0, c0 = divmod(local, cols)
    if (sc == 1 or nc == 1) and (sr == cols or nr == 1) and c0 + nc <= cols:
        if r0 + nr <= rows:
            return _col_slice(g, _row_range(g, s, r0, r0 + nr), c0, c0 + nc)
        if isinstance(view.src, Blocks):  # rows running on into the next blocks
            top = rows - r0
            return _row_cat(g, [_region(g, view, off, top, sr, nc, sc),
                                _region(g, view, off + top * sr, nr - top, sr, nc, sc)])
    if (sr == 1 or nr == 1) and (sc == cols or nc == 1) and r0 + nc <= rows and c0 + nr <= cols:
        return _transpose(g, _col_slice(g, _row_range(g, s, r0, r0 + nc), c0, c0 + nr))
    raise _why(view, "reads [%d, %d] elements with strides (%d, %d) of rows %d long"
               % (nr, nc, sr, sc, cols))


def as_blocks(g, x):
    """x (N-D, N >= 3) as Blocks: each 2-D block a region of its source."""
    if isinstance(x, Blocks):
        return x
    v = _view_of(x)
    lead = v.shape[:-2]
    grid = np.empty(lead, dtype=object)
    for idx in np.ndindex(*lead):
        off = v.offset + sum(i * s for i, s in zip(idx, v.stride))
        grid[idx] = _region(g, v, off, v.shape[-2], v.stride[-2], v.shape[-1], v.stride[-1])
    return Blocks(grid, x.dtype)


def as_rows(g, x, shape=None):
    """x as a rows Value of torch shape `shape` (default x's): the row-major elements of x
    reshaped, rows = shape's leading dims, columns its last, which must be a product of
    x's trailing dims (heads merged back: [B, T, H, D] -> [B, T, H*D])."""
    shape = tuple(x.shape if shape is None else shape)
    if isinstance(x, Value):
        if len(shape) and len(x.shape) and shape[-1] != x.shape[-1]:
            x = _view_of(x)
        else:
            return Value(x.name, shape, x.dtype)
    v = _view_of(x)
    n, want = len(v.shape), shape[-1] if shape else 1
    if n == 0:
        raise _why(v, "of no dimensions")
    k = n
    while k > 0 and math.prod(v.shape[k:]) < want:
        k -= 1
    if math.prod(v.shape[k:]) != want or k == 0:
        raise _why(v, "from %s to %s splits its last dimension"
                   % (list(v.shape), list(shape)))
    outer, rdim, pieces = v.shape[:k - 1], k - 1, v.shape[k:-1]
    parts = []
    for oi in np.ndindex(*outer):
        base = v.offset + sum(i * s for i, s in zip(oi, v.stride))
        cols = []
        for pi in np.ndindex(*pieces):
            off = base + sum(i * s for i, s in zip(pi, v.stride[k:-1]))
            cols.append(_region(g, v, off, v.shape[rdim], v.stride[rdim], v.shape[-1],
                                v.stride[-1]))
        parts.append(_col_cat(g, cols))
    r = _row_cat(g, parts)
    return Value(r.name, shape, x.dtype)


# --- views (compiled mode): stride arithmetic by PyTorch on a meta tensor ---

_IDENTITY = {"aten::clone", "aten::contiguous", "aten::alias", "aten::detach",
             "aten::lift_fresh"}
_RESHAPES = {"aten::view", "aten::_unsafe_view", "aten::_reshape_alias", "aten::reshape"}


def view_op(g, op, func, x, rest, kwargs, out):
    """The result of view op `func` (named `op`) on x (Value, View or Blocks): a View, or
    x's Value when the view keeps its rows; a reshape no strides express materialises."""
    if op in _IDENTITY:
        return x
    v = _view_of(x)
    numel = math.prod(v.src.shape)
    mt = torch.empty(numel, device="meta", dtype=out.dtype).as_strided(v.shape, v.stride, v.offset)
    origin = "%s (%s to %s)" % (op, list(x.shape), list(out.shape))
    if op in _RESHAPES:
        try:
            r = mt.view(list(out.shape))
        except RuntimeError:  # not a view of these strides: the elements, reshaped
            return as_rows(g, v, out.shape)
    else:
        r = func(mt, *rest, **kwargs)
    res = View(v.src, r.shape, r.stride(), r.storage_offset(), v.origin or origin)
    src = v.src
    if (isinstance(src, Value) and res.offset == 0 and tuple(res.shape) and
            res.stride == row_major_strides(res.shape) and math.prod(res.shape) == numel and
            len(src.shape) and res.shape[-1] == src.shape[-1]):
        return Value(src.name, res.shape, src.dtype)  # the same rows
    return res


# --- ops on N-D tensors: per block ---

BLOCK_ONLY = {"aten::bmm"}  # ops the row model runs per block only


def needs_blocks(op, args, out):
    """Whether op's lowering runs per block: a symbolic operand, a bmm, or a 3-D+ result
    that an operand broadcasts into over a leading dimension."""
    flat = []
    for a in args.values():
        flat += list(a) if isinstance(a, (list, tuple)) else [a]
    tensors = [a for a in flat if isinstance(a, (Value, View, Blocks))]
    if any(is_symbolic(a) for a in tensors):
        return True
    if not isinstance(out, (torch.Tensor, _Out)) or len(out.shape) < 3:
        return False
    if op in BLOCK_ONLY:
        return True
    return any(_over_leading(t.shape, out.shape) for t in tensors)


def _over_leading(s, o):
    """Whether an operand of shape s broadcasts into a result of shape o over a leading
    dimension ([T, D] into [B, H, T, D]; not a column [D] or a scalar, which rows take)."""
    s, o = tuple(s), tuple(o)
    if len(s) == 0 or math.prod(s[:-1]) == 1:
        return False
    s = (1,) * (len(o) - len(s)) + s
    return any(a == 1 and b > 1 for a, b in zip(s[:-1], o[:-1]))


def _block_of(b, idx, lead):
    """The block of operand b at idx of the result's leading shape `lead`."""
    if isinstance(b, Blocks):
        grid = np.broadcast_to(b.grid, lead) if b.grid.shape != lead else b.grid
        return grid[idx]
    return b  # a Value of 2 or fewer dims: the same for every block


def lower_blocked(g, op, lower, a, out):
    """Lowers op per block: every N-D operand as Blocks (broadcast over the result's leading
    dims), the result a Blocks; with a 2-D or smaller result, symbolic operands as rows."""
    if not isinstance(out, (torch.Tensor, _Out)):
        raise Unsupported("an op with several results on N-D views or blocks")
    n = len(out.shape)
    if n < 3:
        b = {k: ([as_rows(g, x) if is_symbolic(x) else x for x in v]
                 if isinstance(v, (list, tuple)) else (as_rows(g, v) if is_symbolic(v) else v))
             for k, v in a.items()}
        return lower(g, b, out)
    lead = tuple(out.shape[:-2])
    a = dict(a)
    if a.get("dim") is not None:
        _last_dim(a["dim"], n, op)  # the last dim of the whole tensor, not of a block
        a["dim"] = [-1] if isinstance(a["dim"], (list, tuple)) else -1

    def blocks(x):
        if isinstance(x, Value) and len(x.shape) <= 2:
            return x
        if isinstance(x, (Value, View, Blocks)):
            if len(x.shape) > n:
                raise Unsupported("an operand of more dims than the result")
            if len(x.shape) < 3:
                return as_rows(g, x)
            return as_blocks(g, x)
        return x
    b = {k: ([blocks(x) for x in v] if isinstance(v, (list, tuple)) else blocks(v))
         for k, v in a.items()}
    grid = np.empty(lead, dtype=object)
    block_out = _Out(out.shape[-2:], out.dtype)
    for idx in np.ndindex(*lead):
        ai = {k: ([_block_of(x, idx, lead) for x in v] if isinstance(v, (list, tuple))
                  else _block_of(v, idx, lead)) for k, v in b.items()}
        res = lower(g, ai, block_out)
        if not isinstance(res, Value):
            raise Unsupported("an op with several results on N-D blocks")
        grid[idx] = res
    return Blocks(grid, out.dtype)
