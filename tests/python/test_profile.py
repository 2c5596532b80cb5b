"""neuronsim.Profile reads what `neuronsim view` prints: a profile written by
neuronsim.run(profile_dir=...) and one written by `neuronsim run --profile-dir` give the same
numbers, Profile's summary equals `neuronsim view --json`, its text equals `neuronsim view`,
and to_pandas() holds the key_averages rows."""
import json
import os

import numpy as np

import neuronsim
from support import SCRATCH, Checks, asm_neff, cli

c = Checks()
rng = np.random.default_rng(7)
neff = asm_neff("matmul_bias_relu")
w = rng.standard_normal((128, 128)).astype(np.float32)
x = rng.standard_normal((128, 512)).astype(np.float32)
np.save(os.path.join(SCRATCH, "w.npy"), w)
np.save(os.path.join(SCRATCH, "x.npy"), x)

py_dir = os.path.join(SCRATCH, "py_profile")
cli_dir = os.path.join(SCRATCH, "cli_profile")
r = neuronsim.run(neff, {"w": w, "x": x}, target="trn2", profile_dir=py_dir)
c.check(r.profile_dir == py_dir, "RunResult.profile_dir")
cli("run", neff, "-t", "trn2", "-q", "--input", "w=" + os.path.join(SCRATCH, "w.npy"),
    "--input", "x=" + os.path.join(SCRATCH, "x.npy"), "--profile-dir", cli_dir)

p = neuronsim.Profile(py_dir)
q = r.profile()
view = json.loads(cli("view", py_dir, "--json").stdout)
view_cli = json.loads(cli("view", cli_dir, "--json").stdout)
c.check(p.summary == view, "Profile.summary == neuronsim view --json")
c.check(q.summary == p.summary, "RunResult.profile()")
c.check(p.summary == view_cli, "a profile written in process = one written by neuronsim run")
c.check(p.text == cli("view", py_dir).stdout, "Profile.text == neuronsim view")
c.check(neuronsim.Profile(py_dir, top=3).text == cli("view", py_dir, "--top", "3").stdout,
        "top=3 == view --top 3")
c.check(p.total_ns * 1000 == view["total_time_ps"] and view["total_time_ps"] == r.total_ps,
        "total time: profile %r ps, run %r ps" % (view["total_time_ps"], r.total_ps))
c.check(set(p.stall_attribution) == {"tensor", "vector", "scalar", "gpsimd", "sync"},
        "stall attribution by engine")
for engine, t in p.stall_attribution.items():
    e = r.engines[engine]
    c.check(abs(t["busy_ps"] / 1000 - e["busy_ns"]) < 1e-3 and
            abs(t["semaphore_wait_ps"] / 1000 - e["semaphore_wait_ns"]) < 1e-3,
            "%s: profile stalls = the run's engine numbers" % engine)
# Scalar's activation (426.667 ns) outweighs Tensor's matmul (226.667 ns) in this kernel.
c.check([(row["engine"], row["opcode"]) for row in p.key_averages[:2]] ==
        [("scalar", "activation"), ("tensor", "matmul")] and
        p.key_averages == sorted(p.key_averages, key=lambda row: -row["total_ps"]),
        "key_averages: largest first")
peak = neuronsim.Profile(py_dir, peak_tflops=100)
view_peak = json.loads(cli("view", py_dir, "--json", "--peak-tflops", "100").stdout)
c.check(peak.summary == view_peak, "peak_tflops == view --peak-tflops")

try:
    import pandas  # noqa: F401
    df = p.to_pandas()
    c.check(list(df["opcode"]) == [row["opcode"] for row in p.key_averages] and
            list(df.columns) == list(p.key_averages[0]), "to_pandas: key_averages rows")
    stalls = p.to_pandas("stall_attribution")
    c.check(list(stalls["engine"]) == list(p.stall_attribution), "to_pandas: stall rows")
except ImportError:
    print("pandas not installed: to_pandas not checked")

# A second run into the same directory replaces the profile (as the CLI does); another
# kernel's profile there is refused, and the failed run leaves the first profile intact.
neuronsim.run(neff, {"w": w, "x": x}, target="trn2", profile_dir=py_dir)
c.check(neuronsim.Profile(py_dir).summary == view, "profile rewritten in place: same numbers")
tiny = neuronsim.load_neff(asm_neff("tiny_add"))
a = np.ones((128, 512), np.float32)
c.raises(lambda: neuronsim.run(tiny, {"a": a, "b": a}, profile_dir=py_dir),
         ["another kernel"], "a directory holding another kernel's profile")
c.check(neuronsim.Profile(py_dir).summary == view, "the first profile is intact")
c.finish()
