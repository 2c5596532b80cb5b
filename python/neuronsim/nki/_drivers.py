"""The drivers that run a kernel, as NKI documents them: nki.simulate_kernel,
nki.simulate, nki.baremetal, nki.benchmark, nki.profile (API pages nki.simulate_kernel,
nki.simulate, nki.baremetal, nki.benchmark, nki.profile), plus neuronsim's own
`nki.benchmark(kernel, *args, target=)` -> BenchmarkResult.

Every driver runs the traced kernel on neuronsim's simulated NeuronCore of the target;
nothing here needs Neuron hardware. A driver call with a keyword it does not know raises
NkiError naming the driver and the keyword.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile

import numpy as np

from ._args import _numpy_int
from ._core import NkiError, fail, user_location
from ._jit import JitKernel, _target_from_compile_opt, jit
from ._lower import python_error


def _as_kernel(kernel, driver, location):
    if isinstance(kernel, _Driven):
        return kernel.kernel
    if isinstance(kernel, JitKernel):
        return kernel
    if callable(kernel):  # nki.simulate page: "If a plain function is passed, it is
        return jit(kernel)  # automatically wrapped."
    fail(f"{driver}: expected a kernel (a function decorated with @nki.jit), not "
         f"{type(kernel).__name__}", location)


def _run(kernel, args, kwargs, target, location, seed=0, **run_options):
    """(TracedKernel, Call, neuronsim.RunResult) of one run."""
    import neuronsim

    from . import _spmd

    # A launch grid on a logical NeuronCore of several physical cores runs one program
    # per core (nki/_spmd.py), unless the user chose cores (neuronsim's runner options).
    used = _spmd.split_launch(kernel, kernel.resolve_target(target))
    if used is not None and set(run_options) <= {"timing_only", "profile_dir"}:
        return _spmd.run_launch(kernel, used, args, kwargs, kernel.resolve_target(target),
                                location, seed, **run_options)
    traced, call = kernel.prepare(args, kwargs, target, location)
    tensors = dict(call.tensors)
    # A timing-only run reads no data ("nothing computes and no data moves"): skip making
    # and converting it (a 8192x8192 spec is 256 MiB of floats per launch).
    inputs = None if run_options.get("timing_only") else {
        h.name: tensors[h.param].data(seed + i) for i, h in enumerate(traced.inputs)}
    try:
        result = neuronsim.run(traced.kernel, inputs, target=traced.target, **run_options)
    except neuronsim.Error as e:
        if isinstance(e, NkiError):
            raise
        raise NkiError(python_error(str(e), traced.name, traced.line_map)) from None
    return traced, call, result


def _outputs(traced, call, result, write_back=True):
    """The kernel's returned outputs (one array, a tuple, or None when it returned
    nothing), after writing every argument the kernel wrote (nt.mutable_tensor) back into
    the caller's array, as NKI's mutable parameters are updated."""
    tensors = dict(call.tensors)
    by_name = {h.name: h for h in traced.outputs}
    for name in (traced.mutable if write_back else ()):
        user = tensors[by_name[name].param].user
        if user is not None and isinstance(user, np.ndarray) and user.flags.writeable:
            np.copyto(user, result.outputs[name].astype(user.dtype, copy=False), casting="unsafe")
    outs = [_as_output_dtype(result.outputs[n], by_name[n]) if n in result.outputs
            else _placeholder(by_name[n]) for n in traced.returned]
    outs = [_returned_view(o, v) for o, v in zip(outs, traced.returned_views)]
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def _returned_view(array, view):
    """The returned value as the kernel returned it: a reshape or slice of an output
    tensor (`return out.reshape(...)`) is that view of the output's data, copied."""
    if view is None:
        return array
    _, shape, strides, offset = view
    flat = np.ascontiguousarray(array).reshape(-1)
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=shape,
                                           strides=[s * item for s in strides]).copy()


def _as_output_dtype(array, h):
    """An output in its tensor's dtype where numpy has one (float16 exactly: neuronsim
    returns float tensors as float32 holding values of the dtype); bfloat16, tfloat32 and
    the fp8 types stay float32, numpy having no such dtype."""
    if h.dtype.nki_name == "float16" and array.dtype == np.float32:
        return array.astype(np.float16)
    return array


