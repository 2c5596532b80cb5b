"""@nki.jit: a kernel function, traced per argument shapes/dtypes/constants and target.

NKI's page nki.jit (neuronxcc: `jit(func=None, mode="auto", **kwargs)`, modes "jax",
"torchxla", "baremetal", "benchmark", "simulation", "auto"; current NKI:
`jit(fn=None, *, compile_config=None, specialization_config=None, **kwargs)` and the
NEURON_PLATFORM_TARGET_OVERRIDE variable) is the reference for the keywords accepted here.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import os

from . import _args
from ._core import NkiError, Trace, fail, user_location
from ._lower import lower, python_error
from ._tensor import HbmTensor, Tensor, _row_major

# Platform names -> neuronsim targets. nki.jit page: NEURON_PLATFORM_TARGET_OVERRIDE takes
# "trn1|inf2|gen2", "trn2|gen3", "trn3|gen4": inf2 has trn1's NeuronCore-v2 (the same
# page groups them), so it runs on the trn1 preset.
PLATFORMS = {"trn1": "trn1", "inf2": "trn1", "gen2": "trn1", "trn1n": "trn1",
             "trn2": "trn2", "gen3": "trn2", "trn2n": "trn2",
             "trn3": "trn3", "gen4": "trn3"}

# "trace" is the neuronxcc-era mode of a helper kernel that another kernel calls (the
# nki-samples attention kernels mark theirs @nki.jit(mode="trace")): it is inlined into
# the caller's trace, as every jit kernel called while a trace is active is.
MODES = ("auto", "simulation", "baremetal", "benchmark", "jax", "torchxla", "trace")

# nki.jit keywords neuronsim accepts and what it does with them. The compiler's own
# options steer neuronx-cc, which neuronsim does not have: they are kept on the kernel
# (`kernel.options`) and change nothing.
COMPILER_OPTIONS = {
    "additional_compile_opt": "neuronx-cc flags; `--target X` picks the target, the rest is kept",
    "show_compiler_tb": "errors here are NkiErrors naming the kernel's Python line",
    "debug_kernel": "kept; every instruction already names its Python line",
    "experimental_flags": "neuronx-cc experiments",
    "enable_out_of_bound_check": "index bounds are always checked while tracing",
    "kernel_return": "the kernel's returned tensors are its outputs",
    "compile_config": "nki.compiler.CompileConfig: neuronx-cc passes",
    "specialization_config": "nki.compiler.SpecializationConfig",
    "artifacts_dir": "neuronx-cc's artifacts (nki.baremetal writes the assembly and NEFF there)",
}


def to_target(name, where):
    """The neuronsim target of an NKI platform name (or a neuronsim target name)."""
    key = str(name).lower()
    if key not in PLATFORMS:
        fail(f"{where}: unknown platform_target {name!r} (expected one of "
             f"{', '.join(sorted(PLATFORMS))})")
    return PLATFORMS[key]


def _target_from_compile_opt(opt):
    words = str(opt).replace("=", " ").split()
    for i, w in enumerate(words):
        if w == "--target" and i + 1 < len(words):
            return words[i + 1]
    return None


class TracedKernel:
    """A kernel traced for one set of argument shapes/dtypes and one target."""

    def __init__(self, name, text, line_map, inputs, outputs, target, mutable=(), built=None):
        self.name, self._text, self.line_map = name, text, line_map
        self._built = built  # _core.NkiKernelBuilder holding the kernel made of the text
        self.inputs, self.outputs, self.target = inputs, outputs, target
        self.mutable = tuple(mutable)  # output names that are arguments written in place
        self.returned = [h.name for h in outputs]  # the outputs the kernel returned
        # Each returned value as the kernel returned it: (tensor name, shape, strides,
        # offset) in elements, so a returned reshape or slice of an output tensor comes
        # back with its own shape (None: the whole tensor).
        self.returned_views = [None] * len(self.returned)
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
                if self._built is None:
                    self._kernel = neuronsim.assemble(self._text, self.name)
                else:
                    built, self._built = self._built, None
                    self._kernel = built.take()
                    if os.environ.get("NEURONSIM_NKI_CHECK_BUILD"):
                        self._check_built()
            except neuronsim.Error as e:
                raise NkiError(python_error(str(e), self.name, self.line_map)) from None
        return self._kernel

    def _check_built(self):
        """NEURONSIM_NKI_CHECK_BUILD: the built kernel is the one its text assembles to."""
        import neuronsim
        from .. import _core

        difference = _core.nki_kernel_difference(self._kernel,
                                                 neuronsim.assemble(self._text, self.name))
        if difference:
            raise NkiError(f"internal error: kernel {self.name} built from its trace differs "
                           f"from its assembled text: {difference}")


class Call:
    """One call's arguments, bound to the kernel's parameters: each HBM input's name and
    TensorArg, in parameter order, and the values the kernel function is called with."""

    def __init__(self, kernel, args, kwargs, location):
        sig = inspect.signature(kernel.fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            fail(f"{kernel.name}(): {e} (the kernel's parameters: {sig})", location)
        bound.apply_defaults()
        self.tensors = []  # (parameter name, TensorArg)
        key = []
        for pname, value in bound.arguments.items():
            kind = sig.parameters[pname].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                items = [(f"{pname}{i}", v) for i, v in enumerate(value)]
            elif kind == inspect.Parameter.VAR_KEYWORD:
                items = list(value.items())
            else:
                items = [(pname, value)]
            for name, v in items:
                a = _args.classify(v, f"{kernel.name}() argument '{name}'", location)
                key.append((name, a.key()))
                if isinstance(a, _args.TensorArg):
                    self.tensors.append((name, a))
        self.bound, self.sig = bound, sig
        self.key = tuple(key)

    def call_values(self, replace):
        """args, kwargs for the kernel function, tensors swapped for `replace[name]`."""
        arguments = {}
        for pname, value in self.bound.arguments.items():
            kind = self.sig.parameters[pname].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                arguments[pname] = tuple(replace.get(f"{pname}{i}", v) for i, v in enumerate(value))
            elif kind == inspect.Parameter.VAR_KEYWORD:
                arguments[pname] = {k: replace.get(k, v) for k, v in value.items()}
            else:
                arguments[pname] = replace.get(pname, value)
        b = self.sig.bind_partial()
        b.arguments.update(arguments)
        return b.args, b.kwargs


class JitKernel:
    """A function decorated with @nki.jit: traced on each call of simulate/benchmark/trace
    (results are cached per argument shapes, dtypes, constants and target)."""

    def __init__(self, fn, name=None, reuse_delay=8, grid=(), schedule="list", mode="auto",
                 platform_target=None, options=None):
        if schedule not in ("list", "program"):
            fail(f"schedule must be 'list' or 'program', not {schedule!r}")
        if mode not in MODES:
            fail(f"nki.jit: unknown mode {mode!r} (NKI's modes: {', '.join(MODES)})")
        self.schedule, self.mode = schedule, mode
        self.fn = fn
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        self.reuse_delay = int(reuse_delay)
        self.grid = grid
        self.launch_grid = grid  # as launched: nl.nc / nl.spmd_dim axes keep their class
        self.platform_target = platform_target
        self.options = dict(options or {})
        self.benchmark_result = None  # set by a call in mode="benchmark"
        # The grid's programs this kernel traces (None: all, in order): a subset makes one
        # physical core's kernel of an SPMD launch.
        self.programs = None
        self._cache = {}
        functools.update_wrapper(self, fn)

    def _copy(self, **changes):
        k = JitKernel(self.fn, self.name, self.reuse_delay, self.grid, self.schedule, self.mode,
                      self.platform_target, self.options)
        k.programs = self.programs
        k.launch_grid = self.launch_grid
        for attr, value in changes.items():
            setattr(k, attr, value)
        return k

    def __getitem__(self, grid):
        """kernel[gx, gy](...): NKI's SPMD launch grid. neuronsim.nki traces the programs
        one after the other into one kernel (nl.program_id gives each its index);
        nl.shared_hbm tensors are shared by all programs."""
        launch = grid if isinstance(grid, tuple) else (grid,)
        try:
            grid = tuple(int(g) for g in launch)
        except (TypeError, ValueError):
            fail(f"a launch grid is a tuple of ints, e.g. kernel[4, 2](...), got {launch!r}")
        if not grid or any(g < 1 for g in grid):
            fail(f"a launch grid needs positive sizes, got {list(grid)}")
        return self._copy(grid=grid, launch_grid=launch, programs=None)

    def resolve_target(self, target=None):
        """An explicit target=, else @nki.jit(platform_target=), else `--target` in
        additional_compile_opt, else NEURON_PLATFORM_TARGET_OVERRIDE (nki.jit page), else
        trn2."""
        if target is not None:
            return target if target in PLATFORMS.values() else to_target(target, self.name)
        if self.platform_target is not None:
            return to_target(self.platform_target, self.name)
        opt = self.options.get("additional_compile_opt")
        if opt and _target_from_compile_opt(opt):
            return to_target(_target_from_compile_opt(opt), self.name)
        env = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
        if env:
            return to_target(env, "NEURON_PLATFORM_TARGET_OVERRIDE")
        return "trn2"

    def trace(self, *args, target=None, **kwargs):
        """The TracedKernel for these arguments (cached)."""
        return self.prepare(args, kwargs, target)[0]

    def prepare(self, args, kwargs, target=None, location=None):
        """(TracedKernel, Call) for a call with these arguments."""
        location = location or user_location()
        target = self.resolve_target(target)
        call = Call(self, args, kwargs, location)
        key = (target, self.grid, None if self.programs is None else tuple(self.programs),
               call.key)
        if key not in self._cache:
            try:
                self._cache[key] = self._trace(call, target)
            except _InPlace as again:
                self._cache[key] = self._trace(call, target, again.params)
        return self._cache[key], call

    def _trace(self, call, target, in_place=()):
        """Traces the kernel. `in_place`: parameters the kernel reads and writes (found by
        a first trace): each becomes an output tensor that a DMA fills from an input
        copy of the argument before the kernel's first instruction, since a neuronsim
        tensor is an input or an output, not both."""
        if Trace.active is not None:
            fail("a kernel cannot be traced inside another kernel's trace")
        if self.mode == "trace":
            fail(f"{self.name} is @nki.jit(mode='trace'): it only runs when called from "
                 "another kernel; launch the top-level kernel instead")
        tr = Trace(target, self.reuse_delay)
        inputs, replace, copies = [], {}, []
        location = _definition(self.fn)
        Trace.active = tr
        try:
            for pname, a in call.tensors:
                h = HbmTensor(tr.unique_name(pname), a.shape, a.dtype,
                              "output" if pname in in_place else "input")
                h.param = pname
                tr.hbm[h.name] = h
                replace[pname] = Tensor("hbm", a.dtype, a.shape, _row_major(a.shape), 0, hbm=h,
                                        name=h.name)
                if pname in in_place:
                    src = HbmTensor(tr.unique_name(pname + "_in"), a.shape, a.dtype, "input")
                    src.param = pname
                    tr.hbm[src.name] = src
                    inputs.append(src)
                    copies.append((h, src))
                else:
                    inputs.append(h)
            for dst, src in copies:
                _copy_hbm(dst, src)
            args, kwargs = call.call_values(replace)
            result = None
            for program in self._programs():
                tr.start_program(program, self.grid)
                r = self.fn(*args, **kwargs)
                result = r if result is None else result
            del args, kwargs
            results = result if isinstance(result, (tuple, list)) else ([] if result is None else [result])
            mutable = _written_inputs(tr, inputs)
            mutable += [dst for dst, _ in copies]
            outputs = []
            for r in results:
                if not isinstance(r, Tensor) or r.space != "hbm" or (
                        r.hbm.role == "input" and r.hbm not in mutable):
                    fail("a kernel returns the HBM tensors it made with nl.ndarray(..., "
                         "buffer=nl.shared_hbm) (or arguments it wrote)", location)
                if r.hbm not in outputs:
                    outputs.append(r.hbm)
            returned = [h.name for h in outputs]
            returned_views = []
            for r in results:
                whole = r.shape == r.hbm.shape and r.offset == 0 and \
                    tuple(r.strides) == _row_major(r.hbm.shape)
                returned_views.append(None if whole else (r.hbm.name, tuple(r.shape),
                                                          tuple(r.strides), r.offset))
            for h in mutable:
                if h not in outputs:
                    outputs.append(h)
            for h in outputs:
                h.role = "output"
            if not outputs:
                fail("the kernel returns no output tensor", location)
            inputs = [h for h in inputs if h not in mutable]
            del call, result, results, r, replace, copies
            text, line_map, built = lower(tr, self.name, inputs, outputs, self.schedule)
        finally:
            # The trace is freed before the collector resumes: resumed with the trace
            # alive, its first collection would walk every object tracing made.
            tr = None  # noqa: F841
            Trace.active = None
        traced = TracedKernel(self.name, text, line_map, inputs, outputs, target,
                              [h.name for h in mutable], built)
        traced.returned = returned
        traced.returned_views = returned_views if len(returned_views) == len(returned) else \
            [None] * len(returned)
        return traced

    def _programs(self):
        if self.programs is not None:
            return [tuple(p) for p in self.programs]
        return list(itertools.product(*(range(g) for g in self.grid))) if self.grid else [()]

    def __call__(self, *args, **kwargs):
        """Calling the kernel runs it as its mode says: "benchmark" benchmarks it (the
        result in .benchmark_result) and returns its outputs; every other mode simulates
        it and returns its outputs, as calling an NKI kernel with numpy arrays runs it."""
        from . import _drivers

        location = user_location()
        if Trace.active is not None:
            # A kernel called from a kernel being traced: NKI inlines it (its instructions
            # join the caller's, on the caller's tensors); a launch grid of its own has no
            # meaning there.
            if self.grid:
                fail(f"{self.name}[{', '.join(map(str, self.grid))}] is launched with a grid "
                     "inside another kernel's trace; call it without a grid (it runs in the "
                     "caller's program)", location)
            return self.fn(*args, **kwargs)
        if self.mode == "benchmark":
            run = _drivers.BenchmarkKernel(self, {})
            outs = run._run(args, kwargs, location)
            self.benchmark_result = run.benchmark_result
            return outs
        return _drivers.run_outputs(self, args, kwargs, None, location)

    def __repr__(self):
        return f"<nki.jit kernel {self.name}{list(self.grid) if self.grid else ''}>"


# One DMA of an in-place argument's copy: 128 rows of 16 Ki elements (a row's stride
# must fit the access pattern's int16 stride, reference section 2: at most 32767).
_COPY_ROW = 16384


def _copy_hbm(dst, src):
    """dst = src, whole HBM tensors, by dma_copy's of at most 128 x _COPY_ROW elements
    (DMA access patterns take at most 128 partitions)."""
    from . import isa

    n = 1
    for d in dst.shape:
        n *= d
    row = min(_COPY_ROW, max(1, n // 128))  # 128 rows where the size allows: DMAs split by row
    pos = 0
    while pos < n:
        rows = min(128, (n - pos) // row)
        shape = (rows, row) if rows else (1, n - pos)
        views = [Tensor("hbm", h.dtype, shape, (shape[1], 1), pos, hbm=h, name=h.name)
                 for h in (dst, src)]
        isa.dma_copy(dst=views[0], src=views[1])
        pos += shape[0] * shape[1]


def _definition(fn):
    """(file, line) of the kernel function's def, for errors about the kernel as a whole."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return ("<kernel>", 0)
    return (code.co_filename, code.co_firstlineno)


