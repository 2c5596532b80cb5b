"""A sweep spec (docs/sweeps.md) read, checked and expanded into points.

A spec is JSON in which every list is a grid axis: the points are every combination of
the axes' values, in a fixed order (the kernel's parameters in spec order, then
`targets`, then the config overrides in spec order; the last axis varies fastest), so a
spec always expands into the same numbered points. `kernel` may also be a list of kernel
objects: each expands on its own and their points follow one another. A value that is
itself a list is written as an axis of one: [[1, 2]].
"""
import itertools
import json
import math
import os

from .. import Error

# The generators of `neuronsim example` and the options they read (cli/cmd_example.cpp):
# spec key -> the option it becomes.
EXAMPLE_OPTIONS = {"rows": "--rows", "cols": "--cols", "inner": "--inner", "dtype": "--dtype",
                   "buffers": "--buffers", "double_buffer": "--double-buffer"}
GRAPH_MODES = ("fused", "eager")
# The most points a spec may expand into: the points, their tasks and the table are held in
# memory (about 2 KB a point), so a typo such as an axis of range(10**6) in two places is
# refused before it is built rather than exhausting memory.
MAX_POINTS = 1_000_000
KINDS = ("example", "graph", "neff", "nki")
# Top-level keys and what they hold.
SPEC_KEYS = {"kernel", "targets", "overrides", "timing_only", "inputs", "seed", "plot", "name"}
KIND_KEYS = {
    "example": {"example"} | set(EXAMPLE_OPTIONS),
    "graph": {"graph", "mode"},
    "neff": {"neff"},
    "nki": {"nki", "args", "sizes", "params"},
}


class Point:
    """One point of a sweep: `index` (its place in the expansion), `params` (column ->
    value: every parameter of the point, axis or not, in column order), `kernel` (the
    kind and its scalar fields, file contents included), `target`, `overrides` (a nested
    dict or None), `timing_only`, `inputs` and `seed` (numerics only)."""

    def __init__(self, index, params, kernel, target, overrides, timing_only, inputs, seed):
        self.index, self.params, self.kernel = index, params, kernel
        self.target, self.overrides, self.timing_only = target, overrides, timing_only
        self.inputs, self.seed = inputs, seed

    def describe(self):
        """The point as JSON text (what a worker is given and a message names)."""
        return json.dumps({"index": self.index, "params": self.params}, sort_keys=False)


def _fail(where, reason):
    raise Error(f"{where}: {reason}")


