"""1,000 neuronsim.run calls of a small kernel in one interpreter session, in process, with
resident memory flat: RSS after run 1,000 within a generous bound of RSS after run 100.
Then runs that each need a fresh simulation context (more configs than the session keeps
cores for), also flat. Speed is measured by bench/python_runs.py, never asserted here."""
import os

import numpy as np

import neuronsim
from support import Checks, asm_neff

c = Checks()
# A sanitizer build's allocator keeps freed memory in quarantine (up to 256 MiB): there RSS
# grows whatever the module does, so only the figures are printed (memory errors are what
# that build checks).
CHECK_RSS = not neuronsim._core.address_sanitizer


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


tiny = neuronsim.load_neff(asm_neff("tiny_add"))
rng = np.random.default_rng(1)
a = rng.standard_normal((128, 512)).astype(np.float32)
b = rng.standard_normal((128, 512)).astype(np.float32)
first = neuronsim.run(tiny, {"a": a, "b": b})
rss = {}
for i in range(1, 1001):
    # Fresh inputs every run: each run must compute on its own data (HBM refilled).
    r = neuronsim.run(tiny, {"a": a, "b": b + i})
    if i % 250 == 0:
        c.check(np.array_equal(r.outputs["out"], a + (b + i)), "run %d computes on its inputs" % i)
    c.check(r.total_ns == first.total_ns, "run %d: the same time" % i) if i % 100 == 0 else None
    if i in (100, 1000):
        rss[i] = rss_kib()
info = neuronsim.session_info()
c.check(info["contexts"] == 1 and info["launches"] == 1001, "one context, one core: %r" % info)
# Bound: 8 MiB over 900 runs (9 KiB a run) is far below any per-run leak of the data: one
# kernel's tensors are 768 KiB, and a leaked LaunchState or output copy shows at once.
growth = rss[1000] - rss[100]
print("RSS after 100 runs %d KiB, after 1000 runs %d KiB (%+d KiB)" % (rss[100], rss[1000], growth))
if CHECK_RSS:
    c.check(growth < 8 * 1024, "RSS grew %d KiB between run 100 and run 1000" % growth)

# Six configs (trn2 with six DMA latencies), more than the session keeps cores for: every
# run builds a fresh context. 150 of them, RSS flat between run 30 and run 150.
contexts_before = neuronsim.session_info()["contexts"]
times = {}
for i in range(1, 151):
    latency = 1000 + 100 * (i % 6)
    r = neuronsim.run(tiny, {"a": a, "b": b}, overrides={"dma": {"fixed_latency_ns": latency}})
    times.setdefault(latency, r.total_ns)
    c.check(r.total_ns == times[latency], "context run %d: same time as before" % i) \
        if i % 10 == 0 else None
    if i in (30, 150):
        rss[i] = rss_kib()
made = neuronsim.session_info()["contexts"] - contexts_before
c.check(made == 150, "a fresh context for each of the 150 runs (made %d)" % made)
c.check(len(set(times.values())) == 6, "six configs, six times")
growth = rss[150] - rss[30]
print("fresh contexts: RSS after 30 %d KiB, after 150 %d KiB (%+d KiB)" % (rss[30], rss[150], growth))
if CHECK_RSS:
    c.check(growth < 8 * 1024, "RSS grew %d KiB between context 30 and 150" % growth)
c.finish()
