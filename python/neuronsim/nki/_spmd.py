"""SPMD launch grids on physical NeuronCores: a kernel launched over a grid on a logical
NeuronCore (LNC) of two physical cores runs part of its programs on each core, the cores
sharing the device HBM (nki.language.nc, nki.language.spmd_dim; "Using Logical
NeuronCores (LNC) with NKI", awsdocs-neuron nki/get-started/about/lnc).

    out, r = run_spmd(tensor_add_kernel, a, b, grid=(nc(2), 4), target="trn2")
    r.core_latency_ns   # one simulated time per physical core, both cores at once

Which programs go to which core (docs/python.md, "SPMD on physical cores"):
- an axis given as nc(N) (nki.language.nc) has N programs, one per core: core c runs the
  programs whose index on that axis is c;
- an axis given as spmd_dim(nc(N), M) (nki.language.spmd_dim) has N*M programs in N
  blocks of M: core c runs the indices [c*M, (c+1)*M);
- a grid without either ("let the compiler decide") is split in the same blocks along its
  first axis whose size the core count divides, else the flattened program list is cut
  into contiguous parts, as even as they can be.
nl.program_id and nl.num_programs keep their meaning over the whole grid: a program sees
the same ids on whichever core runs it. Tensors in nl.shared_hbm (the kernel's inputs and
outputs) are one tensor in the device HBM that both cores read and write; everything
else (SBUF, PSUM, scratch HBM) is each core's own.

The LNC degree (cores) defaults to NEURON_LOGICAL_NC_CONFIG when set, else to the
target's default: 1 on trn1 (LNC=2 is not supported there), 2 on trn2 and trn3.
"""
from __future__ import annotations

import itertools
import os

from ._core import NkiError, Trace, fail
from ._lower import lower, python_error
from ._tensor import HbmTensor, Tensor, _row_major

# awsdocs-neuron compiler/error-codes/EARG001: "On trn1, only lnc=1 is supported";
# EVRF066: neuronx-cc defaults to LNC=2 on Trn2 and later.
DEFAULT_LNC = {"trn1": 1, "trn2": 2, "trn3": 2}


class CoreDim:
    """nl.nc(N): a launch-grid axis of N programs, one per physical core
    (awsdocs-neuron nki/api/generated/nki.language.nc)."""

    def __init__(self, cores):
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            fail(f"nl.nc(cores) takes a positive number of cores, not {cores!r}")
        self.cores = cores

    @property
    def size(self):
        return self.cores

    def __index__(self):
        return self.size

    __int__ = __index__

    def __repr__(self):
        return f"nl.nc({self.cores})"


class SpmdDim:
    """nl.spmd_dim(nl.nc(N), M): a launch-grid axis of N*M programs whose blocks of M go
    to the N cores (awsdocs-neuron nki/api/generated/nki.language.spmd_dim)."""

    def __init__(self, core_dim, per_core):
        if not isinstance(core_dim, CoreDim):
            fail(f"nl.spmd_dim(nl.nc(N), M) takes nl.nc(N) first, not {core_dim!r}")
        if isinstance(per_core, bool) or not isinstance(per_core, int) or per_core < 1:
            fail(f"nl.spmd_dim(nl.nc(N), M) takes a positive M, not {per_core!r}")
        self.cores, self.per_core = core_dim.cores, per_core

    @property
    def size(self):
        return self.cores * self.per_core

    def __index__(self):
        return self.size

    __int__ = __index__

    def __repr__(self):
        return f"nl.spmd_dim(nl.nc({self.cores}), {self.per_core})"


def nc(cores):
    return CoreDim(cores)


def spmd_dim(core_dim, per_core):
    return SpmdDim(core_dim, per_core)


def lnc_degree(target):
    """Physical cores of the logical NeuronCore a kernel runs on (module docstring)."""
    env = os.environ.get("NEURON_LOGICAL_NC_CONFIG")
    if env:
        if env not in ("1", "2"):
            fail(f"NEURON_LOGICAL_NC_CONFIG={env!r}: the LNC degree is 1 or 2")
        return int(env)
    return DEFAULT_LNC.get(str(target), 1)