def _placeholder(h):
    """A timing-only run computes nothing: its outputs are zeros of the right shape (NKI's
    benchmark outputs are "undefined")."""
    numpy_int = _numpy_int(h.dtype)  # x4: its bit patterns
    return _as_output_dtype(np.zeros(h.shape, np.float32 if h.dtype.is_float else
                                    np.dtype(numpy_int)), h)


def run_outputs(kernel, args, kwargs, target, location):
    traced, call, result = _run(kernel, args, kwargs, target, location)
    return _outputs(traced, call, result)


def _check_keywords(driver, given, allowed, location):
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        fail(f"{driver}: unknown keyword(s) {', '.join(unknown)} (it takes "
             f"{', '.join(allowed) or 'none'})", location)


# --- simulate -----------------------------------------------------------------------------


def simulate(kernel, *args, target=None, **kwargs):
    """nki.simulate(kernel)(*args): a callable that runs the kernel on neuronsim and
    returns its outputs (page nki.simulate). With arguments after the kernel,
    nki.simulate(kernel, *args, target=...) runs it at once (neuronsim's earlier form).
    Outputs are numpy arrays: float tensors as float32."""
    location = user_location()
    k = _as_kernel(kernel, "nki.simulate", location)
    if not args and not kwargs:
        def simulated(*a, **kw):
            return run_outputs(k, a, kw, target, user_location())

        simulated.__name__ = f"simulate({k.name})"
        simulated.__wrapped__ = k
        return simulated
    return run_outputs(k, args, kwargs, target, location)


def simulate_kernel(kernel, *args, **kwargs):
    """nki.simulate_kernel(kernel, *args, **kwargs): runs the kernel with these
    arguments and returns its outputs (page nki.simulate_kernel). kwargs are the
    kernel's own; the target is the kernel's (platform_target, else
    NEURON_PLATFORM_TARGET_OVERRIDE, else trn2)."""
    location = user_location()
    k = _as_kernel(kernel, "nki.simulate_kernel", location)
    return run_outputs(k, args, kwargs, None, location)


def execute(kernel, *args, **kwargs):
    """nki.execute(kernel, *args, **kwargs): specialises the kernel and runs it, returning
    its outputs (page nki.execute: on hardware there; on neuronsim here, as simulate_kernel
    does)."""
    location = user_location()
    k = _as_kernel(kernel, "nki.execute", location)
    return run_outputs(k, args, kwargs, None, location)


# --- benchmark results --------------------------------------------------------------------


class LatencyStats:
    """benchmark_result.nc_latency: get_latency_percentile(p) is the p-th percentile of
    the iterations' latencies in microseconds (nki.benchmark page: "Available
    percentiles: [0, 1, 10, 25, 50, 90, 99, 100]"; any p in 0..100 works here)."""

    PERCENTILES = (0, 1, 10, 25, 50, 90, 99, 100)

    def __init__(self, latencies_us):
        self.latencies_us = list(latencies_us)

    def get_latency_percentile(self, percentile):
        location = user_location()
        if isinstance(percentile, bool) or not isinstance(percentile, (int, float)) or \
                not 0 <= percentile <= 100:
            fail(f"get_latency_percentile({percentile!r}): a percentile is a number in 0..100 "
                 f"(NKI lists {list(self.PERCENTILES)})", location)
        return float(np.percentile(self.latencies_us, percentile))

    def __repr__(self):
        p50 = self.get_latency_percentile(50)
        return f"<nc_latency p50 {p50:.3f} us over {len(self.latencies_us)} iterations>"


