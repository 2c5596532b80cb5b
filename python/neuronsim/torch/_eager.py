"""Eager mode (docs/torch.md): inside `with neuronsim.torch.device("trn2"):` a
TorchDispatchMode sees every aten op on the user's (ordinary CPU) tensors. An op with a
lowering becomes one small graph, compiled once per shape (one node: the compiler's eager
kernel, exactly `neuronsim compile --mode eager`'s; several nodes: one fused kernel) and run
as launches on the runtime; views and metadata ops are host work only; factories make
their tensors on the host; anything else fails naming the op and the Python line, or runs
on the CPU with fallback=True (counted, reported)."""
import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import Error
from . import _blocks, _program
from ._lines import user_line
from ._rms_norm import hand_kernel
from ._lowering import (LOWERINGS, VIEW_LOWERINGS, GraphBuilder, Unsupported, Value, bind,
                        functional, no_lowering)
from ._runtime import Runtime, pop_runtime, push_runtime

# Ops whose result is no computation on a device tensor: views/metadata (VIEW_LOWERINGS)
# and the ones below, run as they are on the host.
_HOST_OPS = set(VIEW_LOWERINGS) | {
    "aten::select.int", "aten::permute", "aten::as_strided", "aten::split.Tensor",
    "aten::split_with_sizes", "aten::unbind.int", "aten::chunk", "aten::narrow",
}


def op_name(func):
    return func._schema.name + ("." + func._overloadname if func._overloadname != "default" else "")


def profiler_name(name):
    """An op's name as torch.profiler's key_averages shows it: the schema name without the
    overload (aten::mul.Tensor -> aten::mul; torch 1.13 on the CPU), in every record."""
    return name.split(".", 1)[0]


def _column_slice(t):
    """(base, [("slice", start, end)]) when 2-D t is a column range of contiguous rows in its
    storage (x[:, a:b] of a [R, C] tensor: strides (C, 1)), base that [R, C] block; (t, [])
    when t is contiguous; else None. (Below autograd, where dispatch modes run, views carry
    no _base: the block is found from the strides.)"""
    if t.is_contiguous():
        return t, []
    if t.dim() != 2 or t.stride(1) != 1:
        return None
    c = t.stride(0)
    col0 = t.storage_offset() % c
    start = t.storage_offset() - col0
    if c <= t.shape[1] or col0 + t.shape[1] > c or start + t.shape[0] * c > t.storage().size():
        return None
    base = t.as_strided((t.shape[0], c), (c, 1), start)
    return base, [("slice", col0, col0 + t.shape[1])]


def _matmul_view(t, transpose_ok):
    """How a matmul operand is read from the tensor it views: (base, steps) or None."""
    if t.dim() != 2 or t.is_contiguous():
        return None
    direct = _column_slice(t)
    if direct is not None:
        return direct
    if transpose_ok:
        under = _column_slice(t.t())
        if under is not None:
            return under[0], under[1] + [("transpose",)]
    return None


