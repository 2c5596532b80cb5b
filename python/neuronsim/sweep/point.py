"""One sweep point, run where a Dask worker runs it: build its kernel, hash it with its
config, skip it if that hash is cached, otherwise run it timing-only (or with numerics)
and return its simulated summary figures.

Every step is the `neuronsim` program (program.py finds the one installed beside this
package), so a point is exactly `neuronsim example|compile` then `neuronsim run`, each in
a process of its own: a kernel that crashes the simulator fails its point only. An NKI
kernel is traced here, in Python (neuronsim.nki), then saved as a NEFF and run the same
way. Nothing a point does depends on the machine or the order points run in.
"""
import functools
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import figures as figures_of
from .program import program
from .spec import EXAMPLE_OPTIONS

ERROR_PREFIX = "neuronsim: error: "


class PointError(Exception):
    """A point that could not be built or run: its row says why."""


def _sha256_files(directory):
    """SHA-256 over a directory's files (names and bytes, in name order)."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            h.update(os.path.relpath(path, directory).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def _neuronsim(args, tmp, what):
    """Runs the program; its stdout, or PointError with its message (temp paths named as
    the spec names them, so the message is the same wherever it ran)."""
    r = subprocess.run([program()] + args, cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        # neuronsim's error (a problem list is indented lines after the first), or CLI11's
        # usage error without its "Run with --help" line, as one line.
        lines = [l.strip() for l in r.stderr.splitlines()
                 if l.strip() and not l.startswith("Run with --help")] or [
            f"exit status {r.returncode}, no message"]
        text = " ".join(lines)
        if r.returncode < 0:
            text = f"neuronsim {args[0]} was killed by signal {-r.returncode}"
        text = text[len(ERROR_PREFIX):] if text.startswith(ERROR_PREFIX) else text
        raise PointError(f"{what}: {text.replace(tmp + os.sep, '').replace(tmp, '.')}")
    return r.stdout


@functools.lru_cache(maxsize=None)
def version():
    return subprocess.run([program(), "--version"], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


def _target_file(target, overrides_json, tmp):
    """The -t argument of every step: the preset, or a target file of the preset with the
    point's overrides (docs/config.md: {"base": PRESET, ...}), so that the kernel is built
    for the target it runs on (its DMA queues spread over the engines it has)."""
    if overrides_json is None:
        return target
    doc = dict(json.loads(overrides_json), base=target)
    with open(os.path.join(tmp, "target.json"), "w") as f:
        json.dump(doc, f, sort_keys=True)
    return "target.json"


@functools.lru_cache(maxsize=256)
def _config_hash(target, overrides_json):
    """SHA-256 of the fully resolved config: equal hashes, equal configs."""
    tmp = tempfile.mkdtemp(prefix="neuronsim-sweep-config-")
    try:
        text = _neuronsim(["config", "-t", _target_file(target, overrides_json, tmp), "--dump"],
                          tmp, "config")
        return hashlib.sha256(text.encode()).hexdigest()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _example(k, target, tmp):
    args = ["example", k["example"], "-t", target, "-o", "kernel.neff"]
    for key, option in EXAMPLE_OPTIONS.items():
        if key in k and key == "double_buffer":
            args += [option] if k[key] else []
        elif key in k:
            args += [option, str(k[key])]
    _neuronsim(args, tmp, "example " + k["example"])
    return "kernel.neff"


def _graph(k, target, tmp):
    with open(os.path.join(tmp, "graph.json"), "w") as f:
        f.write(k["graph_text"])
    _neuronsim(["compile", "graph.json", "--mode", k["mode"], "-t", target, "-o", "program"], tmp,
               "compile " + k["graph"])
    return os.path.join("program", "launch.json")


def _neff(k, tmp):
    with open(os.path.join(tmp, "kernel.neff"), "wb") as f:
        f.write(k["neff_bytes"])
    return "kernel.neff"


@functools.lru_cache(maxsize=None)
def _nki_sources():
    """This process's directory of NKI kernel sources, removed at exit."""
    import atexit

    directory = tempfile.mkdtemp(prefix="neuronsim-sweep-nki-")
    atexit.register(shutil.rmtree, directory, True)
    return directory