class BenchmarkResult:
    """Latency and per-engine utilisation of one simulated run (neuronsim's
    nki.benchmark(kernel, *args) result), and `nc_latency` as NKI's benchmark_result has.
    Repeated runs of a kernel take the same time: the simulation is deterministic and no
    state carries over from one launch to the next."""

    def __init__(self, traced, result, latencies_ns=None):
        self.traced = traced
        self.latency_ns = result.total_ns
        self.engines = result.engines
        self.utilisation = {e: v["utilisation"] for e, v in result.engines.items()}
        self.stats = result.stats
        self.profile_dir = result.profile_dir
        self.outputs = result.outputs
        self.latencies_ns = list(latencies_ns or [result.total_ns])
        # An SPMD launch on several physical cores: each core's device time (nki/_spmd.py).
        self.core_latency_ns = list(getattr(result, "core_latency_ns", [result.total_ns]))
        self.nc_latency = LatencyStats([t / 1000.0 for t in self.latencies_ns])

    @property
    def latency_us(self):
        return self.latency_ns / 1000.0

    def __repr__(self):
        util = ", ".join(f"{e} {100 * u:.0f}%" for e, u in self.utilisation.items())
        return (f"<benchmark {self.traced.name} on {self.traced.target}: {self.latency_ns:.0f} ns; "
                f"{util}; profile {self.profile_dir}>")


def _profile_files(profile_dir):
    neffs = glob.glob(os.path.join(profile_dir, "neff_*.neff"))
    ntffs = glob.glob(os.path.join(profile_dir, "*_instid_0_vnc_*.ntff"))
    return (neffs[0] if neffs else None), (ntffs[0] if ntffs else None)


def _save(src, dst, what, location, overwrite=True):
    if src is None:
        fail(f"{what}: the run wrote no file to save", location)
    dst = os.path.abspath(os.fspath(dst))
    if os.path.exists(dst) and not overwrite:
        fail(f"{what}: {dst} exists (pass overwrite=True to replace it)", location)
    parent = os.path.dirname(dst)
    try:
        os.makedirs(parent, exist_ok=True)
        shutil.copyfile(src, dst)
    except OSError as e:
        fail(f"{what}: cannot write {dst}: {e.strerror}", location)
    return dst


def _positive(driver, name, value, location, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        fail(f"{driver}: {name} must be an int >= {minimum}, got {value!r}", location)
    return value


# --- the decorators -----------------------------------------------------------------------


class _Driven:
    """A kernel wrapped by a driver decorator: calling it runs the driver."""

    DRIVER = ""
    KEYWORDS = {}

    def __init__(self, kernel, options, location=None):
        location = location or user_location()
        self.kernel = _as_kernel(kernel, self.DRIVER, location)
        _check_keywords(self.DRIVER, options, self.KEYWORDS, location)
        self.options = dict(self.KEYWORDS, **options)
        self._validate(location)
        self.__name__ = self.kernel.name
        self.__doc__ = self.kernel.fn.__doc__
        self.__wrapped__ = self.kernel.fn

    def _validate(self, location):
        pass

    def _target(self):
        opt = self.options.get("additional_compile_opt")
        t = _target_from_compile_opt(opt) if opt else None
        return self.kernel.resolve_target(t)

    def __getitem__(self, grid):
        return type(self)(self.kernel[grid], self.options)

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs, user_location())

    def __repr__(self):
        return f"<{self.DRIVER} {self.kernel.name}>"


def _decorate(cls, kernel, kwargs, location):
    """NKI's driver decorators work bare (@d), called (@d(...)) and as d(f, ...)."""
    if kernel is None:
        _check_keywords(cls.DRIVER, kwargs, cls.KEYWORDS, location)
        return lambda f: cls(f, kwargs, location)
    return cls(kernel, kwargs, location)


class BaremetalKernel(_Driven):
    """@nki.baremetal(...): calling runs the kernel and returns its outputs (page
    nki.baremetal). save_neff_name / save_trace_name keep the NEFF / NTFF (a profiled
    run); artifacts_dir (must be empty or new, as the page says) gets the kernel's
    neuronsim assembly and NEFF."""

    DRIVER = "nki.baremetal"
    KEYWORDS = {"save_neff_name": None, "save_trace_name": None, "additional_compile_opt": None,
                "artifacts_dir": None, "target": None}

    def _run(self, args, kwargs, location):
        o = self.options
        target = o["target"] or self._target()
        profile_dir = None
        if o["save_trace_name"] or o["save_neff_name"]:
            profile_dir = tempfile.mkdtemp(prefix=f"nki_{self.kernel.name}_")
        traced, call, result = _run(self.kernel, args, kwargs, target, location,
                                    profile_dir=profile_dir)
        if profile_dir:
            neff, ntff = _profile_files(profile_dir)
            if o["save_neff_name"]:
                _save(neff, o["save_neff_name"], "nki.baremetal save_neff_name", location)
            if o["save_trace_name"]:
                _save(ntff, o["save_trace_name"], "nki.baremetal save_trace_name", location)
        if o["artifacts_dir"]:
            d = os.fspath(o["artifacts_dir"])
            if os.path.isdir(d) and os.listdir(d):
                fail(f"nki.baremetal: artifacts_dir {d} is not empty (nki.baremetal page: "
                     f"\"The directory must be empty before running\")", location)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"{traced.name}.nasm"), "w") as f:
                f.write(traced.asm())
            traced.kernel.save(os.path.join(d, f"{traced.name}.neff"))
        self.last_result = result
        return _outputs(traced, call, result)