class _Eager(TorchDispatchMode):
    def __init__(self, rt):
        super().__init__()
        self.rt = rt

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = op_name(func)
        flat, _ = tree_flatten((args, kwargs))
        tensors = [a for a in flat if isinstance(a, torch.Tensor)]
        if name in _HOST_OPS or not tensors:
            # a view/metadata op, or a factory (no tensor in): host work, CPU data
            self.rt.host_op(profiler_name(name), user_line())
            return func(*args, **kwargs)
        line = user_line()
        try:
            pure = functional(func)
            if pure is None:
                return self._launch(func, name, args, kwargs, line)
            out = self._launch(pure, name, args, kwargs, line)  # then written into self
            args[0].copy_(out)
            return args[0]
        except Unsupported as e:
            if not self.rt.fallback:
                raise Error("%s: %s: not lowered to the device: %s (neuronsim.torch.device("
                            "fallback=True) runs it on the CPU)" % (line, name, e)) from None
            self.rt.fallback_op(profiler_name(name), line, [list(t.shape) for t in tensors],
                                [str(t.dtype).replace("torch.", "") for t in tensors])
            return func(*args, **kwargs)

    def _launch(self, func, name, args, kwargs, line):
        if name == "neuronsim::rms_norm":
            x, w, eps = bind(func, args, kwargs).values()
            k = hand_kernel(x, w, eps, self.rt.target)
            if k is not None:
                return self._hand(k, x, w, name, line)
        lower = LOWERINGS.get(op_name(func))
        if lower is None:
            raise no_lowering(name)
        out = func(*_meta(args), **_meta(kwargs))  # shapes and dtypes of the results
        outs, out_spec = tree_flatten(out)
        g = GraphBuilder(name.replace("::", "_").replace(".", "_"))
        arrays, shapes, dtypes = {}, [], []
        bound = bind(func, args, kwargs)

        matmul_operands = {"aten::mm": ("self", "mat2"), "aten::bmm": ("self", "mat2"),
                           "aten::addmm": ("mat1", "mat2")}.get(func._schema.name, ())
        # An op on N-D tensors that the rows cannot take whole (a bmm; an operand broadcast
        # over a leading dimension, a [T, T] mask over [B, H, T, T]) runs per block: each
        # N-D operand a grid of 2-D inputs, one per leading index (views of its storage:
        # the device reads the same bytes), the result a block per index (docs/torch.md).
        per_block = len(outs) == 1 and _blocks.needs_blocks(
            name, {k: Value("", tuple(t.shape), t.dtype) for k, t in _tensor_args(bind(func, args, kwargs))},
            outs[0])

        def array(t):  # timing only: no data moves, so none is converted
            return None if self.rt.timing_only else _program.to_array(t)

        def operand(t, arg, hint=None):
            hint = hint or arg
            shapes.append(list(t.shape))
            dtypes.append(str(t.dtype).replace("torch.", ""))
            # A matmul reads its operands through the views the fused compiler takes into
            # a GEMM for free (docs/compiler.md, "Operands through views"): a column slice
            # of A or B, B transposed (Linear's w.t(), attention's k_h.t()), from the
            # tensor the view is of. Other non-contiguous operands are read as contiguous.
            chain = _matmul_view(t, arg == "mat2") if arg in matmul_operands else None
            if chain is not None:
                base, steps = chain
                v = g.input(hint, tuple(base.shape), base.dtype)
                arrays[v.name] = array(base)
                for step in steps:
                    if step[0] == "slice":
                        shape = tuple(v.shape[:-1]) + (step[2] - step[1],)
                        v = g.add("slice", [v], shape, t.dtype, hint + "_s", start=step[1],
                                  end=step[2], dim=-1)
                    else:
                        v = g.add("transpose", [v], tuple(reversed(v.shape)), t.dtype, hint + "_t")
                return v
            v = g.input(hint, tuple(t.shape), t.dtype)
            arrays[v.name] = array(t)
            return v

        def blocks(t, arg):
            grid = np.empty(tuple(t.shape[:-2]), dtype=object)
            for idx in np.ndindex(*grid.shape):
                grid[idx] = operand(t[idx], arg, "%s_%s" % (arg, "_".join(map(str, idx))))
            return _blocks.Blocks(grid, t.dtype)

        vals = {}
        for arg, a in bound.items():
            if isinstance(a, torch.Tensor) and per_block and a.dim() >= 3:
                vals[arg] = blocks(a, arg)
            elif isinstance(a, torch.Tensor):
                vals[arg] = operand(a, arg)
            elif isinstance(a, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in a):
                vals[arg] = [blocks(x, "%s%d" % (arg, i)) if per_block and x.dim() >= 3
                             else operand(x, "%s%d" % (arg, i)) for i, x in enumerate(a)]
            else:
                vals[arg] = a
        metas = [o for o in outs]
        if per_block:
            res = _blocks.lower_blocked(g, name, lower, vals, metas[0])
            if isinstance(res, _blocks.Blocks):
                return self._run_blocks(g, res, metas[0], arrays, shapes, dtypes, name, line)
        else:
            res = lower(g, vals, metas[0] if len(metas) == 1 else metas)
        res = res if isinstance(res, tuple) else (res,)
        for v, m in zip(res, metas):
            if not isinstance(v, Value) or tuple(v.shape) != tuple(m.shape) or v.dtype != m.dtype:
                raise Unsupported("its result (%s %s) is not the lowered graph's"
                                  % (list(m.shape), m.dtype))
        if any(v.name in {i["name"] for i in g.inputs} for v in res):
            raise Unsupported("its result is its input (no computation)")
        values = self._run(g, list(res), arrays, shapes, dtypes, name, line)
        results = [_program.to_tensor(values[v.name], m.shape, m.dtype) for v, m in zip(res, metas)]
        return tree_unflatten(results, out_spec)

    def _run(self, g, res, arrays, shapes, dtypes, name, line):
        graph = g.graph(res)
        try:
            prog = _program.program(graph, "eager" if len(g.nodes) == 1 else "fused",
                                    self.rt.target)
        except Error as e:
            raise Unsupported("the compiler refused it: %s" % e) from None
        return _program.run(self.rt, prog, arrays, profiler_name(name), line,
                            lambda k: (shapes, dtypes))

    def _run_blocks(self, g, res, meta, arrays, shapes, dtypes, name, line):
        """Runs a per-block lowering; the result tensor is its blocks stacked (each block
        written to its place in the output's storage, as a device kernel writes it). The
        blocks of a row op share one program: one kernel, or several where one would need
        more semaphores than the core has (the compiler splits it, docs/compiler.md)."""
        blocks = list(res.grid.flat)
        sub = _subgraph(g, blocks)
        try:
            prog = _program.program(sub.graph(blocks), "eager" if len(sub.nodes) == 1
                                    else "fused", self.rt.target)
        except Error as e:
            raise Unsupported("the compiler refused it: %s" % e) from None
        used = {i["name"] for i in sub.inputs}
        values = _program.run(self.rt, prog, {k: v for k, v in arrays.items() if k in used},
                              profiler_name(name), line, lambda k: (shapes, dtypes))
        parts = [_program.to_tensor(values[v.name], v.shape, meta.dtype) for v in blocks]
        return torch.stack(parts).reshape(meta.shape)

    def _hand(self, k, x, w, name, line):
        arrays = None if self.rt.timing_only else {"x": _program.to_array(x),
                                                   "w": _program.to_array(w)}
        shapes = [list(x.shape), list(w.shape)]
        dtypes = [str(x.dtype).replace("torch.", "")] * 2
        out = self.rt.launch(k, arrays, profiler_name(name), line, shapes, dtypes,
                             self.rt.new_call())
        return _program.to_tensor(out["y"], x.shape, x.dtype)


