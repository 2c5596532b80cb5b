"""neuronsim.nki: kernels written in the style of AWS's Neuron Kernel Interface (NKI),
traced into neuronsim kernels and run with timing.

    from neuronsim import nki
    import neuronsim.nki.language as nl
    import neuronsim.nki.isa as nisa

    @nki.jit
    def add_kernel(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a) + nl.load(b))
        return out

    y = nki.simulate(add_kernel, x1, x2)                 # outputs, like nki.simulate_kernel
    r = nki.benchmark(add_kernel, x1, x2, target="trn1")  # latency, utilisation, profile
    print(add_kernel.trace(x1, x2).asm())                # the generated assembly

docs/python.md ("neuronsim.nki") describes the language and every difference from NKI.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import os
import tempfile

import numpy as np

from . import isa, language  # noqa: F401
from ._core import NkiError, Trace, fail, to_dtype
from ._lower import lower, python_error
from ._tensor import HbmTensor, Tensor, _row_major

__all__ = ["jit", "simulate", "benchmark", "typed", "NkiError", "TracedKernel", "BenchmarkResult",
           "language", "isa"]


class typed:
    """An input array with the dtype the kernel sees: typed(x, nl.bfloat16) passes float
    data that neuronsim rounds to bf16 as the engines round (numpy has no bf16)."""

    def __init__(self, array, dtype):
        self.array = np.asarray(array)
        self.dtype = to_dtype(dtype)


def _arg_dtype(arr):
    if isinstance(arr, typed):
        return arr.array, arr.dtype
    arr = np.asarray(arr)
    if arr.dtype == np.float64:
        return arr, language.float32
    return arr, to_dtype(arr.dtype)


class TracedKernel:
    """A kernel traced for one set of argument shapes/dtypes and one target."""

    def __init__(self, name, text, line_map, inputs, outputs, target):
        self.name, self._text, self.line_map = name, text, line_map
        self.inputs, self.outputs, self.target = inputs, outputs, target
        self._kernel = None

    def asm(self):
        """The generated neuronsim assembly (docs/assembly.md)."""
        return self._text

    @property
    def kernel(self):
        """The assembled and validated neuronsim.Kernel."""
        if self._kernel is None:
            import neuronsim

            try:
                self._kernel = neuronsim.assemble(self._text, self.name)
            except neuronsim.Error as e:
                raise NkiError(python_error(str(e), self.name, self.line_map)) from None
        return self._kernel


class JitKernel:
    """A function decorated with @nki.jit: traced on each call of simulate/benchmark/trace
    (tracing is cheap; results are cached per argument shapes, dtypes and target)."""

    def __init__(self, fn, name=None, reuse_delay=8, grid=(), schedule="list"):
        if schedule not in ("list", "program"):
            fail(f"schedule must be 'list' or 'program', not {schedule!r}")
        self.schedule = schedule
        self.fn = fn
        self.name = name or fn.__name__
        self.reuse_delay = int(reuse_delay)
        self.grid = grid
        self._cache = {}
        functools.update_wrapper(self, fn)

    def __getitem__(self, grid):
        """kernel[gx, gy](...): NKI's SPMD launch grid. neuronsim.nki traces the programs
        one after the other into one kernel (nl.program_id gives each its index);
        nl.shared_hbm tensors are shared by all programs."""
        grid = tuple(int(g) for g in (grid if isinstance(grid, tuple) else (grid,)))
        if not grid or any(g < 1 for g in grid):
            fail(f"a launch grid needs positive sizes, got {list(grid)}")
        return JitKernel(self.fn, self.name, self.reuse_delay, grid, self.schedule)

    def trace(self, *args, target="trn2", **kwargs):
        arrays = []
        key = [target, self.grid]
        for a in args:
            if isinstance(a, (np.ndarray, typed)) or (hasattr(a, "__array__") and not np.isscalar(a)):
                arr, dt = _arg_dtype(a)
                arrays.append((arr, dt))
                key.append(("t", arr.shape, dt.asm))
            else:
                arrays.append(a)
                key.append(("v", repr(a)))
        key.append(repr(sorted(kwargs.items())))
        key = tuple(key)
        if key not in self._cache:
            self._cache[key] = self._trace(arrays, target, kwargs)
        return self._cache[key]

    def _trace(self, arrays, target, kwargs):
        if Trace.active is not None:
            fail("a kernel cannot be traced inside another kernel's trace")
        tr = Trace(target, self.reuse_delay)
        params = list(inspect.signature(self.fn).parameters)
        call_args, inputs = [], []
        Trace.active = tr
        try:
            for i, a in enumerate(arrays):
                if isinstance(a, tuple):
                    arr, dt = a
                    pname = params[i] if i < len(params) else f"arg{i}"
                    name = tr.unique_name(pname)
                    h = HbmTensor(name, arr.shape, dt, "input")
                    tr.hbm[name] = h
                    inputs.append(h)
                    call_args.append(Tensor("hbm", dt, arr.shape, _row_major(arr.shape), 0, hbm=h,
                                            name=name))
                else:
                    call_args.append(a)
            result = None
            for program in (itertools.product(*(range(g) for g in self.grid)) if self.grid else [()]):
                tr.start_program(program, self.grid)
                r = self.fn(*call_args, **kwargs)
                result = r if result is None else result
            location = (inspect.getsourcefile(self.fn) or "<kernel>", self.fn.__code__.co_firstlineno)
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
            del call_args, result, results, r
            text, line_map = lower(tr, self.name, inputs, outputs, self.schedule)
        finally:
            Trace.active = None
        return TracedKernel(self.name, text, line_map, inputs, outputs, target)

    def __call__(self, *args, **kwargs):
        """Calling the kernel simulates it (nki.simulate), as calling an NKI kernel with
        numpy arrays runs it in NKI's simulator."""
        return simulate(self, *args, **kwargs)


