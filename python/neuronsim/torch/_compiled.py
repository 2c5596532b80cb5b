"""Compiled mode (docs/torch.md): neuronsim.torch.compile(fn_or_module) captures the aten
graph of a call as a torch.fx.Graph (each node with its Python line), lowers it whole
through _lowering's table and compiles it with the fused compiler (docs/compiler.md), and
runs the launch sequence on a Runtime. One capture and compilation per input signature
(shapes and dtypes), as torch.compile re-traces on new shapes.

Capture runs the function once on meta tensors under a dispatch mode that records each
aten op (the meta results give every shape); tensors it meets that are not its inputs
(a module's parameters and buffers, tensors made outside) become graph inputs read at
each call. A Python decision on a tensor's value (`if x.sum() > 0:`) needs data the
capture does not have: an error naming the op and the line."""
import operator

import torch
from torch.fx import Graph, GraphModule
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

from .. import Error
from . import _blocks, _program
from ._eager import op_name
from ._lines import user_line
from ._lowering import (LOWERINGS, VIEW_LOWERINGS, GraphBuilder, Unsupported, Value, bind,
                        functional, no_lowering)
from ._runtime import Runtime, current_runtime, pop_runtime, push_runtime

# Ops through which Python reads a tensor's value: data-dependent control flow.
_DATA_DEPENDENT = {"aten::_local_scalar_dense", "aten::is_nonzero", "aten::item",
                   "aten::equal", "aten::nonzero"}


class _Capture(TorchDispatchMode):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.nodes = {}  # id(tensor) -> (tensor, fx node)
        self.constants = []  # (placeholder name, real tensor)

    def node_of(self, t):
        hit = self.nodes.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        if t.device.type == "meta":
            raise Error("%s: a meta tensor the capture did not make" % user_line())
        n = self.graph.placeholder("const_%d" % len(self.constants))
        n.meta["python_line"] = user_line()
        with no_dispatch():
            n.meta["val"] = t.to("meta")
        self.constants.append((n.name, t))
        self.nodes[id(t)] = (t, n)
        return n

    def bind_tensor(self, t, n):
        self.nodes[id(t)] = (t, n)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        line = user_line()
        name = op_name(func)
        if name in _DATA_DEPENDENT:
            raise Error("%s: %s: dynamic control flow: Python reads a tensor's value while "
                        "neuronsim.torch.compile captures the graph (its values are not known "
                        "then); compute both branches with tensor ops, or run this part eagerly"
                        % (line, name))
        flat, _ = tree_flatten((args, kwargs))
        if not any(isinstance(a, torch.Tensor) for a in flat):
            with no_dispatch():  # a factory: a constant of the graph
                return func(*args, **kwargs)
        fx_args = tree_map(lambda a: self.node_of(a) if isinstance(a, torch.Tensor) else a, args)
        fx_kwargs = tree_map(lambda a: self.node_of(a) if isinstance(a, torch.Tensor) else a, kwargs)
        meta = lambda a: a if not isinstance(a, torch.Tensor) or a.device.type == "meta" else a.to("meta")
        with no_dispatch():
            out = func(*tree_map(meta, args), **tree_map(meta, kwargs))
        node = self.graph.call_function(func, tuple(fx_args), dict(fx_kwargs))
        node.meta["python_line"] = line
        node.meta["val"] = out
        if isinstance(out, torch.Tensor):
            self.bind_tensor(out, node)
        else:
            for i, o in enumerate(out):
                item = self.graph.call_function(operator.getitem, (node, i))
                item.meta["python_line"] = line
                item.meta["val"] = o
                if isinstance(o, torch.Tensor):
                    self.bind_tensor(o, item)
        return out


def capture(fn, args, name):
    """(GraphModule, constants, the output structure) of fn(*args) with tensor args."""
    graph = Graph()
    cap = _Capture(graph)
    metas = []
    for i, a in enumerate(args):
        if not isinstance(a, torch.Tensor):
            raise Error("neuronsim.torch.compile(%s): argument %d is %s; compiled functions take "
                        "tensors" % (name, i, type(a).__name__))
        with no_dispatch():
            m = a.to("meta")
        n = graph.placeholder("arg_%d" % i)
        n.meta["val"] = m
        n.meta["python_line"] = ""
        cap.bind_tensor(m, n)
        metas.append(m)
    with cap:
        result = fn(*metas)
    leaves, spec = tree_flatten(result)
    out_nodes = []
    for leaf in leaves:
        if not isinstance(leaf, torch.Tensor):
            raise Error("neuronsim.torch.compile(%s): the function returns %s; compiled "
                        "functions return tensors" % (name, type(leaf).__name__))
        out_nodes.append(cap.node_of(leaf))
    graph.output(tuple(out_nodes))
    constants = _lay_out_transposed_constants(graph, cap.constants)
    return GraphModule(torch.nn.Module(), graph, name), constants, spec


