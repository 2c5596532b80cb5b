"""Compiled neuronsim programs for lowered graphs, cached, and run on a Runtime: the
launches in order, program tensors passed between them by name (docs/compiler.md)."""
import json

import numpy as np
import torch

from .. import Error
from .. import compile as _compile
from ._lowering import rows

_cache = {}  # (graph json, mode, target) -> neuronsim.Program, least recently used first
# Programs kept: eager mode makes one per distinct op, shape and dtype; a program keeps its
# kernels (a few KiB to a few MiB each), so the cache is bounded, the oldest dropped.
CACHED_PROGRAMS = 512


def program(graph, mode, target):
    """neuronsim.compile(graph, mode, target), once per distinct graph."""
    key = (json.dumps(graph, sort_keys=True), mode, target)
    p = _cache.pop(key, None)
    if p is None:
        p = _compile(graph, mode=mode, target=target)
        if len(_cache) >= CACHED_PROGRAMS:
            del _cache[next(iter(_cache))]
    _cache[key] = p
    return p


def to_array(t):
    """A torch tensor as the float32 array a kernel input takes (bf16/fp16 widen exactly),
    in its graph (rows) shape."""
    a = t.detach().contiguous()
    if a.dtype != torch.float32:
        a = a.float()
    return a.numpy().reshape(rows(t.shape))


def to_tensor(array, shape, dtype):
    """A kernel output (float32, already rounded to `dtype` by the device) as a torch tensor."""
    t = torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).reshape(shape)
    return t if dtype == torch.float32 else t.to(dtype)


def run(rt, prog, arrays, op, python_line, shapes_of, concat_columns=None):
    """Runs every launch of `prog` on `rt` with `arrays` ({graph input: ndarray}); returns
    every tensor the launches wrote, by name. `op` names the launches' records (a callable
    of the launch dict, or a string); shapes_of(kernel) gives their input shapes, dtypes.
    concat_columns (GraphBuilder.concat_columns): a concat that several launches write in
    place, each its operands' columns (the heads' P @ V products of a batch that the
    attention kernel does not take), is assembled from each launch's columns."""
    values = dict(arrays)
    written = set()
    call = rt.new_call()  # one op call, however many launches
    concat_columns = concat_columns or {}
    for launch in prog.launches:
        k = launch["kernel"]
        inputs = {}
        for t in ([] if rt.timing_only else k.inputs):  # timing only: no data moves
            if t["name"] not in values:
                raise Error("%s: %s: program '%s' reads '%s' before any launch wrote it"
                            % (python_line, op, prog.program, t["name"]))
            inputs[t["name"]] = values[t["name"]].reshape(t["shape"])
        in_part = {}  # tensor -> the column ranges this launch writes of it
        for t in k.outputs:
            parts = concat_columns.get(t["name"], [])
            mine = [(c0, c1) for a, c0, c1 in parts if a in launch["nodes"]]
            if mine and len(mine) < len(parts):
                in_part[t["name"]] = mine
            elif t["name"] in written:
                # Each run starts from zeroed outputs: a tensor two launches write other
                # than as a concat's columns would lose the first one's part here.
                raise Error("%s: %s: program '%s': tensor '%s' is written by two launches, "
                            "which neuronsim.torch does not run" % (
                                python_line, op, prog.program, t["name"]))
            written.add(t["name"])
        shapes, dtypes = shapes_of(k)
        out = rt.launch(k, inputs, op, python_line, shapes, dtypes, call)
        for name, cols in in_part.items():
            if name not in out:  # timing only
                continue
            new = out[name]
            whole = values.get(name)
            if whole is None:
                whole = np.zeros_like(new)
            whole = whole.reshape(new.shape).copy()
            for c0, c1 in cols:
                whole[..., c0:c1] = new[..., c0:c1]
            out[name] = whole
        values.update(out)
    return values


def kernel_io(k):
    """A kernel's input shapes and dtypes, for its LaunchRecord."""
    return [list(t["shape"]) for t in k.inputs], [t["dtype"] for t in k.inputs]
