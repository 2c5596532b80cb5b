"""neuronsim in Python: assemble, load and run kernels on a simulated NeuronCore in this
process, many runs per session, and read their profiles (docs/python.md).

    import numpy as np, neuronsim
    k = neuronsim.load_neff("tiny_add.neff")
    r = neuronsim.run(k, {"a": np.ones((128, 512), np.float32),
                          "b": np.ones((128, 512), np.float32)}, target="trn2")
    r.outputs["out"], r.total_ns, r.engines["vector"]["utilisation"]
"""
import atexit
import json
import os
import tempfile

import numpy as np

from . import _core
from ._core import Error, Kernel
from ._core import from_bits, round_to, to_bits

__all__ = [
    "Error", "Kernel", "RunResult", "Profile", "Program", "assemble", "load_neff", "run",
    "compile", "round_to", "to_bits", "from_bits", "target_names", "session_info",
    "run_cores", "CoresResult", "whatif", "sweep",
]

def __getattr__(name):
    """neuronsim.sweep, imported when first used (its Dask and matplotlib only then)."""
    if name == "sweep":
        import importlib
        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Error.__module__ = __name__  # shown as neuronsim.Error
Kernel.__module__ = __name__

# The live cores go before SystemC's own static objects (python/core/session.hpp).
atexit.register(_core.shutdown)


def assemble(text, name="kernel", target=None):
    """Assembles `text` (docs/assembly.md, as `neuronsim asm`) and validates it for the
    kernel's target (or `target`, which the kernel then records). Errors name `name:LINE`."""
    return _core.assemble(text, name, target)


def load_neff(path):
    """Reads and checks a NEFF file."""
    return _core.load_neff(os.fspath(path))


def target_names():
    """The target presets: trn1, trn2, trn3."""
    return list(_core.target_names())


def session_info():
    """The in-process simulation: {"contexts": simulation contexts made so far, "launches":
    runs so far, "cores": target names of the live cores} (docs/python.md)."""
    return dict(_core.session_info())


class RunResult:
    """One run: outputs (name -> ndarray), total_ns (device time), neuroncore_cycle_count (the
    total at the profiler's cycle counter clock, the target's clocks.cycle_counter_ghz: 1.4 GHz
    on trn1, 1.2 on trn2/trn3; each engine's own clock is engines[e]["clock_ghz"]), stats
    (name -> value), engines (engine -> busy/wait/idle ns, instructions, utilisation),
    profile_dir."""

    def __init__(self, d):
        self.outputs = d["outputs"]
        self.total_ns = d["total_ns"]
        self.total_ps = d["total_ps"]
        self.neuroncore_cycle_count = d["neuroncore_cycle_count"]
        self.stats = d["stats"]
        self.stat_units = d["stat_units"]
        self.engines = d["engines"]
        self.profile_dir = d["profile_dir"]
        self.target = d["target"]
        self.kernel = d["kernel"]

    def profile(self):
        """The run's profile (needs profile_dir)."""
        if self.profile_dir is None:
            raise Error("run without profile_dir: no profile to open")
        return Profile(self.profile_dir)

    def __repr__(self):
        return "<neuronsim.RunResult %s on %s: %.3f ns, outputs %s>" % (
            self.kernel, self.target, self.total_ns, sorted(self.outputs))


def _kernel_of(kernel_or_path):
    if isinstance(kernel_or_path, Kernel):
        return kernel_or_path
    if isinstance(kernel_or_path, (str, os.PathLike)):
        return load_neff(kernel_or_path)
    raise Error("run: expected a neuronsim.Kernel or the path of a NEFF, not %s"
                % type(kernel_or_path).__name__)


def _input_array(value):
    a = np.ascontiguousarray(value)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return a


class _Overrides:
    """`overrides` as the config loader takes them: files, in order. A dict becomes a
    temporary file, named "overrides" in messages."""

    def __init__(self, overrides):
        self.paths, self._dir = [], None
        if overrides is None:
            return
        if isinstance(overrides, dict):
            self._dir = tempfile.TemporaryDirectory(prefix="neuronsim-overrides-")
            path = os.path.join(self._dir.name, "overrides.json")
            with open(path, "w") as f:
                json.dump(overrides, f)
            self.paths = [path]
        elif isinstance(overrides, (str, os.PathLike)):
            self.paths = [os.fspath(overrides)]
        else:
            self.paths = [os.fspath(p) for p in overrides]

    def message(self, error):
        text = str(error)
        if self._dir is not None:
            text = text.replace(self.paths[0], "overrides")
        return text

    def close(self):
        if self._dir is not None:
            self._dir.cleanup()