def baremetal(kernel=None, **kwargs):
    """nki.baremetal(kernel) / @nki.baremetal(save_neff_name=, save_trace_name=,
    additional_compile_opt=, artifacts_dir=): run on neuronsim and return the outputs."""
    return _decorate(BaremetalKernel, kernel, kwargs, user_location())


class BenchmarkKernel(_Driven):
    """@nki.benchmark(warmup=10, iters=100, save_neff_name=, save_trace_name=,
    additional_compile_opt=) (page nki.benchmark): calling runs `warmup` launches, then
    `iters` measured launches, all timing-only (nothing computes, the time is identical),
    the first measured one profiled; `.benchmark_result.nc_latency` then gives latency
    percentiles in microseconds of neuronsim's device time. As on NKI, the outputs
    returned are not the kernel's results (NKI: "the output c tensor is undefined"):
    here they are whatever the timing-only run leaves, use nki.simulate for values."""

    DRIVER = "nki.benchmark"
    KEYWORDS = {"warmup": 10, "iters": 100, "save_neff_name": None, "save_trace_name": None,
                "additional_compile_opt": None, "target": None, "profile_dir": None}

    def _validate(self, location):
        _positive(self.DRIVER, "warmup", self.options["warmup"], location, 0)
        _positive(self.DRIVER, "iters", self.options["iters"], location, 1)

    def _run(self, args, kwargs, location):
        o = self.options
        target = o["target"] or self._target()
        for _ in range(o["warmup"]):
            _run(self.kernel, args, kwargs, target, location, timing_only=True)
        profile_dir = os.fspath(o["profile_dir"]) if o["profile_dir"] else \
            tempfile.mkdtemp(prefix=f"nki_{self.kernel.name}_")
        os.makedirs(profile_dir, exist_ok=True)
        traced, call, result = _run(self.kernel, args, kwargs, target, location,
                                    timing_only=True, profile_dir=profile_dir)
        result.profile_dir = result.profile_dir or profile_dir
        latencies = [result.total_ns]
        for _ in range(o["iters"] - 1):
            latencies.append(_run(self.kernel, args, kwargs, target, location,
                                  timing_only=True)[2].total_ns)
        neff, ntff = _profile_files(profile_dir)
        if o["save_neff_name"]:
            _save(neff, o["save_neff_name"], "nki.benchmark save_neff_name", location)
        if o["save_trace_name"]:
            _save(ntff, o["save_trace_name"], "nki.benchmark save_trace_name", location)
        self.benchmark_result = BenchmarkResult(traced, result, latencies)
        r = self.benchmark_result.nc_latency
        # The page: the decorator "prints the statistics to the console".
        print(f"nki.benchmark {traced.name} on {traced.target}: p50 "
              f"{r.get_latency_percentile(50):.3f} us, p99 {r.get_latency_percentile(99):.3f} us "
              f"over {o['iters']} iterations after {o['warmup']} warmup (neuronsim device "
              f"time); profile {profile_dir}")
        return _outputs(traced, call, result, write_back=False)