def _is_2d_transpose(n):
    if n.op != "call_function" or len(n.args[0].meta["val"].shape) != 2:
        return False
    op = op_name(n.target)
    if op == "aten::t":
        return True
    if op == "aten::transpose.int":
        return {d % 2 for d in n.args[1:3]} == {0, 1}
    return False


def _lay_out_transposed_constants(graph, constants):
    """A constant the graph reads only transposed (nn.Linear's [out, in] weight, which
    F.linear reads as weight.t()) is handed to the kernels transposed instead: the layout
    of a model's parameters is the compiler's to choose, as neuronx-cc lays weights out
    when it compiles a model. The host transposes it once per version of the parameter
    (Compiled._array caches it); the graph then reads it as it is, not through a transpose
    the kernel would pay for at every call (a DMA transpose of 32 MiB for a [4096, 4096]
    bf16 weight that does not fit in SBUF)."""
    out = []
    placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
    for pname, t in constants:
        n = placeholders[pname]
        users = list(n.users)
        if users and t.dim() == 2 and all(_is_2d_transpose(u) and u.users and
                                          all(w.op == "call_function" for w in u.users)
                                          for u in users):
            laid_out = t.detach().t()  # a view: shares the parameter's version counter
            with no_dispatch():
                n.meta["val"] = laid_out.to("meta")
            for u in users:
                u.replace_all_uses_with(n)
                graph.erase_node(u)
            t = laid_out
        out.append((pname, t))
    return out


def lower_graph(gm, name):
    """The fx graph as a neuronsim graph: (graph dict, {placeholder: Value}, output Values)."""
    g = GraphBuilder(name)
    vals, inputs = {}, {}
    for n in gm.graph.nodes:
        line = n.meta.get("python_line", "")
        if n.op == "placeholder":
            m = n.meta["val"]
            try:
                vals[n] = inputs[n.name] = g.input(n.name, tuple(m.shape), m.dtype)
            except Unsupported as e:
                raise Error("%s: graph input '%s': %s" % (line or name, n.name, e)) from None
        elif n.op == "output":
            outs = []
            for a in n.args[0]:
                try:
                    outs.append(_blocks.as_rows(g, vals[a], tuple(a.meta["val"].shape)))
                except Unsupported as e:
                    raise Error("%s: output '%s': not lowered: %s"
                                % (a.meta.get("python_line", "") or name, a.name, e)) from None
        elif n.target is operator.getitem:
            vals[n] = vals[n.args[0]][n.args[1]]
        else:
            op = op_name(n.target)
            target = functional(n.target) or n.target
            lower = LOWERINGS.get(op_name(target)) or VIEW_LOWERINGS.get(op_name(target))
            try:
                if lower is None and op_name(target) not in SYMBOLIC_VIEWS:
                    raise no_lowering(op)
                if target is not n.target and n.args[0].op == "placeholder":
                    raise Unsupported("it writes into '%s', an input of the graph (a compiled "
                                      "call does not change its inputs)" % n.args[0].name)
                args = tree_map(lambda x: vals.get(x, x) if isinstance(x, torch.fx.Node) else x, n.args)
                kwargs = tree_map(lambda x: vals.get(x, x) if isinstance(x, torch.fx.Node) else x, n.kwargs)
                a = bind(target, args, kwargs)
                m = n.meta["val"]
                out = m if isinstance(m, torch.Tensor) else list(m)
                res = _lower_node(g, op_name(target), target, lower, a, args, kwargs, out)
            except Unsupported as e:
                raise Error("%s: node '%s' (%s): not lowered: %s" % (line, n.name, op, e)) from None
            vals[n] = res
    return g, inputs, outs


# View ops lowered as stride arithmetic only (_blocks.view_op): no graph node of their own.
SYMBOLIC_VIEWS = set(VIEW_LOWERINGS) | {"aten::permute", "aten::select.int"}


