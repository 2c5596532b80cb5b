"""aten ops -> neuronsim graph nodes (docs/graph.md), the one table that eager mode (one op
at a time) and compiled mode (a whole captured graph) both lower through (docs/torch.md,
"What is lowered and what is not").

A graph tensor is a torch tensor seen as rows: its leading dimensions flattened, as the
compiler tiles them (docs/compiler.md, `x.view(-1, x.shape[-1])`), so a view that keeps
the last dimension is the same graph tensor. Each lowering gets the op's arguments bound
by name (tensors as Values) and the op's output metadata, and returns the Value(s) of its
results; anything it cannot express raises Unsupported with the reason."""
import math

import torch

DTYPES = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


class Unsupported(Exception):
    """The op (or these arguments of it) has no lowering; the message says why."""


class Value:
    """A graph tensor: its graph name, torch shape and torch dtype."""
    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype


def rows(shape):
    """The graph shape of a torch shape: [prod(leading), last], [D] for 1-D, [1] for 0-D."""
    shape = tuple(shape)
    if len(shape) == 0:
        return [1]
    if len(shape) == 1:
        return [shape[0]]
    return [math.prod(shape[:-1]), shape[-1]]


def check_dtype(dtype, what):
    if dtype not in DTYPES:
        raise Unsupported("%s is %s; the device computes on float32, bfloat16 and float16 "
                          "tensors only" % (what, str(dtype).replace("torch.", "")))


class GraphBuilder:
    """A neuronsim graph being built: inputs, nodes, outputs, names made unique."""

    def __init__(self, name):
        self.name = name
        self.inputs, self.nodes = [], []
        self._used = set()
        self.shapes = {}  # tensor name -> its torch shape

    def _fresh(self, hint):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "t"
        if not base[0].isalpha():
            base = "t_" + base
        name, i = base, 1
        while name in self._used:
            name, i = "%s_%d" % (base, i), i + 1
        self._used.add(name)
        return name

    def input(self, hint, shape, dtype):
        check_dtype(dtype, "input '%s'" % hint)
        v = Value(self._fresh(hint), shape, dtype)
        self.shapes[v.name] = tuple(shape)
        self.inputs.append({"name": v.name, "dtype": DTYPES[dtype], "shape": rows(shape)})
        return v

    def add(self, op, args, shape, torch_dtype, hint=None, **attrs):
        check_dtype(torch_dtype, "the result")
        v = Value(self._fresh(hint or op), shape, torch_dtype)
        self.shapes[v.name] = tuple(shape)
        node = {"id": v.name, "op": op,
                "args": [a.name if isinstance(a, Value) else a for a in args]}
        node.update(attrs)
        self.nodes.append(node)
        return v

    def concat_columns(self):
        """{concat id: [(operand, first column, end column)]}: where each operand of a last-axis
        concat sits in its result (the compiler may have several launches write one concat
        in place, each its operand's columns, docs/compiler.md)."""
        out = {}
        for n in self.nodes:
            if n["op"] != "concat":
                continue
            at, parts = 0, []
            for a in n["args"]:
                w = self.shapes[a][-1]
                parts.append((a, at, at + w))
                at += w
            out[n["id"]] = parts
        return out

    def graph(self, outputs):
        return {"format": "neuronsim-graph", "version": 1, "name": self.name,
                "inputs": self.inputs, "nodes": self.nodes,
                "outputs": [v.name for v in outputs]}


def bind(func, args, kwargs):
    """The op's arguments by schema name, defaults filled in."""
    out = {}
    for i, a in enumerate(func._schema.arguments):
        if i < len(args):
            out[a.name] = args[i]
        elif a.name in kwargs:
            out[a.name] = kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out


def functional(func):
    """The out-of-place overload of an in-place aten op (add_.Tensor -> add.Tensor), or None:
    an in-place op is lowered as its functional form, its result copied into self."""
    name = func._schema.name
    if not name.startswith("aten::") or not name.endswith("_") or name.endswith("__"):
        return None
    packet = getattr(torch.ops.aten, name[len("aten::"):-1], None)
    return None if packet is None else getattr(packet, func._overloadname, None)