def _with_overrides(overrides, call):
    """call(override file paths), its errors naming the override that caused them."""
    extra = _Overrides(overrides)
    try:
        return call(extra.paths)
    except Error as e:
        if extra.paths and extra._dir is not None:
            raise Error(extra.message(e)) from None
        raise
    finally:
        extra.close()


def _input_arrays(inputs, what):
    """{tensor name: array} of a run's inputs (None: no data, a timing-only run)."""
    if inputs is None:
        return None
    if not hasattr(inputs, "items"):
        raise Error("%s: inputs must be a dict {tensor name: array}, not %s"
                    % (what, type(inputs).__name__))
    return {str(name): _input_array(value) for name, value in inputs.items()}


def run(kernel_or_neff_path, inputs=None, target="trn2", timing_only=False, profile_dir=None,
        raw_bits=False, raw_outputs=False, overrides=None, fill_uninitialised=False):
    """Runs a kernel on a live simulated NeuronCore of `target` (a preset name or a config
    JSON path; None: the kernel's own) in this process and returns a RunResult.

    inputs: {name: ndarray}. Floats are rounded into the tensor's dtype as the engines
    round; with raw_bits=True, unsigned integer arrays of the dtype's width are bit
    patterns (integers for a float tensor are otherwise an Error). raw_outputs=True returns
    float tensors as their bit patterns. overrides: a dict, a file or a list of files, as
    `neuronsim config --override`. profile_dir: write a profile `neuronsim view` opens.
    """
    kernel = _kernel_of(kernel_or_neff_path)
    arrays = _input_arrays(inputs, "run")
    d = _with_overrides(overrides, lambda paths: _core.run(
        kernel, arrays, None if target is None else os.fspath(target), paths, bool(timing_only),
        None if profile_dir is None else os.fspath(profile_dir), bool(raw_bits),
        bool(raw_outputs), bool(fill_uninitialised)))
    return RunResult(d)


class CoresResult:
    """A run of one kernel per core of one device (run_cores): outputs (the shared output
    tensors, name -> ndarray), cores (a RunResult per core, in core order, without
    outputs), total_ns (the last core's end), profile_dir (core_<i>/ per core)."""

    def __init__(self, d):
        self.outputs = d["outputs"]
        self.cores = [RunResult(dict(c, outputs={})) for c in d["cores"]]
        self.total_ns = d["total_ns"]
        self.target = d["target"]
        self.profile_dir = d["profile_dir"]

    def __repr__(self):
        return "<neuronsim.CoresResult on %d %s cores: %s ns>" % (
            len(self.cores), self.target, ", ".join("%.3f" % c.total_ns for c in self.cores))


def run_cores(kernels, inputs=None, target="trn2", timing_only=False, profile_dir=None,
              raw_bits=False, raw_outputs=False, overrides=None):
    """Runs kernels[i] on core i of one simulated device of `target`, all at once, sharing
    its HBM (as `neuronsim run --cores`): every input and output tensor is one tensor in
    the device HBM that all kernels naming it share (each may write its part of an
    output), the rest are each core's own. Returns a CoresResult; profile_dir gets one
    profile per core, profile_dir/core_<i>/ (`neuronsim report P/core_0 P/core_1`)."""
    kernels = [_kernel_of(k) for k in kernels]
    if not kernels:
        raise Error("run_cores: give at least one kernel")
    arrays = _input_arrays(inputs, "run_cores")
    d = _with_overrides(overrides, lambda paths: _core.run_cores(
        kernels, arrays, None if target is None else os.fspath(target), paths, bool(timing_only),
        None if profile_dir is None else os.fspath(profile_dir), bool(raw_bits),
        bool(raw_outputs)))
    return CoresResult(d)