def jit(fn=None, *, name=None, reuse_delay=8, schedule="list"):
    """Marks a function as a kernel (NKI's @nki.jit). Its arguments are the kernel's HBM
    input tensors (numpy arrays or nki.typed) or plain Python values (constants).

    reuse_delay: an SBUF block freed by a dead tile is reused only after this many
    further allocations when other room exists (PSUM: at most 4), so loop iterations
    rotate through several buffers and overlap (docs/python.md, "Allocation").
    0 reuses at once: a tile rebound in a loop is then double-buffered, its
    temporaries single-buffered.

    schedule: "list" (default) orders each engine's stream by a list schedule of rough
    durations; "program" keeps program order on the compute engines (the Sync engine's
    DMAs are still ordered by when their inputs are ready)."""
    if fn is None:
        return lambda f: JitKernel(f, name, reuse_delay, schedule=schedule)
    return JitKernel(fn, name, reuse_delay, schedule=schedule)


def _inputs(traced, args):
    arrays = [a for a in args if isinstance(a, (np.ndarray, typed)) or
              (hasattr(a, "__array__") and not np.isscalar(a))]
    out = {}
    for h, a in zip(traced.inputs, arrays):
        arr = a.array if isinstance(a, typed) else np.asarray(a)
        out[h.name] = np.ascontiguousarray(arr, dtype=np.float32) if h.dtype.is_float else arr
    return out


def _run(kernel, args, target, kwargs, **run_options):
    import neuronsim

    if not isinstance(kernel, JitKernel):
        fail("expected a kernel decorated with @nki.jit")
    traced = kernel.trace(*args, target=target, **kwargs)
    try:
        result = neuronsim.run(traced.kernel, _inputs(traced, args), target=target, **run_options)
    except neuronsim.Error as e:
        raise NkiError(python_error(str(e), traced.name, traced.line_map)) from None
    return traced, result


def simulate(kernel, *args, target="trn2", **kwargs):
    """Runs the kernel on neuronsim and returns its output(s) as float32 numpy arrays (one
    array, or a tuple for several outputs), like nki.simulate_kernel."""
    traced, result = _run(kernel, args, target, kwargs)
    outs = [result.outputs[h.name] for h in traced.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)


class BenchmarkResult:
    """Latency and per-engine utilisation of one simulated run."""

    def __init__(self, traced, result):
        self.traced = traced
        self.latency_ns = result.total_ns
        self.engines = result.engines
        self.utilisation = {e: v["utilisation"] for e, v in result.engines.items()}
        self.stats = result.stats
        self.profile_dir = result.profile_dir
        self.outputs = result.outputs

    @property
    def latency_us(self):
        return self.latency_ns / 1000.0

    def __repr__(self):
        util = ", ".join(f"{e} {100 * u:.0f}%" for e, u in self.utilisation.items())
        return (f"<benchmark {self.traced.name} on {self.traced.target}: {self.latency_ns:.0f} ns; "
                f"{util}; profile {self.profile_dir}>")


def benchmark(kernel, *args, target="trn2", profile_dir=None, timing_only=True, **kwargs):
    """Simulates the kernel for its timing: latency (device time), each engine's
    utilisation (busy time / total) and a profile directory that `neuronsim view DIR`
    and `neuronsim report DIR` open (a new temporary directory unless given)."""
    if profile_dir is None:
        profile_dir = tempfile.mkdtemp(prefix=f"nki_{kernel.name}_")
    os.makedirs(profile_dir, exist_ok=True)
    traced, result = _run(kernel, args, target, kwargs, timing_only=timing_only,
                          profile_dir=profile_dir)
    if result.profile_dir is None:
        result.profile_dir = profile_dir
    return BenchmarkResult(traced, result)