# --- checks the compiler's row model needs ---

def _last_dim(dim, ndim, what):
    if isinstance(dim, (list, tuple)):
        if len(dim) != 1:
            raise Unsupported("%s over %d dims; only the last dimension is lowered" % (what, len(dim)))
        dim = dim[0]
    if dim is None or ndim == 0 or dim % ndim != ndim - 1:
        raise Unsupported("%s along dim %s of a %d-D tensor; only the last dimension is "
                          "lowered (rows on partitions)" % (what, dim, ndim))


def _broadcastable(v, out_shape):
    """A binary op's operand is one of the compiler's cases (docs/graph.md): the result's
    shape, a row statistic [..., 1], a column vector (leading dims all 1), a scalar."""
    s, o = v.shape, tuple(out_shape)
    if s == o or len(s) == 0 or math.prod(s[:-1]) == 1:
        return
    if len(s) == len(o) and s[:-1] == o[:-1] and s[-1] == 1:
        return
    raise Unsupported("operand of shape %s broadcasts over a leading dimension of %s (the "
                      "compiler broadcasts a row statistic [..., 1], a column vector [D] or a "
                      "scalar only)" % (list(s), list(o)))


def _binary(op, a, b, out, b_first=False):
    for v in (a, b):
        if isinstance(v, Value):
            _broadcastable(v, out.shape)
    args = [b, a] if b_first else [a, b]
    return lambda g: g.add(op, args, out.shape, out.dtype)


# --- the table: aten op name -> lowering(g, a, out) ---

def _scaled(g, v, alpha, out):
    if alpha == 1:
        return v
    if not isinstance(v, Value):
        return v * alpha
    return g.add("mul", [v, alpha], v.shape, v.dtype)


def _add_like(op):
    def lower(g, a, out):
        other = _scaled(g, a["other"], a.get("alpha", 1), out)
        return _binary(op, a["self"], other, out)(g)
    return lower


def _plain_binary(op):
    return lambda g, a, out: _binary(op, a["self"], a["other"], out)(g)


def _unary(op):
    return lambda g, a, out: g.add(op, [a["self"]], out.shape, out.dtype)


def _reduction(op):
    def lower(g, a, out):
        x = a["self"]
        _last_dim(a["dim"], len(x.shape), "aten::%s" % op)
        if not a["keepdim"]:
            raise Unsupported("keepdim=False; the compiler's reductions keep the reduced "
                              "dimension (keepdim=True) so that they broadcast back over rows")
        if a.get("dtype") is not None:
            raise Unsupported("a dtype= argument")
        return g.add(op, [x], out.shape, out.dtype, dim=-1, keepdim=True)
    return lower


def _softmax(g, a, out):
    x = a["self"]
    _last_dim(a["dim"], len(x.shape), "aten::_softmax")
    if a["half_to_float"]:
        raise Unsupported("half_to_float=True")
    return g.add("softmax", [x], out.shape, out.dtype, dim=-1)


def _matmul2d(a_val, b_val):
    if len(a_val.shape) != 2 or len(b_val.shape) != 2:
        raise Unsupported("the compiler's matmul is 2-D ([M, K] @ [K, N])")
    if a_val.dtype != b_val.dtype:
        raise Unsupported("operands of two dtypes")


def _mm(g, a, out):
    _matmul2d(a["self"], a["mat2"])
    return g.add("matmul", [a["self"], a["mat2"]], out.shape, out.dtype)


def _addmm(g, a, out):
    _matmul2d(a["mat1"], a["mat2"])
    if a["beta"] != 1 or a["alpha"] != 1:
        raise Unsupported("beta or alpha other than 1")
    prod = g.add("matmul", [a["mat1"], a["mat2"]], out.shape, out.dtype)
    return _binary("add", prod, a["self"], out)(g)


def _pow(g, a, out):
    e = a["exponent"]
    if isinstance(e, Value):
        raise Unsupported("a tensor exponent")
    return g.add("pow", [a["self"], e], out.shape, out.dtype)


def _gelu(g, a, out):
    return g.add("gelu", [a["self"]], out.shape, out.dtype, approximate=a["approximate"])