def _nki(k, target, tmp):
    """Traces FUNCTION of the kernel's file with shape-only arguments (nt.tensor[shape,
    dtype]: a timing-only run needs no data) and its params as keywords."""
    from .. import Error
    from .. import nki
    from ..nki import typing as nt
    from ..nki._jit import JitKernel

    digest = hashlib.sha256(k["nki_source"].encode()).hexdigest()[:16]
    name = "neuronsim_sweep_" + digest
    # Imported once per process, from a directory that outlives the point's (the module's
    # functions name their file in messages), named as the spec names it in those messages.
    source = os.path.join(_nki_sources(), digest, os.path.basename(k["nki_file"]))
    try:
        module = sys.modules.get(name)
        if module is None:
            os.makedirs(os.path.dirname(source), exist_ok=True)
            with open(source, "w") as f:
                f.write(k["nki_source"])
            spec = importlib.util.spec_from_file_location(name, source)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
        fn = getattr(module, k["nki_function"], None)
        if fn is None:
            raise PointError(f"{k['nki_file']}: no function {k['nki_function']}")
        kernel = fn if isinstance(fn, JitKernel) else nki.jit(fn)
        sizes = {s: k[s] for s in k["sizes"]}
        args = []
        for arg, a in k["args"].items():
            shape = [sizes[d] if isinstance(d, str) else d for d in a["shape"]]
            args.append(nt.tensor[shape, a["dtype"]])
        traced = kernel.trace(*args, target=target, **{p: k[p] for p in k["params"]})
        traced.kernel.save(os.path.join(tmp, "kernel.neff"))
    except PointError:
        raise
    except (Error, AssertionError, KeyError, TypeError, ValueError) as e:
        text = str(e).replace(source, k["nki_file"]) or type(e).__name__
        raise PointError(f"nki {k['nki']}: {text}") from None
    return "kernel.neff"


def _build(point, target, tmp):
    """The kernel's file (a NEFF or launch.json) in tmp, and its hash. `target`: the -t
    value (_target_file); an NKI kernel is traced for the preset."""
    k = point.kernel
    kind = k["kind"]
    if kind == "example":
        artifact = _example(k, target, tmp)
    elif kind == "graph":
        artifact = _graph(k, target, tmp)
    elif kind == "neff":
        artifact = _neff(k, tmp)
    else:
        artifact = _nki(k, point.target, tmp)
    built = os.path.dirname(os.path.join(tmp, artifact)) if kind == "graph" else None
    if built is None:
        with open(os.path.join(tmp, artifact), "rb") as f:
            return artifact, hashlib.sha256(f.read()).hexdigest()
    return artifact, _sha256_files(built)


def overrides_json(point):
    return None if point.overrides is None else json.dumps(point.overrides, sort_keys=True)


def check_configs(points, where):
    """Every distinct target and overrides of the points loads (an unknown parameter or
    target is the spec's error, found before anything runs)."""
    from .. import Error

    for target, overrides in sorted({(p.target, overrides_json(p)) for p in points},
                                    key=lambda t: (t[0], t[1] or "")):
        try:
            _config_hash(target, overrides)
        except PointError as e:
            raise Error(f"{where}: target {target}" + (f" with overrides {overrides}" if overrides
                                                        else "") + f": {e}") from None


def key(point, kernel_hash):
    doc = {"simulator": version(), "kernel": kernel_hash,
           "config": _config_hash(point.target, overrides_json(point)),
           "timing_only": point.timing_only,
           "inputs": point.inputs, "seed": point.seed}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _simulate(point, target, artifact, tmp):
    args = ["run", artifact, "-t", target, "-q", "--stats-json", "stats.json"]
    if point.timing_only:
        args.append("--timing-only")
    else:
        args += ["--seed", str(point.seed)]
        for name, gen in point.inputs.items():
            args += ["--input", f"{name}={gen}"]
    _neuronsim(args, tmp, "run")
    with open(os.path.join(tmp, "stats.json")) as f:
        return figures_of.of_stats(json.load(f))


def run(point, cached_keys):
    """{"index", "key", "status" ("ok", "cached" or "error"), "figures" or "error",
    "wall_s", "host"}: one point's outcome. `cached_keys`: keys the client holds."""
    start = time.monotonic()
    out = {"index": point.index, "key": None, "host": os.uname().nodename}
    tmp = tempfile.mkdtemp(prefix="neuronsim-sweep-")
    try:
        target = _target_file(point.target, overrides_json(point), tmp)
        artifact, kernel_hash = _build(point, target, tmp)
        out["key"] = key(point, kernel_hash)
        if out["key"] in cached_keys:
            out["status"] = "cached"
        else:
            out["figures"] = _simulate(point, target, artifact, tmp)
            out["status"] = "ok"
    except PointError as e:
        out["status"], out["error"] = "error", str(e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["wall_s"] = time.monotonic() - start
    return out
