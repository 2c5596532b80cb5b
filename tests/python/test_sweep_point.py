"""One sweep point of each kernel kind, run as a Dask worker runs it
(neuronsim.sweep.point.run, no cluster): an NKI kernel traced with its params (the
autotune example's best schedule, and a tile the Tensor engine refuses: an error row), a
graph in eager mode as a launch sequence with the host model, a NEFF, each with the
figures `neuronsim run --stats-json` gives; a point with overrides is built for the
overridden target (its queues span 4 DMA engines)."""
import json
import os

import neuronsim
from neuronsim.sweep import point
from support import SCRATCH, SOURCE_DIR, Checks, asm_neff, cli

c = Checks()
SWEEPS = os.path.join(SOURCE_DIR, "examples", "sweeps")


def one(spec, base=SWEEPS):
    points, _ = neuronsim.sweep.expand(spec, base)
    return [point.run(p, frozenset()) for p in points]


# The autotune's best schedule: 8 row blocks x 2 column tiles x 4 K-tiles = 64 matmuls.
nki = {"nki": "nki_matmul.py:matmul",
       "args": {"lhsT": {"shape": ["K", "M"], "dtype": "bfloat16"},
                "rhs": {"shape": ["K", "N"], "dtype": "bfloat16"}},
       "sizes": {"K": 512, "M": 1024, "N": 1024},
       "params": {"TILE_M": [128, 256], "TILE_K": 128, "TILE_N": 512, "REUSE_LHS": True,
                  "REUSE_RHS": True}}
best, too_big = one({"kernel": nki})
c.check(best["status"] == "ok", f"the best schedule runs: {best}")
f = best.get("figures", {})
# Bytes exactly: lhsT [512, 1024] and rhs [512, 1024] bf16 loaded once (1 MiB each), the
# [1024, 1024] bf16 result stored once (2 MiB). The Tensor engine's share is only bounded
# (docs/sweeps.md measures 32.3%): it is DMA-bound, and the bound says it is not idle.
c.check(f.get("tensor_busy_pct", 0) > 25 and f.get("dma_bytes") == 4 * 2**20,
        f"it moves lhsT, rhs and the result once (4 MiB): {f}")
c.check(too_big["status"] == "error" and "nki nki_matmul.py:matmul" in too_big["error"]
        and too_big["key"] is None, f"TILE_M=256 is the point's error: {too_big}")
c.check("nki_matmul.py:" in too_big["error"] and "neuronsim-sweep" not in too_big["error"],
        f"it names the kernel's line as the spec names the file: {too_big['error']}")
again = one({"kernel": dict(nki, params=dict(nki["params"], TILE_M=128))})[0]
c.check(again["key"] == best["key"] and again["figures"] == best["figures"],
        "the same kernel and config: the same key and figures")

# A graph, eager: six launches with the host model; figures from the sequence's stats.
graph = os.path.join(SOURCE_DIR, "examples", "rmsnorm", "rmsnorm_small.json")
[g] = one({"kernel": {"graph": graph, "mode": "eager"}}, ".")
cli("compile", graph, "--mode", "eager", "-t", "trn2", "-o", os.path.join(SCRATCH, "eager"))
stats = json.loads(cli("run", os.path.join(SCRATCH, "eager", "launch.json"), "-t", "trn2",
                       "--timing-only", "--stats-json", "-").stdout)
gf = g.get("figures", {})
c.check(g["status"] == "ok" and gf.get("launches") == len(stats["launches"]) > 1,
        f"an eager graph is a launch sequence: {g}")
c.check(gf.get("time_ns") == round(stats["end_to_end_ns"], 3) and
        gf.get("device_ns") == round(stats["device_ns"], 3) and gf["time_ns"] > gf["device_ns"],
        f"time_ns is end to end with the host model, device_ns the device's: {gf}")

# A NEFF, with overrides: its own queues, so it runs on 4 engines as it is.
neff = asm_neff("tiny_add")
[n4, n16] = one({"kernel": {"neff": neff}, "overrides": {"dma": {"engines": [4, 16]}}}, ".")
stats = json.loads(cli("run", neff, "-t", "trn2", "--timing-only", "--stats-json", "-").stdout)
c.check(n16.get("figures", {}).get("time_ns") == stats["stats"]["total_time_ns"]["value"],
        f"a NEFF point is its run: {n16}")
c.check(n4["key"] != n16["key"], "another config, another key")
# An example with 4 DMA engines: built for them (the preset's 16 would not validate).
[e4] = one({"kernel": {"example": "softmax", "rows": 256, "cols": 512},
            "overrides": {"dma": {"engines": 4}}}, ".")
c.check(e4["status"] == "ok" and e4["figures"]["dma_busy_pct"] > 0,
        f"an example on 4 DMA engines: {e4}")
# Numerics on: the inputs generated as `neuronsim run --input` does; the timing is the
# timing-only run's (docs/simulation.md), a different key (the run differs).
example = {"example": "rmsnorm", "rows": 256, "cols": 512}
[timed] = one({"kernel": example}, ".")
[full] = one({"kernel": example, "timing_only": False, "seed": 3,
              "inputs": {"x": "normal:0,1", "w": "normal:1,0.1"}}, ".")
c.check(full["status"] == "ok" and full["figures"] == timed["figures"] and
        full["key"] != timed["key"], f"numerics on: the same figures, another key: {full}")
c.finish()