def _subgraph(g, outputs):
    """The part of GraphBuilder g that computes `outputs`: their nodes and inputs."""
    need = {v.name for v in outputs}
    nodes = []
    for n in reversed(g.nodes):
        if n["id"] in need:
            nodes.append(n)
            need.update(a for a in n["args"] if isinstance(a, str))
    sub = GraphBuilder(g.name)
    sub.nodes = list(reversed(nodes))
    sub.inputs = [i for i in g.inputs if i["name"] in need]
    return sub


def _tensor_args(bound):
    """(name, tensor) of every tensor argument, a list's entries as name0, name1, ..."""
    for k, v in bound.items():
        if isinstance(v, torch.Tensor):
            yield k, v
        elif isinstance(v, (list, tuple)):
            for i, t in enumerate(v):
                if isinstance(t, torch.Tensor):
                    yield "%s%d" % (k, i), t


def _meta(tree):
    flat, spec = tree_flatten(tree)
    return tree_unflatten([a.to("meta") if isinstance(a, torch.Tensor) else a for a in flat], spec)


class device:
    """`with neuronsim.torch.device("trn2"):` runs every aten op on ordinary torch tensors
    on a simulated NeuronCore of the target (docs/torch.md, "Eager mode"). fallback=True
    runs ops that are not lowered on the CPU (counted: .runtime.fallback_ops);
    timing_only=True computes nothing (outputs are zeros of the right shape and dtype)."""

    def __init__(self, target="trn2", fallback=False, timing_only=False, overrides=None):
        self.runtime = Runtime(target, fallback=fallback, timing_only=timing_only,
                               overrides=overrides)
        self._mode = None

    def __enter__(self):
        push_runtime(self.runtime)
        self._mode = _Eager(self.runtime)
        self._mode.__enter__()
        return self.runtime

    def __exit__(self, *exc):
        self._mode.__exit__(*exc)
        pop_runtime(self.runtime)
        return False
