"""`cmake --install` installs the package: into a temporary prefix, then a fresh
interpreter, run outside the source and build trees with only the installed directory on
its path (PYTHON_INSTALL_DIR under the prefix, docs/python.md), imports neuronsim from
there and runs a kernel; the installed program's `neuronsim sweep` runs the installed
package, whose points run the installed program (docs/sweeps.md)."""
import json
import os
import subprocess
import sys

import numpy as np

import neuronsim
from support import SCRATCH, Checks, asm_neff

c = Checks()
prefix = os.path.join(SCRATCH, "prefix")
subprocess.run([os.environ["CMAKE_COMMAND"], "--install", os.environ["BUILD_DIR"], "--prefix",
                prefix], check=True, stdout=subprocess.DEVNULL)
site = os.path.join(prefix, os.environ["PYTHON_INSTALL_DIR"])
c.check(os.path.isfile(os.path.join(site, "neuronsim", "__init__.py")), "__init__.py installed")
c.check(any(f.startswith("_core") and f.endswith(".so")
            for f in os.listdir(os.path.join(site, "neuronsim"))), "_core installed")
script = """
import numpy as np, neuronsim
assert neuronsim.__file__.startswith(%r), neuronsim.__file__
k = neuronsim.load_neff(%r)
a = np.ones((128, 512), np.float32)
r = neuronsim.run(k, {"a": a, "b": a})
assert (r.outputs["out"] == 2).all()
print(r.total_ns)
""" % (site, asm_neff("tiny_add"))
env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
env["PYTHONPATH"] = site
p = subprocess.run([sys.executable, "-c", script], cwd=SCRATCH, env=env, capture_output=True,
                   text=True)
# The same time as the build tree's module gives.
a = np.ones((128, 512), np.float32)
expected = neuronsim.run(neuronsim.load_neff(asm_neff("tiny_add")), {"a": a, "b": a}).total_ns
c.check(p.returncode == 0 and p.stdout.strip() == repr(expected),
        "the installed package runs tiny_add (%r ns): %s%s" % (expected, p.stdout, p.stderr))

# The installed package's sweep runs the installed program (relative to the package).
program = os.path.join(prefix, "bin", "neuronsim")
p = subprocess.run([sys.executable, "-c", "import neuronsim.sweep.program as p; print(p.program())"],
                   cwd=SCRATCH, env=env, capture_output=True, text=True)
c.check(p.returncode == 0 and os.path.samefile(p.stdout.strip(), program),
        "the installed package finds the installed program: %s%s" % (p.stdout, p.stderr))
spec = os.path.join(SCRATCH, "sweep.json")
with open(spec, "w") as f:
    json.dump({"kernel": {"example": "rmsnorm", "rows": 256, "cols": 512}}, f)
p = subprocess.run([program, "sweep", spec, "--json", "--workers", "1"], cwd=SCRATCH, env=env,
                   capture_output=True, text=True)
neff = os.path.join(SCRATCH, "rmsnorm.neff")
subprocess.run([program, "example", "rmsnorm", "--rows", "256", "--cols", "512", "-o", neff],
               check=True, stdout=subprocess.DEVNULL)
stats = json.loads(subprocess.run([program, "run", neff, "--timing-only", "--stats-json", "-"],
                                  capture_output=True, text=True, check=True).stdout)
rows = json.loads(p.stdout)["rows"] if p.returncode == 0 else []
c.check(len(rows) == 1 and rows[0]["time_ns"] == stats["stats"]["total_time_ns"]["value"],
        "the installed neuronsim sweep runs the point: %s%s" % (p.stdout[-500:], p.stderr[-2000:]))
c.finish()