def _rsub(g, a, out):
    other = a["other"]
    x = _scaled(g, a["self"], a.get("alpha", 1), out)
    if isinstance(other, Value):
        return _binary("sub", other, x, out)(g)
    return _binary("sub", x, other, out, b_first=True)(g)


def _neg(g, a, out):
    return g.add("mul", [a["self"], -1.0], out.shape, out.dtype)


def rms_norm_nodes(g, x, w, eps, shape, dtype):
    """x * rsqrt(mean(x^2, -1) + eps) * w, the naive RMSNorm's nodes (docs/graph.md)."""
    stat = tuple(shape[:-1]) + (1,)
    sq = g.add("pow", [x, 2], shape, dtype, "sq")
    ms = g.add("mean", [sq], stat, dtype, "ms", dim=-1, keepdim=True)
    ms_eps = g.add("add", [ms, eps], stat, dtype, "ms_eps")
    rstd = g.add("rsqrt", [ms_eps], stat, dtype, "rstd")
    xn = g.add("mul", [x, rstd], shape, dtype, "xn")
    return xn if w is None else g.add("mul", [xn, w], shape, dtype, "y")


def _layer_norm(g, a, out):
    x = a["input"]
    if len(a["normalized_shape"]) != 1:
        raise Unsupported("normalized over %d dims; only the last is lowered"
                          % len(a["normalized_shape"]))
    y, mean_o, rstd_o = out
    stat = mean_o.shape
    mean = g.add("mean", [x], stat, x.dtype, "mean", dim=-1, keepdim=True)
    xc = g.add("sub", [x, mean], x.shape, x.dtype, "xc")
    sq = g.add("pow", [xc, 2], x.shape, x.dtype, "sq")
    var = g.add("mean", [sq], stat, x.dtype, "var", dim=-1, keepdim=True)
    var_eps = g.add("add", [var, a["eps"]], stat, x.dtype, "var_eps")
    rstd = g.add("rsqrt", [var_eps], stat, x.dtype, "rstd")
    r = g.add("mul", [xc, rstd], x.shape, x.dtype, "xn")
    if a["weight"] is not None:
        r = g.add("mul", [r, a["weight"]], x.shape, x.dtype, "xw")
    if a["bias"] is not None:
        r = g.add("add", [r, a["bias"]], x.shape, x.dtype, "y")
    # The statistics are stored in x's dtype; PyTorch's meta kernel calls them float32 for
    # a bf16 x (its CPU kernel returns bf16): they come back widened to what it says.
    return r, Value(mean.name, stat, mean_o.dtype), Value(rstd.name, stat, rstd_o.dtype)


def _rms_norm(g, a, out):
    return rms_norm_nodes(g, a["x"], a["weight"], a["eps"], out.shape, out.dtype)


def _transpose(g, a, out):
    x = a["self"]
    if len(x.shape) != 2:
        raise Unsupported("a transpose of a %d-D tensor; the compiler transposes 2-D tensors"
                          % len(x.shape))
    return g.add("transpose", [x], out.shape, out.dtype)


def _slice(g, a, out):
    x = a["self"]
    if tuple(out.shape) == tuple(x.shape):  # x[:, ...]: the whole range, a view
        return Value(x.name, out.shape, out.dtype)
    _last_dim(a["dim"], len(x.shape), "aten::slice")
    if a["step"] != 1:
        raise Unsupported("step %d; the compiler slices contiguous ranges" % a["step"])
    n = x.shape[-1]
    start = 0 if a["start"] is None else a["start"]
    start = max(0, min(n, start + n if start < 0 else start))
    return g.add("slice", [x], out.shape, out.dtype, start=start, end=start + out.shape[-1],
                 dim=-1)


def _cat(g, a, out):
    xs = a["tensors"]
    _last_dim(a["dim"], len(out.shape), "aten::cat")
    return g.add("concat", list(xs), out.shape, out.dtype, dim=-1)


