"""Calibration of a target's cost parameters against hardware measurements
(docs/calibration.md): `neuronsim calibrate kernels | measure | fit`.

    write_suite(dir, target)                 the microbenchmark suite a user runs on hardware
    measure(dir, config, output)             the suite on neuronsim: a measurements CSV
    fit(csv, target, output, report=None)    the fitted override and the error report
"""
import json
import os

from .. import Error, load_neff
from ..sweep.files import write_atomic
from . import kernels_source
from .cases import BY_KEY, CASES
from .fit import Fit, objective
from .measurements import COLUMNS, read as read_measurements, write_text
from .simulate import Simulator, check_preset, load_kernels_module, preset_values, run_config
from .simulate import trace_cases

__all__ = ["write_suite", "measure", "fit", "CASES"]

CASE_COLUMNS = ("kernel", "shape", "dtype", "target", "function", "neff", "family", "what")


def write_suite(directory, target="trn2"):
    """Writes kernels.py, driver.py, cases.csv and neffs/<case>.neff into `directory`
    (created; an existing one must be empty). Returns the number of cases."""
    check_preset(target, "calibrate kernels")
    if os.path.exists(directory):
        if not os.path.isdir(directory) or os.listdir(directory):
            raise Error(f"{directory}: exists and is not an empty directory")
    parent = os.path.dirname(os.path.abspath(directory))
    if not os.path.isdir(parent):
        raise Error(f"{directory}: its parent directory does not exist")
    import tempfile
    tmp = tempfile.mkdtemp(prefix=".calibrate-", dir=parent)
    try:
        for name, text in (("kernels.py", kernels_source.KERNELS),
                           ("driver.py", kernels_source.DRIVER)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        # The NEFFs' source tables carry kernels.py's text (docs/python.md, "Profiles in
        # Python lines"), under the temporary path it was traced from.
        module = load_kernels_module(os.path.join(tmp, "kernels.py"))
        kernels = trace_cases(module, target)
        os.mkdir(os.path.join(tmp, "neffs"))
        rows = []
        for c in CASES:
            neff = f"neffs/{c.name}.neff"
            kernels[c.key].save(os.path.join(tmp, neff))
            rows.append({"kernel": c.kernel, "shape": c.shape_text, "dtype": c.dtype,
                         "target": target, "function": c.function, "neff": neff,
                         "family": c.family, "what": c.what})
        with open(os.path.join(tmp, "cases.csv"), "w") as f:
            f.write(write_text(rows, CASE_COLUMNS))
        if os.path.isdir(directory):
            os.rmdir(directory)
        os.rename(tmp, directory)
    except BaseException:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return len(CASES)


def _suite_cases(directory):
    path = os.path.join(directory, "cases.csv")
    import csv
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise Error(f"{path}: cannot read ({e.strerror}): is {directory} a suite written by "
                    "`neuronsim calibrate kernels`?") from None
    out = []
    for i, r in enumerate(rows, start=2):
        key = (r.get("kernel"), r.get("shape"), r.get("dtype"))
        if key not in BY_KEY or not r.get("neff") or not r.get("target"):
            raise Error(f"{path}:{i}: not a case of this neuronsim's suite "
                        f"({' '.join(str(k) for k in key)})")
        out.append(r)
    if not out:
        raise Error(f"{path}: no cases")
    if len({r["target"] for r in out}) != 1:
        raise Error(f"{path}: cases for several targets")
    return out


def measure(directory, config, output):
    """Runs every case of the suite in `directory` (its NEFFs) timing-only on `config` (a
    preset or a target file whose base is the suite's target) and writes the measurements
    CSV. Returns the rows."""
    cases = _suite_cases(directory)
    base = cases[0]["target"]
    rows = []
    for r in cases:
        result = run_config(load_neff(os.path.join(directory, r["neff"])), config, base)
        rows.append({"kernel": r["kernel"], "shape": r["shape"], "dtype": r["dtype"],
                     "target": base, "measured_ns": "%.3f" % result.total_ns,
                     "source": "neuronsim " + os.path.basename(config)})
    write_atomic(output, write_text(rows, COLUMNS + ("source",)))
    return rows


def _fmt(x):
    return "%.4g" % x if isinstance(x, float) else str(x)


def fit(measurements, target, output, report=None, report_format=None, parameters=None):
    """Fits the parameters to the measurements CSV, writes the override (a target file
    {"base": target, ...}) to `output` and the report (.md, .csv or .json by its extension,
    or `report_format`) to `report`. Returns the report as a dict. `parameters` (names of
    parameters.py) limits the fit to those, for a CSV of a few cases that cannot
    determine the others."""
    check_preset(target, "calibrate fit")
    measured = read_measurements(measurements, target)
    if report is not None and report_format is None:
        ext = os.path.splitext(report)[1].lower()
        if ext not in (".md", ".csv", ".json"):
            raise Error(f"{report}: the report is .md, .csv or .json")
        report_format = ext[1:]
    cases = [c for c in CASES if c.key in measured]
    f = Fit(Simulator(target, cases), cases, measured, preset_values(target), parameters)
    before = f.times(f.start)
    values = f.run()
    after = f.times(values)
    result = _report(f, measurements, target, measured, cases, before, after)
    override = {"base": target, "name": f"{target}-calibrated",
                "description": f"{target} with cost parameters fitted by neuronsim calibrate "
                               f"to {os.path.basename(measurements)}"}
    for p in f.params:
        override.setdefault(p.section, {})[p.key] = values[p.name]
    texts = [(output, json.dumps(override, indent=2) + "\n")]
    if report is not None:
        texts.append((report, render(result, report_format)))
    for path, text in texts:  # every output checked writable before any is written
        d = os.path.dirname(os.path.abspath(path))
        if path != "-" and not os.path.isdir(d):
            raise Error(f"{path}: its directory does not exist")
    for path, text in texts:
        write_atomic(path, text)
    return result


def _report(f, path, target, measured, cases, before, after):
    rows = []
    for c in cases:
        m = measured[c.key]
        rows.append({"kernel": c.kernel, "shape": c.shape_text, "dtype": c.dtype,
                     "measured_ns": m, "before_ns": before[c.key], "after_ns": after[c.key],
                     "before_ratio": before[c.key] / m, "after_ratio": after[c.key] / m})
    params = []
    for p in f.params:
        b, a = f.start[p.name], f.values[p.name]
        params.append({"parameter": p.name, "before": b, "after": a, "ratio": a / b,
                       "low": p.low, "high": p.high, "cases": len(f.depends[p.name]),
                       "determined": f.determined(p.name), "bound": p.reason})
    return {"measurements": os.path.basename(path), "target": target,
            "objective_before": objective(before, measured),
            "objective_after": objective(after, measured),
            "passes": f.passes, "simulations": f.sim.runs, "cases": rows, "parameters": params}


def render(r, fmt):
    if fmt == "json":
        return json.dumps(r, indent=2, sort_keys=True) + "\n"
    if fmt == "csv":
        rows = [{"kind": "case", "name": f"{c['kernel']} {c['shape']} {c['dtype']}",
                 "measured_ns": _fmt(c["measured_ns"]), "before": _fmt(c["before_ns"]),
                 "after": _fmt(c["after_ns"]), "before_ratio": _fmt(c["before_ratio"]),
                 "after_ratio": _fmt(c["after_ratio"])} for c in r["cases"]]
        rows += [{"kind": "parameter", "name": p["parameter"], "measured_ns": "",
                  "before": _fmt(p["before"]), "after": _fmt(p["after"]),
                  "before_ratio": "", "after_ratio": _fmt(p["ratio"])} for p in r["parameters"]]
        return write_text(rows, ("kind", "name", "measured_ns", "before", "after",
                                 "before_ratio", "after_ratio"))
    rms = lambda o: (o ** 0.5)  # noqa: E731
    lines = [f"# Calibration of {r['target']} to {r['measurements']}", "",
             f"RMS log error (simulated / measured): {rms(r['objective_before']):.4f} before, "
             f"{rms(r['objective_after']):.4f} after ({r['passes']} passes, "
             f"{r['simulations']} simulations).", "",
             "## Cases", "",
             "| kernel | shape | dtype | measured ns | before ns | after ns | before ratio | after ratio |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for c in r["cases"]:
        lines.append(f"| {c['kernel']} | {c['shape']} | {c['dtype']} | {c['measured_ns']:.1f} | "
                     f"{c['before_ns']:.1f} | {c['after_ns']:.1f} | {c['before_ratio']:.4f} | "
                     f"{c['after_ratio']:.4f} |")
    lines += ["", "## Parameters", "",
              "| parameter | before | after | after / before | bounds | cases | determined |",
              "|---|---:|---:|---:|---|---:|---|"]
    for p in r["parameters"]:
        lines.append(f"| {p['parameter']} | {_fmt(p['before'])} | {_fmt(p['after'])} | "
                     f"{p['ratio']:.4f} | {_fmt(p['low'])} .. {_fmt(p['high'])} | {p['cases']} | "
                     f"{'yes' if p['determined'] else 'no: kept or any nearby value fits'} |")
    return "\n".join(lines) + "\n"