class _InPlace(Exception):
    """A first trace found arguments the kernel reads and writes: trace again with them
    in place (JitKernel._trace)."""

    def __init__(self, params):
        super().__init__(params)
        self.params = frozenset(params)


def _written_inputs(tr, inputs):
    """Arguments the kernel stores into (nt.mutable_tensor outputs passed in, as current
    NKI allows, or the tutorials' output arguments). Ones that are also read are in-place
    updates: _InPlace asks for a trace that copies them first."""
    by_name = {h.name: h for h in inputs}
    written, read = set(), set()
    for ins in tr.instrs:
        for v in getattr(ins, "writes", ()):
            if v.space == "hbm" and v.buffer in by_name:
                written.add(v.buffer)
        for v in getattr(ins, "reads", ()):
            if v.space == "hbm" and v.buffer in by_name:
                read.add(v.buffer)
    both = written & read
    if both:
        raise _InPlace(by_name[n].param for n in both)
    return [h for h in inputs if h.name in written]


_JIT_KEYWORDS = ("name", "reuse_delay", "schedule", "mode", "platform_target")


def jit(fn=None, *, mode="auto", name=None, reuse_delay=8, schedule="list",
        platform_target=None, **options):
    """Marks a function as a kernel (NKI's @nki.jit). Its arguments are the kernel's HBM
    input tensors (numpy arrays, nki.typed, nt.tensor[shape, dtype] specs) or constants
    (numbers, strings, tuples, dtypes, ops...).

    mode: NKI's ("auto", "simulation", "baremetal", "jax", "torchxla": calling runs the
    kernel on neuronsim and returns its outputs as numpy arrays; "benchmark": calling
    benchmarks it). platform_target: "trn1" / "inf2" (trn1's NeuronCore-v2), "trn2",
    "trn3". The neuronx-cc options (COMPILER_OPTIONS) are accepted and kept.

    reuse_delay: a block freed after a tile's last use is avoided for this many further
    placements while other room exists (PSUM: at most 4). Multi-buffering comes from the
    allocator's next-fit placement anyway; this matters only when memory is nearly full
    (docs/python.md, "Allocation").

    schedule: "list" (default) orders each engine's stream by a list schedule of rough
    durations; "program" keeps program order on the compute engines."""
    unknown = sorted(set(options) - set(COMPILER_OPTIONS))
    if unknown:
        fail(f"nki.jit: unknown keyword(s) {', '.join(unknown)} (neuronsim.nki takes "
             f"{', '.join(_JIT_KEYWORDS + tuple(COMPILER_OPTIONS))})")
    if fn is not None and not callable(fn):
        # @nki.jit("simulation") style: NKI's first positional parameter is the function.
        fail(f"nki.jit: expected the kernel function, got {fn!r} (write "
             f"@nki.jit(mode={fn!r}) for a mode)")

    def make(f):
        if isinstance(f, JitKernel):
            f = f.fn
        k = JitKernel(f, name, reuse_delay, schedule=schedule, mode=mode,
                      platform_target=platform_target, options=options)
        if platform_target is not None:
            k.resolve_target()  # an unknown name fails at the decorator's line
        return k

    return make if fn is None else make(fn)