def _to_copy(g, a, out):
    """x.to(dtype) between float dtypes: the graph's `to` (a device kernel in eager mode)."""
    if a["device"] is not None and torch.device(a["device"]).type != "cpu":
        raise Unsupported("a copy to device %s" % a["device"])
    if a["dtype"] is None or a["dtype"] == a["self"].dtype:
        raise Unsupported("a copy without a dtype conversion")
    check_dtype(a["dtype"], "the target dtype")
    return g.add("to", [a["self"]], out.shape, out.dtype, dtype=DTYPES[out.dtype])


def _alias(g, a, out):
    """A view that keeps the last dimension is the same rows (compiled mode only)."""
    x = a["self"]
    if rows(x.shape)[-1] != rows(out.shape)[-1]:
        raise Unsupported("a view from %s to %s changes the last dimension (the graph format "
                          "has no reshape of the row length)" % (list(x.shape), list(out.shape)))
    return Value(x.name, out.shape, out.dtype)


LOWERINGS = {
    "aten::add.Tensor": _add_like("add"), "aten::add.Scalar": _add_like("add"),
    "aten::sub.Tensor": _add_like("sub"), "aten::sub.Scalar": _add_like("sub"),
    "aten::mul.Tensor": _plain_binary("mul"), "aten::mul.Scalar": _plain_binary("mul"),
    "aten::div.Tensor": _plain_binary("div"), "aten::div.Scalar": _plain_binary("div"),
    "aten::rsub.Scalar": _rsub, "aten::rsub.Tensor": _rsub,
    "aten::neg": _neg,
    "aten::pow.Tensor_Scalar": _pow,
    "aten::rsqrt": _unary("rsqrt"), "aten::sqrt": _unary("sqrt"), "aten::exp": _unary("exp"),
    "aten::reciprocal": _unary("reciprocal"), "aten::silu": _unary("silu"),
    "aten::log": _unary("log"), "aten::relu": _unary("relu"), "aten::sigmoid": _unary("sigmoid"),
    "aten::tanh": _unary("tanh"), "aten::sin": _unary("sin"), "aten::abs": _unary("abs"),
    "aten::gelu": _gelu,
    "aten::mean.dim": _reduction("mean"), "aten::sum.dim_IntList": _reduction("sum"),
    "aten::amax": _reduction("max"),
    "aten::_softmax": _softmax,
    "aten::mm": _mm, "aten::addmm": _addmm,
    "aten::bmm": _mm,  # per block (_blocks.lower_blocked): one matmul per batch entry
    "aten::native_layer_norm": _layer_norm,
    "neuronsim::rms_norm": _rms_norm,
    "aten::cat": _cat,
    "aten::_to_copy": _to_copy,
}

# Why some ops a user meets are not lowered (the message for any other op says only that).
NOT_LOWERED = {
    "aten::max.dim": "it returns int64 indices besides the values, which the device does not "
                     "compute (torch.amax(x, -1, keepdim=True) lowers)",
}


def no_lowering(op):
    return Unsupported(NOT_LOWERED.get(op, "neuronsim has no lowering of this op"))


# Views and metadata ops: no kernel in eager mode (a framework dispatch on the host, the
# result a view of CPU data, as on a device); in a compiled graph the layout ones lower to
# data movement (transpose, slice) and the rest alias their input's rows.
VIEW_LOWERINGS = {
    "aten::t": _transpose, "aten::transpose.int": _transpose,
    "aten::slice.Tensor": _slice,
    "aten::view": _alias, "aten::_unsafe_view": _alias, "aten::_reshape_alias": _alias,
    "aten::reshape": _alias, "aten::unsqueeze": _alias, "aten::squeeze.dim": _alias,
    "aten::squeeze": _alias, "aten::expand": _alias, "aten::alias": _alias,
    "aten::detach": _alias, "aten::clone": _alias, "aten::contiguous": _alias,
    "aten::lift_fresh": _alias,
}


def _expand_check(g, a, out):
    if tuple(a["self"].shape) != tuple(out.shape) and math.prod(a["self"].shape) != math.prod(out.shape):
        raise Unsupported("an expand that broadcasts (%s to %s); only shape-preserving expands "
                          "are lowered" % (list(a["self"].shape), list(out.shape)))
    return _alias(g, a, out)


VIEW_LOWERINGS["aten::expand"] = _expand_check