def benchmark(kernel=None, *args, **kwargs):
    """NKI's forms (page nki.benchmark): @nki.benchmark, @nki.benchmark(warmup=, iters=,
    save_neff_name=, save_trace_name=, additional_compile_opt=), nki.benchmark(f,
    warmup=...): a kernel whose call benchmarks it (result in .benchmark_result).

    neuronsim's form, with the arguments after the kernel: nki.benchmark(kernel, *args,
    target="trn2", profile_dir=None, timing_only=True) simulates one launch at once and
    returns a BenchmarkResult (latency_ns, utilisation, profile_dir that `neuronsim view`
    and `neuronsim report` open)."""
    location = user_location()
    if kernel is not None and args:
        return _benchmark_now(kernel, args, kwargs, location)
    if kernel is not None and not callable(kernel):
        fail(f"nki.benchmark: expected a kernel function, got {type(kernel).__name__}", location)
    return _decorate(BenchmarkKernel, kernel, kwargs, location)


def _benchmark_now(kernel, args, kwargs, location):
    k = _as_kernel(kernel, "nki.benchmark", location)
    target = kwargs.pop("target", None)
    profile_dir = kwargs.pop("profile_dir", None)
    timing_only = kwargs.pop("timing_only", True)
    if profile_dir is None:
        profile_dir = tempfile.mkdtemp(prefix=f"nki_{k.name}_")
    os.makedirs(profile_dir, exist_ok=True)
    traced, call, result = _run(k, args, kwargs, target, location, timing_only=timing_only,
                                profile_dir=profile_dir)
    if result.profile_dir is None:
        result.profile_dir = profile_dir
    return BenchmarkResult(traced, result)


class ProfileKernel(_Driven):
    """@nki.profile(working_directory=, save_neff_name="file.neff",
    save_trace_name="profile.ntff", additional_compile_opt=, overwrite=False,
    profile_nth=1) (page nki.profile): calling runs the kernel profile_nth times and
    profiles the last run, saving into working_directory the NEFF, the NTFF, a JSON profile
    summary (`<trace name>.json`: `neuronsim view --json`'s numbers) and the neuronsim
    profile directory `neuronsim_profile/` that `neuronsim view` / `report` open."""

    DRIVER = "nki.profile"
    KEYWORDS = {"working_directory": None, "save_neff_name": "file.neff",
                "save_trace_name": "profile.ntff", "additional_compile_opt": None,
                "overwrite": False, "profile_nth": 1, "target": None}

    def _validate(self, location):
        wd = self.options["working_directory"]
        if wd is None:
            fail("nki.profile: working_directory= is required (nki.profile page: \"This must "
                 "be specified and must also be an absolute path\")", location)
        if not os.path.isabs(os.fspath(wd)):
            fail(f"nki.profile: working_directory must be an absolute path, got {wd!r}", location)
        _positive(self.DRIVER, "profile_nth", self.options["profile_nth"], location, 1)

    def _run(self, args, kwargs, location):
        import neuronsim

        o = self.options
        wd = os.fspath(o["working_directory"])
        target = o["target"] or self._target()
        pdir = os.path.join(wd, "neuronsim_profile")
        files = [os.path.join(wd, o["save_neff_name"]), os.path.join(wd, o["save_trace_name"]),
                 pdir]
        if not o["overwrite"]:
            for f in files:
                if os.path.exists(f):
                    fail(f"nki.profile: {f} exists (pass overwrite=True to replace it)", location)
        if os.path.isdir(pdir):
            shutil.rmtree(pdir)
        os.makedirs(pdir)
        for _ in range(o["profile_nth"] - 1):
            _run(self.kernel, args, kwargs, target, location, timing_only=True)
        traced, call, result = _run(self.kernel, args, kwargs, target, location,
                                    profile_dir=pdir)
        neff, ntff = _profile_files(pdir)
        _save(neff, files[0], "nki.profile save_neff_name", location)
        _save(ntff, files[1], "nki.profile save_trace_name", location)
        summary = neuronsim.Profile(pdir).summary
        with open(os.path.splitext(files[1])[0] + ".json", "w") as f:
            json.dump(summary, f, indent=1, default=str)
        self.last_result = result
        return _outputs(traced, call, result)


def profile(func=None, **kwargs):
    """nki.profile(working_directory=..., ...) as a decorator (page nki.profile)."""
    return _decorate(ProfileKernel, func, kwargs, user_location())
