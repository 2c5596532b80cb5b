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

from ._core import NkiError, fail
from ._lower import python_error

# awsdocs-neuron compiler/error-codes/EARG001: "On trn1, only lnc=1 is supported";
# EVRF066: neuronx-cc defaults to LNC=2 on Trn2 and later.
DEFAULT_LNC = {"trn1": 1, "trn2": 2, "trn3": 2}


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
    ints and nl.nc / nl.spmd_dim axes, each program a tuple of indices in launch order."""
    from .language import nc, spmd_dim

    grid = tuple(grid if isinstance(grid, (tuple, list)) else (grid,))
    sizes = []
    for g in grid:
        if isinstance(g, bool) or not isinstance(g, int) or g < 1:
            fail(f"a launch grid axis is a positive int, nl.nc(N) or nl.spmd_dim(...), "
                 f"not {g!r}")
        sizes.append(int(g))
    programs = list(itertools.product(*(range(s) for s in sizes))) if sizes else [()]
    marked = [a for a, g in enumerate(grid) if isinstance(g, (nc, spmd_dim)) and g.cores > 1]
    if marked:
        asked = 1
        for a in marked:
            asked *= grid[a].cores
        if asked != cores:
            axes = ", ".join(repr(grid[a]) for a in marked)
            fail(f"the launch grid spreads over {asked} cores ({axes}) but the logical "
                 f"NeuronCore has {cores} (set NEURON_LOGICAL_NC_CONFIG={asked}, or cores=)")

        def core_of(p):
            core = 0
            for a in marked:
                core = core * grid[a].cores + grid[a].core_of(p[a])
            return core

        split = [[] for _ in range(cores)]
        for p in programs:
            split[core_of(p)].append(p)
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


class SpmdRun:
    """A launch on several cores as the drivers read one run (neuronsim.RunResult's
    fields): the shared outputs, total_ns (the last core's end), and the engines and
    stats of the core that ends last (the launch's critical path); cores and
    core_latency_ns give every core, profile_dir holds core_<i>/ per core."""

    def __init__(self, result):
        self.cores = result.cores
        self.core_latency_ns = [c.total_ns for c in result.cores]
        self.outputs = result.outputs
        self.total_ns = result.total_ns
        last = max(range(len(result.cores)), key=lambda i: result.cores[i].total_ns)
        self.engines = result.cores[last].engines
        self.stats = result.cores[last].stats
        self.profile_dir = result.profile_dir


def split_launch(kernel, target):
    """[(core, programs)] of the cores a launch of `kernel` (a JitKernel) uses on
    `target`'s logical NeuronCore, or None when it runs on one core (no grid, LNC=1, or
    a grid with one program)."""
    if not kernel.grid or kernel.programs is not None:
        return None
    cores = lnc_degree(target)
    if cores == 1:
        return None
    sizes, split = core_programs(kernel.launch_grid, cores)
    used = [(c, p) for c, p in enumerate(split) if p]
    return used if len(used) > 1 else None


def _run_on_cores(kernel, used, names, args, kwargs, target, location, seed, timing_only,
                  profile_dir):
    """([TracedKernel per core], Call, neuronsim.CoresResult): each core's programs traced
    as one kernel, all run at once on one device sharing HBM (neuronsim.run_cores)."""
    import neuronsim

    sizes = tuple(int(g) for g in kernel.grid)
    traced, call = [], None
    for (c, programs), name in zip(used, names):
        t, call = kernel._copy(grid=sizes, programs=programs, name=name).prepare(
            args, kwargs, target, location)
        traced.append(t)
    tensors = dict(call.tensors)
    inputs = None if timing_only else {
        h.name: tensors[h.param].data(seed + i) for i, h in enumerate(traced[0].inputs)}
    kernels = [t.kernel for t in traced]  # assembled and validated: errors at the Python line
    if profile_dir is not None:
        os.makedirs(profile_dir, exist_ok=True)
    try:
        result = neuronsim.run_cores(kernels, inputs, target=traced[0].target,
                                     timing_only=timing_only, profile_dir=profile_dir)
    except neuronsim.Error as e:
        if isinstance(e, NkiError):
            raise
        raise NkiError(python_error(str(e), traced[0].name, traced[0].line_map)) from None
    return traced, call, result


def run_launch(kernel, used, args, kwargs, target, location, seed=0, timing_only=False,
               profile_dir=None):
    """(TracedKernel of core 0, Call, SpmdRun): one program set per physical core, all at
    once on one device, sharing HBM."""
    names = [f"{kernel.name}_nc{c}" for c, _ in used]
    traced, call, result = _run_on_cores(kernel, used, names, args, kwargs, target, location,
                                         seed, timing_only, profile_dir)
    return traced[0], call, SpmdRun(result)


def run_spmd(jit, *args, grid=None, cores=None, target="trn2", profile_dir=None,
             timing_only=False, **kwargs):
    """Runs `jit` (an @nki.jit kernel) over its launch grid (or `grid`, which may hold
    nc()/spmd_dim() axes) on `cores` physical cores of one device (default: the LNC degree,
    lnc_degree()), one traced program per core, all at once, sharing HBM. Returns
    (outputs, SpmdResult)."""
    from . import JitKernel

    if not isinstance(jit, JitKernel):
        fail("run_spmd: expected a kernel decorated with @nki.jit")
    cores = lnc_degree(target) if cores is None else cores
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= 2:
        fail(f"run_spmd: cores is the LNC degree, 1 or 2, not {cores!r}")
    if grid is not None:
        launch = grid if isinstance(grid, (tuple, list)) else (grid,)
        jit = jit._copy(grid=tuple(int(g) for g in launch), launch_grid=tuple(launch))
    _, split = core_programs(jit.launch_grid, cores)
    used = [(c, p) for c, p in enumerate(split) if p]
    names = [jit.name if len(used) == 1 else f"{jit.name}_nc{c}" for c, _ in used]
    traced, _, result = _run_on_cores(jit, used, names, args, kwargs, target, None, 0,
                                      timing_only, profile_dir)
    r = SpmdResult(traced, [p for _, p in used], result, timing_only)
    return r.outputs, r
