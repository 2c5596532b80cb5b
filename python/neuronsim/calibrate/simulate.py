"""The cases on neuronsim: kernels.py traced by neuronsim.nki for a preset, and each case
run timing-only in this process under a config (neuronsim.run with overrides)."""
import importlib.util
import json
import os
import subprocess
import tempfile

import numpy as np

from .. import Error, run, target_names
from . import kernels_source
from .cases import CASES


def check_preset(target, what):
    if target not in target_names():
        raise Error(f"{what}: unknown target {target!r} (a preset: {', '.join(target_names())})")


def load_kernels_module(path):
    """Imports the kernels.py at `path` with neuronsim.nki standing in for NKI."""
    from .. import nki
    nki.install_import_hook()
    try:
        spec = importlib.util.spec_from_file_location("neuronsim_calibration_kernels", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        nki.uninstall_import_hook()
    return module


def trace_cases(module, target, cases=CASES):
    """{case.key: neuronsim.Kernel}, each case's kernel traced for the preset `target`."""
    out = {}
    for c in cases:
        fn = getattr(module, c.function)
        x = np.zeros(c.shape, dtype=np.float32)
        out[c.key] = fn.trace(x, target=target).kernel
    return out


class Simulator:
    """Simulates the cases of the package's own kernels.py for a preset under parameter
    values; results are memoised by (case, values)."""

    def __init__(self, target, cases=CASES):
        check_preset(target, "calibrate")
        self.target = target
        self.cases = cases
        self._dir = tempfile.TemporaryDirectory(prefix="neuronsim-calibrate-")
        path = os.path.join(self._dir.name, "kernels.py")
        with open(path, "w") as f:
            f.write(kernels_source.KERNELS)
        self.kernels = trace_cases(load_kernels_module(path), target, cases)
        self._memo = {}
        self.runs = 0

    def time_ns(self, case, values):
        """The case's device time with `values` ({section.key: value}) over the preset."""
        key = (case.key, tuple(sorted(values.items())))
        t = self._memo.get(key)
        if t is None:
            r = run(self.kernels[case.key], target=self.target, timing_only=True,
                    overrides=overrides_dict(values))
            t = self._memo[key] = float(r.total_ns)
            self.runs += 1
        return t


def overrides_dict(values):
    """{section.key: v} as a config override {section: {key: v}}, sections sorted."""
    d = {}
    for name in sorted(values):
        section, key = name.split(".")
        d.setdefault(section, {})[key] = values[name]
    return d


def preset_values(target):
    """The preset's whole resolved config, `neuronsim config --target T --dump`."""
    from ..sweep.program import program
    r = subprocess.run([program(), "config", "--target", target, "--dump"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Error(f"calibrate: neuronsim config --dump failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def run_config(kernel, config, base):
    """Runs `kernel` timing-only on `config`: a preset, or a target file whose base is
    `base` (the preset the suite was traced for)."""
    if config in target_names():
        if config != base:
            raise Error(f"measure: the suite is for {base}, not {config}")
        return run(kernel, target=config, timing_only=True)
    try:
        with open(config) as f:
            d = json.load(f)
    except OSError as e:
        raise Error(f"{config}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise Error(f"{config}: not JSON: {e}") from None
    if not isinstance(d, dict) or d.get("base") != base:
        raise Error(f"{config}: a target file for the suite's target needs \"base\": \"{base}\" "
                    f"(it has {d.get('base') if isinstance(d, dict) else None!r})")
    return run(kernel, target=config, timing_only=True)