def core_programs(grid, cores):
    """(grid sizes, [programs of core 0, programs of core 1, ...]) for a launch grid of
    ints, nc() and spmd_dim() axes, each program a tuple of indices in launch order."""
    grid = tuple(grid if isinstance(grid, (tuple, list)) else (grid,))
    sizes = []
    for g in grid:
        size = g.size if isinstance(g, (CoreDim, SpmdDim)) else g
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            fail(f"a launch grid axis is a positive int, nl.nc(N) or nl.spmd_dim(nl.nc(N), M), "
                 f"not {g!r}")
        sizes.append(size)
    programs = list(itertools.product(*(range(s) for s in sizes))) if sizes else [()]
    marked = [a for a, g in enumerate(grid) if isinstance(g, (CoreDim, SpmdDim))]
    if len(marked) > 1:
        fail("only one launch grid axis can be nl.nc or nl.spmd_dim (the cores of one "
             "logical NeuronCore)")
    if marked:
        axis, g = marked[0], grid[marked[0]]
        if g.cores != cores:
            fail(f"the launch grid asks for {g!r} but the logical NeuronCore has {cores} "
                 f"core(s) (set NEURON_LOGICAL_NC_CONFIG or cores= to {g.cores})")
        per_core = 1 if isinstance(g, CoreDim) else g.per_core
        split = [[p for p in programs if p[axis] // per_core == c] for c in range(cores)]
    elif cores == 1:
        split = [programs]
    else:
        axis = next((a for a, s in enumerate(sizes) if s % cores == 0), None)
        if axis is not None:
            per_core = sizes[axis] // cores
            split = [[p for p in programs if p[axis] // per_core == c] for c in range(cores)]
        else:
            n, split, start = len(programs), [], 0
            for c in range(cores):
                count = n // cores + (1 if c < n % cores else 0)
                split.append(programs[start:start + count])
                start += count
    return tuple(sizes), split


def trace_programs(jit, arrays, target, kwargs, programs, grid, name):
    """A TracedKernel of `jit` (a JitKernel) running only `programs` of `grid`, as
    JitKernel._trace traces all of them (each program sees its own nl.program_id)."""
    from . import TracedKernel  # the package's class; imported late (it imports us)

    import inspect

    if Trace.active is not None:
        fail("a kernel cannot be traced inside another kernel's trace")
    tr = Trace(target, jit.reuse_delay)
    params = list(inspect.signature(jit.fn).parameters)
    call_args, inputs = [], []
    Trace.active = tr
    try:
        for i, a in enumerate(arrays):
            if isinstance(a, tuple):
                arr, dt = a
                pname = params[i] if i < len(params) else f"arg{i}"
                tname = tr.unique_name(pname)
                h = HbmTensor(tname, arr.shape, dt, "input")
                tr.hbm[tname] = h
                inputs.append(h)
                call_args.append(Tensor("hbm", dt, arr.shape, _row_major(arr.shape), 0, hbm=h,
                                        name=tname))
            else:
                call_args.append(a)
        result = None
        for program in programs:
            tr.start_program(program, grid)
            r = jit.fn(*call_args, **kwargs)
            result = r if result is None else result
        location = (inspect.getsourcefile(jit.fn) or "<kernel>", jit.fn.__code__.co_firstlineno)
        results = result if isinstance(result, (tuple, list)) else ([] if result is None else [result])
        outputs = []
        for r in results:
            if not isinstance(r, Tensor) or r.space != "hbm" or r.hbm.role == "input":
                fail("a kernel returns the HBM tensors it made with nl.ndarray(..., "
                     "buffer=nl.shared_hbm)", location)
            r.hbm.role = "output"
            outputs.append(r.hbm)
        if not outputs:
            fail("the kernel returns no output tensor", location)
        del call_args, result, results
        text, line_map = lower(tr, name, inputs, outputs, jit.schedule)
    finally:
        Trace.active = None
    return TracedKernel(name, text, line_map, inputs, outputs, target)


class SpmdResult:
    """One SPMD launch on the physical cores of a logical NeuronCore: outputs (as
    nki.simulate returns them), latency_ns (the last core's end), core_latency_ns (each
    core's time), programs (which programs each core ran), cores (a neuronsim.RunResult
    per core: engines, stats, profile_dir), traced (a TracedKernel per core)."""

    def __init__(self, traced, programs, result, timing_only=False):
        self.traced = traced
        self.programs = programs
        self.cores = result.cores
        self.core_latency_ns = [c.total_ns for c in result.cores]
        self.latency_ns = result.total_ns
        self.profile_dir = result.profile_dir
        if timing_only:  # nothing computed: no outputs, as nki.benchmark's timing runs
            self.outputs = None
        else:
            outs = [result.outputs[h.name] for h in traced[0].outputs]
            self.outputs = outs[0] if len(outs) == 1 else tuple(outs)

    @property
    def latency_us(self):
        return self.latency_ns / 1000.0

    def __repr__(self):
        per_core = ", ".join(f"core {i}: {t:.0f} ns" for i, t in enumerate(self.core_latency_ns))
        name = self.traced[0].name.rsplit("_nc", 1)[0] if len(self.traced) > 1 else self.traced[0].name
        return (f"<SPMD {name} on {len(self.cores)} core(s) of "
                f"{self.traced[0].target}: {self.latency_ns:.0f} ns ({per_core})>")


def run_spmd(jit, *args, grid=None, cores=None, target="trn2", profile_dir=None,
             timing_only=False, **kwargs):
    """Runs `jit` (an @nki.jit kernel) over its launch grid (or `grid`, which may hold
    nc()/spmd_dim() axes) on `cores` physical cores of one device (default: the LNC degree,
    lnc_degree()), one traced program per core, all at once, sharing HBM. Returns
    (outputs, SpmdResult)."""
    import neuronsim

    from . import JitKernel

    if not isinstance(jit, JitKernel):
        fail("run_spmd: expected a kernel decorated with @nki.jit")
    cores = lnc_degree(target) if cores is None else cores
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= 2:
        fail(f"run_spmd: cores is the LNC degree, 1 or 2, not {cores!r}")
    sizes, split = core_programs(jit.grid if grid is None else grid, cores)
    used = [(c, p) for c, p in enumerate(split) if p]
    names = [jit.name if len(used) == 1 else f"{jit.name}_nc{c}" for c, _ in used]
    if hasattr(jit, "prepare") and hasattr(jit, "programs"):
        # JitKernel traces a subset of its grid's programs itself (nki/_jit.py).
        traced, call = [], None
        for (c, programs), name in zip(used, names):
            t, call = jit._copy(grid=sizes, programs=programs, name=name).prepare(
                args, kwargs, target)
            traced.append(t)
        tensors = dict(call.tensors)
        inputs = None if timing_only else {
            h.name: tensors[h.param].data(i) for i, h in enumerate(traced[0].inputs)}
    else:
        inputs, traced = _trace_here(jit, args, target, kwargs, used, sizes, names)
    kernels = [t.kernel for t in traced]  # assembled and validated: errors at the Python line
    if profile_dir is not None:
        os.makedirs(profile_dir, exist_ok=True)
    try:
        result = neuronsim.run_cores(kernels, inputs, target=target, timing_only=timing_only,
                                     profile_dir=profile_dir)
    except neuronsim.Error as e:
        raise NkiError(python_error(str(e), traced[0].name, traced[0].line_map)) from None
    r = SpmdResult(traced, [p for _, p in used], result, timing_only)
    return r.outputs, r


def _trace_here(jit, args, target, kwargs, used, sizes, names):
    """(run inputs, [TracedKernel per core]) with this module's trace_programs, for a
    JitKernel that cannot trace a subset of its programs itself."""
    from . import _arg_dtype, _inputs, typed

    import numpy as np

    arrays = []
    for a in args:
        if isinstance(a, (np.ndarray, typed)) or (hasattr(a, "__array__") and not np.isscalar(a)):
            arrays.append(_arg_dtype(a))
        else:
            arrays.append(a)
    traced = [trace_programs(jit, arrays, target, kwargs, programs, sizes, name)
              for (c, programs), name in zip(used, names)]
    return _inputs(traced[0], args), traced