def _lower_node(g, op, target, lower, a, args, kwargs, out):
    """One node: a view op on rows through the table (a 2-D transpose, a last-axis slice,
    a view that keeps the rows), else as a symbolic view; a compute op through the table,
    per block when an operand is N-D (docs/torch.md, "N-D tensors: views and blocks")."""
    if op in SYMBOLIC_VIEWS:
        x = args[0]
        if lower is not None and isinstance(x, Value):
            try:
                return lower(g, a, out)
            except Unsupported:
                pass  # not one the rows express: a symbolic view
        return _blocks.view_op(g, op, target, x, args[1:], kwargs, out)
    if _blocks.needs_blocks(op, a, out):
        return _blocks.lower_blocked(g, op, lower, a, out)
    return lower(g, a, out)


class Compiled:
    """The callable neuronsim.torch.compile returns; .runtime is its own Runtime (used when
    it is called outside any neuronsim.torch.device context)."""

    def __init__(self, fn, target, timing_only, overrides):
        self.fn = fn
        self.name = getattr(fn, "__name__", None) or type(fn).__name__
        self.name = "".join(c if c.isalnum() or c == "_" else "_" for c in self.name)
        self.target = target
        self.runtime = Runtime(target, timing_only=timing_only, overrides=overrides)
        self._compiled = {}  # input signature -> (gm, constants, spec, graph, inputs, outs, prog,
        #                     concat columns)
        self._arrays = {}  # id(constant) -> (version, array)

    def graph_module(self, *args):
        """The captured torch.fx GraphModule for these arguments."""
        return self._entry(args)[0]

    def program(self, *args):
        """The compiled neuronsim.Program for these arguments."""
        return self._entry(args)[6]

    def _entry(self, args, line=None):
        key = tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else repr(a)
                    for a in args)
        e = self._compiled.get(key)
        if e is None:
            gm, constants, spec = capture(self.fn, args, self.name)
            g, inputs, outs = lower_graph(gm, self.name)
            graph = g.graph([v for v in outs if v.name not in inputs])
            try:
                prog = _program.program(graph, "fused", self.target)
            except Error as err:
                raise Error("%sneuronsim.torch.compile(%s): %s"
                            % (line + ": " if line else "", self.name, err)) from None
            e = (gm, constants, spec, graph, inputs, outs, prog, g.concat_columns())
            self._compiled[key] = e
        return e

    def _array(self, t):
        hit = self._arrays.get(id(t))
        if hit is not None and hit[0] is t and hit[1] == t._version:
            return hit[2]
        a = _program.to_array(t)
        self._arrays[id(t)] = (t, t._version, a)
        return a

    def __call__(self, *args):
        line = user_line()
        outer = current_runtime()
        rt = outer if outer is not None else self.runtime
        if rt.target != self.target:
            raise Error("%s: neuronsim.torch.compile(%s, target=%s) called inside "
                        "neuronsim.torch.device(%s)" % (line, self.name, self.target, rt.target))
        gm, constants, spec, graph, inputs, outs, prog, concats = self._entry(args, line)
        with no_dispatch():
            timing = rt.timing_only
            arrays = {}
            if not timing:
                for i, a in enumerate(args):
                    arrays["arg_%d" % i] = self._array(a)
                for pname, t in constants:
                    arrays[pname] = self._array(t)
            used = {t["name"] for l in prog.launches for t in l["kernel"].inputs}
            arrays = {k: v for k, v in arrays.items() if k in used}
            if outer is None:
                push_runtime(rt)
            try:
                values = _program.run(rt, prog, arrays, "neuronsim::compiled:" + self.name,
                                      line, _program.kernel_io, concats)
            finally:
                if outer is None:
                    pop_runtime(rt)
            given = {"arg_%d" % i: a for i, a in enumerate(args)}
            given.update(dict(constants))
            results = []
            for v in outs:
                if v.name in inputs:  # the function returns an input (a view of it)
                    results.append(given[v.name].reshape(v.shape))
                else:
                    results.append(_program.to_tensor(values[v.name], v.shape, v.dtype))
        return tree_unflatten(results, spec)


def compile(fn, target="trn2", timing_only=False, overrides=None):
    """Returns a callable that runs fn (a function or torch.nn.Module of tensors) as one
    captured graph, fused by neuronsim's compiler, on a simulated NeuronCore of `target`."""
    return Compiled(fn, target, timing_only, overrides)
