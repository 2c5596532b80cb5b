"""Shapes as PyTorch has them (docs/compiler.md, "Shapes"): each graph here failed to
compile before and now compiles eager and fused; every launch is run with `neuronsim run`
and the outputs are compared with a float64 numpy reference. The bounds are those of
compiler_numerics.py, which derives them: fused keeps fp32 on chip and rounds a bf16 output
once (ONE_ROUNDING); eager RMSNorm rounds six bf16 intermediates (5u).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from compiler_numerics import (GRAPHS, NEURONSIM, ONE_ROUNDING, U, bf16_round, check,
                               run_sequence, write_graph)

rng = np.random.default_rng(11)


def rmsnorm_graph(work, name, x_shape):
    with open(os.path.join(GRAPHS, "rmsnorm_small.json")) as f:
        doc = json.load(f)
    doc["inputs"][0]["shape"] = list(x_shape)
    doc["inputs"][1]["shape"] = [x_shape[-1]]
    return write_graph(work, name, doc["inputs"], doc["nodes"], doc["outputs"])


def rmsnorm(work, name, x_shape, target):
    """RMSNorm over an N-D or partial-tile input, both modes; returns fused device ns."""
    graph = rmsnorm_graph(work, name, x_shape)
    x = bf16_round(rng.standard_normal(x_shape))
    w = bf16_round(1.0 + 0.1 * rng.standard_normal(x_shape[-1]))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-6) * w64
    times = {}
    for mode, rtol, launches in (("fused", ONE_ROUNDING, 1), ("eager", 5 * U, 6)):
        pool, seq, ns, _ = run_sequence(graph, mode, target, {"x": x, "w": w}, work)
        assert len(seq["launches"]) == launches, seq["launches"]
        assert pool["y"].shape == tuple(x_shape), pool["y"].shape
        check(f"rmsnorm {list(x_shape)} {mode} {target}", pool["y"], ref, rtol, 1e-6)
        times[mode] = ns
    print(f"rmsnorm {list(x_shape)} {target}: eager {times['eager']:.0f} ns, "
          f"fused {times['fused']:.0f} ns")


def different_rows(work):
    """q [512, 128] and k^T [128, 512] scaled in one graph: two row counts, two fused
    kernels (one per count); scaling by a power of two is exact."""
    graph = write_graph(work, "qk_scale", [{"name": "q", "dtype": "bf16", "shape": [512, 128]},
                                           {"name": "kt", "dtype": "bf16", "shape": [128, 512]}],
                        [{"id": "qs", "op": "mul", "args": ["q", 0.125]},
                         {"id": "kts", "op": "mul", "args": ["kt", 0.5]}], ["qs", "kts"])
    q = bf16_round(rng.standard_normal((512, 128)))
    kt = bf16_round(rng.standard_normal((128, 512)))
    for mode in ("eager", "fused"):
        pool, seq, _, _ = run_sequence(graph, mode, "trn2", {"q": q, "kt": kt}, work)
        assert len(seq["launches"]) == 2, seq["launches"]
        check(f"q * 0.125 {mode}", pool["qs"], q.astype(np.float64) * 0.125, 0, 0)
        check(f"kt * 0.5 {mode}", pool["kts"], kt.astype(np.float64) * 0.5, 0, 0)


def dead_and_unused(work):
    """A dead node and an unused input: a warning each, no launch for the dead node in
    fused mode, and the sequence runs without a value for the unused input."""
    graph = write_graph(work, "dead", [{"name": "x", "dtype": "fp32", "shape": [256, 64]},
                                       {"name": "unused", "dtype": "bf16", "shape": [7, 3]}],
                        [{"id": "a", "op": "mul", "args": ["x", 2]},
                         {"id": "dead", "op": "exp", "args": ["a"]},
                         {"id": "y", "op": "add", "args": ["a", 1]}], ["y"])
    x = rng.standard_normal((256, 64)).astype(np.float32)
    for mode, launches in (("fused", 1), ("eager", 3)):
        out = subprocess.run([NEURONSIM, "compile", graph, "--mode", mode, "-o",
                              os.path.join(work, "dead_warn_" + mode)],
                             check=True, capture_output=True, text=True)
        assert "input 'unused'" in out.stderr, out.stderr
        assert ("node 'dead'" in out.stderr) == (mode == "fused"), out.stderr
        pool, seq, _, _ = run_sequence(graph, mode, "trn2", {"x": x}, work)
        assert len(seq["launches"]) == launches, seq["launches"]
        assert "unused" not in [t["name"] for t in seq["tensors"]]
        # x * 2 is exact; + 1 rounds once in fp32.
        check(f"dead/unused {mode}", pool["y"], x.astype(np.float64) * 2 + 1, 2.0**-23, 1e-30)
    # The whole sequence, run as one program, asks for x only.
    seq_dir = os.path.join(work, "dead.json_fused_trn2")
    np.save(os.path.join(work, "x.npy"), x)
    subprocess.run([NEURONSIM, "run", os.path.join(seq_dir, "launch.json"), "--input",
                    "x=" + os.path.join(work, "x.npy"), "--out-dir",
                    os.path.join(work, "dead_run")], check=True, capture_output=True)


def scalar_operand(work):
    """A [1] tensor as an operand, in both orders, with rows and with a row statistic."""
    graph = write_graph(work, "scalar", [{"name": "x", "dtype": "bf16", "shape": [300, 64]},
                                         {"name": "s", "dtype": "fp32", "shape": [1]}],
                        [{"id": "a", "op": "mul", "args": ["x", "s"]},
                         {"id": "m", "op": "max", "args": ["a"], "keepdim": True},
                         {"id": "ms", "op": "sub", "args": ["s", "m"]},
                         {"id": "y", "op": "div", "args": ["s", "a"]},
                         {"id": "z", "op": "add", "args": ["y", "ms"]}], ["z"])
    x = bf16_round(rng.uniform(0.5, 2.0, (300, 64)))
    s = np.array([1.5], dtype=np.float32)
    x64 = x.astype(np.float64)
    a = x64 * 1.5
    ref = 1.5 / a + (1.5 - a.max(axis=-1, keepdims=True))
    for mode in ("eager", "fused"):
        pool, _, _, _ = run_sequence(graph, mode, "trn2", {"x": x, "s": s}, work)
        # Fused: fp32 on chip, one rounding of z. Eager: a, m, ms and y round to bf16 too;
        # z = y + ms with |ms| <= 2 |y| here... bounded by the sum of magnitudes below.
        mag = np.abs(1.5 / a) + np.abs(1.5 - a.max(axis=-1, keepdims=True))
        tol = (ONE_ROUNDING if mode == "fused" else 6 * U) * mag
        check(f"[1] operand {mode}", pool["z"], ref, 0, tol)


def wide_rows(work):
    """Rows wider than SBUF: a [256, 32000] vocabulary softmax (x, exp(x - max) in fp32 and
    y need 256 000 B per partition, SBUF has 224 KiB on trn2, 192 KiB on trn1) and an
    RMSNorm over a partial tile of 70 000 columns (more than one instruction's free size),
    both run in column chunks with the reductions combined across chunks."""
    graph = write_graph(work, "vocab_softmax", [{"name": "x", "dtype": "bf16",
                                                 "shape": [256, 32000]}],
                        [{"id": "y", "op": "softmax", "args": ["x"]}], ["y"])
    x = bf16_round(4 * rng.standard_normal((256, 32000)))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    ref = e / e.sum(axis=-1, keepdims=True)
    for mode in ("fused", "eager"):
        for target in ("trn2", "trn1"):
            pool, seq, ns, _ = run_sequence(graph, mode, target, {"x": x}, work)
            assert len(seq["launches"]) == 1
            # fp32 on chip: one rounding of y (a sum of 32000 fp32 terms adds ~2^-24 x
            # log2(32000) relative, inside the slack of ONE_ROUNDING).
            check(f"softmax [256, 32000] {mode} {target}", pool["y"], ref, ONE_ROUNDING, 1e-12)
            print(f"softmax [256, 32000] {mode} {target}: {ns:.0f} ns")
    rmsnorm(work, "rmsnorm_wide", (130, 70000), "trn2")
    # Everything at once: N-D, a partial tile (300 rows), rows of two widths in one wide
    # kernel, a [1] operand, [N, 1] outputs and a reduction in a later phase.
    graph = write_graph(work, "mixed", [{"name": "x", "dtype": "fp32", "shape": [3, 100, 40000]},
                                        {"name": "z", "dtype": "fp32", "shape": [3, 100, 1000]},
                                        {"name": "c", "dtype": "fp32", "shape": [1]}],
                        [{"id": "y1", "op": "softmax", "args": ["x"]},
                         {"id": "s", "op": "sum", "args": ["z"], "keepdim": True},
                         {"id": "y2", "op": "mul", "args": ["y1", "s"]},
                         {"id": "y3", "op": "add", "args": ["y2", "c"]},
                         {"id": "m", "op": "max", "args": ["y3"], "keepdim": True}],
                        ["y3", "m", "s"])
    x = rng.standard_normal((3, 100, 40000)).astype(np.float32)
    z = rng.standard_normal((3, 100, 1000)).astype(np.float32)
    c = np.array([0.25], np.float32)
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    s = z.astype(np.float64).sum(-1, keepdims=True)
    y3 = e / e.sum(-1, keepdims=True) * s + 0.25
    for mode in ("fused", "eager"):
        pool, _, _, _ = run_sequence(graph, mode, "trn2", {"x": x, "z": z, "c": c}, work)
        # All fp32: a few roundings of 2^-24 each (y3, m: 1e-5 relative is generous), and
        # s's 1000-term sum (absolute error at most 1000 x 2^-24 x sum|z|, < 1e-3 here).
        check(f"mixed wide s {mode}", pool["s"], s, 1e-6, 1e-3)
        check(f"mixed wide y3 {mode}", pool["y3"], y3, 1e-5, 1e-6)
        check(f"mixed wide m {mode}", pool["m"], y3.max(-1, keepdims=True), 1e-5, 1e-3)


def main():
    with tempfile.TemporaryDirectory() as work:
        rmsnorm(work, "rmsnorm_1000", (1000, 512), "trn1")
        rmsnorm(work, "rmsnorm_3d_small", (2, 3, 100, 256), "trn2")
        different_rows(work)
        dead_and_unused(work)
        scalar_operand(work)
        wide_rows(work)
        rmsnorm(work, "rmsnorm_8x512x4096", (8, 512, 4096), "trn2")
    print("all compiler shape checks ok")


if __name__ == "__main__":
    main()