def _axes(value, path, where):
    """[(column, values)] of a nested dict whose lists are axes; a scalar is an axis of one."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += _axes(v, path + [str(k)], where)
        return out
    if isinstance(value, list):
        if not value:
            _fail(where, f"axis '{'.'.join(path)}' is an empty list: give at least one value")
        return [(".".join(path), value)]
    return [(".".join(path), [value])]


def _nest(flat):
    """{"a.b": 1} -> {"a": {"b": 1}}."""
    out = {}
    for path, v in flat.items():
        node = out
        parts = path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = v
    return out


def _read(base, rel, where, binary=False):
    path = os.path.join(base, rel)
    try:
        with open(path, "rb" if binary else "r") as f:
            return f.read()
    except OSError as e:
        _fail(where, f"cannot read {path}: {e.strerror}")


def _kind_of(k, where):
    kinds = [kind for kind in KINDS if kind in k]
    if len(kinds) != 1:
        _fail(where, f"a kernel names exactly one kind of {', '.join(KINDS)}; this one has "
                     f"{', '.join(kinds) or 'none'}")
    kind = kinds[0]
    unknown = sorted(set(k) - KIND_KEYS[kind])
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(unknown)} for the {kind} kind (it takes "
                     f"{', '.join(sorted(KIND_KEYS[kind]))})")
    return kind


def _kernel_axes(k, kind, where):
    """[(column, values)] of one kernel object, and its fixed fields."""
    if kind == "nki":
        if not isinstance(k["nki"], str) or ":" not in k["nki"]:
            _fail(where, "nki names FILE.py:FUNCTION")
        args = k.get("args", {})
        if not isinstance(args, dict) or not args:
            _fail(where, "an nki kernel needs args: {name: {\"shape\": [...], \"dtype\": ...}}")
        for name, a in args.items():
            if not isinstance(a, dict) or set(a) != {"shape", "dtype"}:
                _fail(where, f"nki argument '{name}' is {{\"shape\": [...], \"dtype\": ...}}")
        for group in ("sizes", "params"):
            if not isinstance(k.get(group, {}), dict):
                _fail(where, f"nki {group} is an object {{name: value or [values]}}")
        axes = [("nki", [k["nki"]])]
        axes += _axes(k.get("sizes", {}), [], where) + _axes(k.get("params", {}), [], where)
        names = [c for c, _ in axes]
        if len(set(names)) != len(names):
            _fail(where, "a name is both a size and a param")
        return axes, {"args": args, "sizes": list(k.get("sizes", {})),
                      "params": list(k.get("params", {}))}
    axes = [(key, v if isinstance(v, list) else [v]) for key, v in k.items()]
    for col, values in axes:
        if not values:
            _fail(where, f"axis '{col}' is an empty list: give at least one value")
    if kind == "example":
        for col, values in axes:
            for v in values:
                if col in ("example", "dtype") and not isinstance(v, str):
                    _fail(where, f"{col} is a string, not {json.dumps(v)}")
                if col == "double_buffer" and not isinstance(v, bool):
                    _fail(where, f"double_buffer is true or false, not {json.dumps(v)}")
                if col in ("rows", "cols", "inner", "buffers") and (
                        not isinstance(v, int) or isinstance(v, bool) or v < 1):
                    _fail(where, f"{col} is a positive integer, not {json.dumps(v)}")
    if kind == "graph":
        if "mode" not in k:  # compile's own default
            axes.append(("mode", ["fused"]))
        for m in dict(axes)["mode"]:
            if m not in GRAPH_MODES:
                _fail(where, f"mode is one of {', '.join(GRAPH_MODES)}, not {json.dumps(m)}")
    for col, values in axes:
        if col in ("graph", "neff", "nki"):
            for v in values:
                if not isinstance(v, str):
                    _fail(where, f"{col} is a file path, not {json.dumps(v)}")
    return axes, {}


def _files(kernel, base, where, read):
    """The contents of the files a point's kernel names, so a worker needs none of them.
    `read`: {(path, binary): contents}, each file read once for all its points."""

    def once(rel, binary=False):
        if (rel, binary) not in read:
            read[rel, binary] = _read(base, rel, where, binary)
        return read[rel, binary]

    kind = kernel["kind"]
    if kind == "graph":
        kernel["graph_text"] = once(kernel["graph"])
    elif kind == "neff":
        kernel["neff_bytes"] = once(kernel["neff"], binary=True)
    elif kind == "nki":
        file, _, function = kernel["nki"].rpartition(":")
        kernel["nki_file"], kernel["nki_function"] = file, function
        kernel["nki_source"] = once(file)


def load(path):
    """(spec dict, the directory its relative paths start from) of a spec file."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise Error(f"{path}: cannot read the sweep spec: {e.strerror}") from None
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as e:
        raise Error(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    return spec, os.path.dirname(os.path.abspath(path))


def expand(spec, base=".", where="spec"):
    """The points of `spec` (a dict), in expansion order, and the parameter columns."""
    if not isinstance(spec, dict):
        _fail(where, "a sweep spec is a JSON object")
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(unknown)} (a spec takes "
                     f"{', '.join(sorted(SPEC_KEYS))})")
    if "kernel" not in spec:
        _fail(where, "a spec needs a kernel")
    kernels = spec["kernel"] if isinstance(spec["kernel"], list) else [spec["kernel"]]
    if not kernels:
        _fail(where, "kernel is an empty list")
    targets = spec.get("targets", ["trn2"])
    targets = targets if isinstance(targets, list) else [targets]
    from .. import target_names

    presets = target_names()
    if not targets or not all(isinstance(t, str) and t in presets for t in targets):
        _fail(where, f"targets is a list of target presets ({', '.join(presets)}), not "
                     f"{json.dumps(targets)}; a config file's changes are overrides")
    overrides = spec.get("overrides", {})
    if not isinstance(overrides, dict):
        _fail(where, "overrides is an object of config sections, as an override file")
    override_axes = _axes(overrides, [], where)
    timing_only = spec.get("timing_only", True)
    if not isinstance(timing_only, bool):
        _fail(where, "timing_only is true or false")
    inputs = spec.get("inputs", {})
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        _fail(where, "inputs is an object {tensor: generator or .npy file} (docs/npy.md)")
    if timing_only and inputs:
        _fail(where, "inputs are for numerics: give them with \"timing_only\": false")
    seed = spec.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        _fail(where, "seed is a non-negative integer")

    points, columns, read = [], ["kernel"], {}
    expanded = []
    for ki, k in enumerate(kernels):
        kwhere = f"{where}: kernel" + (f"[{ki}]" if len(kernels) > 1 else "")
        if not isinstance(k, dict):
            _fail(kwhere, "a kernel is a JSON object")
        kind = _kind_of(k, kwhere)
        kaxes, fixed = _kernel_axes(k, kind, kwhere)
        expanded.append((kwhere, kind, kaxes, fixed))
    total = sum(math.prod(len(v) for _, v in kaxes) for _, _, kaxes, _ in expanded) * len(
        targets) * math.prod(len(v) for _, v in override_axes)
    if total > MAX_POINTS:
        _fail(where, f"{total} points; a sweep has at most {MAX_POINTS}")
    for kwhere, kind, kaxes, fixed in expanded:
        axes = kaxes + [("target", targets)] + [("overrides." + c, v) for c, v in override_axes]
        for col, _ in axes:
            if col not in columns and col != kind:
                columns.append(col)
        for combo in itertools.product(*(values for _, values in axes)):
            values = dict(zip((c for c, _ in axes), combo))
            label = f"{kind}:{values[kind]}"
            params = {"kernel": label}
            params.update({c: v for c, v in values.items() if c != kind})
            kernel = {"kind": kind, kind: values[kind]}
            kernel.update({c: values[c] for c, _ in kaxes if c != kind})
            kernel.update(fixed)
            _files(kernel, base, kwhere, read)
            ov = _nest({c[len("overrides."):]: v for c, v in values.items()
                        if c.startswith("overrides.")}) or None
            points.append(Point(len(points), params, kernel, values["target"], ov, timing_only,
                                inputs, seed))
    return points, columns