class Profile:
    """A profile directory (or .ntff) as `neuronsim view` reads it: .summary (the numbers of
    `neuronsim view --json`), .stall_attribution (engine -> busy/wait/idle ps),
    .key_averages (rows: engine, opcode, count, total/mean/min/max ps, percent), .text
    (`neuronsim view`'s text) and to_pandas()."""

    def __init__(self, path, peak_tflops=None, top=10):
        d = _core.profile_summary(os.fspath(path), float(peak_tflops or 0.0), int(top))
        self.path = os.fspath(path)
        self.summary = d["summary"]
        self.stall_attribution = self.summary["stall_attribution"]
        self.key_averages = self.summary["key_averages"]
        self.text = d["text"]
        self.neff_path = d["neff"]
        self.ntff_path = d["ntff"]

    @property
    def total_ns(self):
        return self.summary["total_time_ps"] / 1000.0

    def to_pandas(self, table="key_averages"):
        """key_averages (default) or stall_attribution as a pandas DataFrame."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Profile.to_pandas needs pandas (apt-get install python3-pandas)") from e
        if table == "key_averages":
            return pandas.DataFrame(self.key_averages)
        if table == "stall_attribution":
            rows = []
            for engine, t in self.stall_attribution.items():
                row = {"engine": engine}
                row.update({k: v for k, v in t.items() if k != "semaphore_wait_by_source_ps"})
                rows.append(row)
            return pandas.DataFrame(rows)
        raise Error("to_pandas: table must be key_averages or stall_attribution, not %r" % table)

    def __repr__(self):
        return "<neuronsim.Profile %s: %s, %.3f ns>" % (
            self.path, self.summary["kernel_name"], self.total_ns)


class Program:
    """A compiled graph: .launches (dicts: name, neff, op, nodes, kernel), .kernels,
    .launch_json (the text of launch.json), .warnings, .out_dir (or None)."""

    def __init__(self, d, out_dir):
        self.program = d["program"]
        self.mode = d["mode"]
        self.target = d["target"]
        self.launches = d["launches"]
        self.kernels = [l["kernel"] for l in self.launches]
        self.launch_json = d["launch_json"]
        self.warnings = list(d["warnings"])
        self.out_dir = out_dir

    def __repr__(self):
        return "<neuronsim.Program %s (%s, %s): %d launch(es)>" % (
            self.program, self.mode, self.target, len(self.launches))


def whatif(kernel_or_path, target=None, overrides=None, waits=8, allow_outside_files=False):
    """What limits a kernel (docs/whatif.md): re-simulates it timing only with one resource
    relieved at a time and returns the ranking as `neuronsim whatif --json` prints it, a
    dict with "ranking" (a list of {"resource", "relief", "time_ns", "speedup", ...},
    fastest first), "baseline_ns" and the rest, plus "text" (the command's text).

    kernel_or_path: a neuronsim.Kernel, a list of them (one launch each), or the path of a
    NEFF or a launch.json (whose host model then gives the end-to-end time). target: a
    preset or a target file (None: the kernel's own). overrides: as for run. waits: how
    many semaphore waits of the critical path to take out, one at a time.
    """
    path, kernels, source = None, [], "kernel"
    if isinstance(kernel_or_path, (str, os.PathLike)):
        path = os.fspath(kernel_or_path)
    elif isinstance(kernel_or_path, Kernel):
        kernels, source = [kernel_or_path], "kernel"
    elif isinstance(kernel_or_path, (list, tuple)) and all(
            isinstance(k, Kernel) for k in kernel_or_path):
        kernels, source = list(kernel_or_path), "kernels"
    else:
        raise Error("whatif: expected a neuronsim.Kernel, a list of them or the path of a NEFF "
                    "or launch.json, not %s" % type(kernel_or_path).__name__)
    if not isinstance(waits, int) or isinstance(waits, bool) or waits < 0:
        raise Error("whatif: waits must be a non-negative integer, not %r" % (waits,))
    return _with_overrides(overrides, lambda paths: _core.whatif(
        path, kernels, source, None if target is None else os.fspath(target), paths, waits,
        bool(allow_outside_files)))


def compile(graph, mode="fused", target="trn2", out_dir=None):
    """Compiles a graph (docs/graph.md: a dict, or the path of its JSON file) as `neuronsim
    compile`: mode "fused" (one kernel) or "eager" (one per op). With out_dir, writes the
    program directory (one NEFF per launch and launch.json) that `neuronsim run` runs."""
    if isinstance(graph, dict):
        text, source = json.dumps(graph), str(graph.get("name", "graph"))
    elif isinstance(graph, (str, os.PathLike)):
        source = os.fspath(graph)
        try:
            with open(source) as f:
                text = f.read()
        except OSError as e:
            raise Error("%s: cannot read the graph: %s" % (source, e.strerror)) from None
    else:
        raise Error("compile: expected a graph dict or the path of a graph file, not %s"
                    % type(graph).__name__)
    out = None if out_dir is None else os.fspath(out_dir)
    return Program(_core.compile(text, source, mode, os.fspath(target), out), out)
