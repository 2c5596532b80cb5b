"""Fusion around matmuls (docs/compiler.md, "Fusion around matmuls"), each against float64
numpy, eager and fused, on trn2:

- epilogues: (x @ w + b) * 0.5 -> gelu(tanh) -> r - that (a column bias, a scale folded
  into the activation, a reversed residual subtract), and x @ y.T / 4 with y.T a
  transpose done on the Tensor engine (B given transposed), both written into the
  columns of one concat;
- an epilogue over several register blocks and column groups (a [1, N] bias, silu, a
  residual);
- attention without a mask: softmax(q @ k.T * 0.125) @ v on column slices of q, k, v,
  with 200 rows (a partial tile) and keys not a multiple of 512.

Bounds (u = 2^-8, one bf16 rounding; products accumulate in fp32, ~2^-24 K relative):
fused rounds once at the end of each launch (u) after fp32 work; eager rounds after
every op: matmul (u), + b (u), * 0.5 (exact), gelu (u, gelu's slope is at most 1.13),
r - g (u): 4u relative to the largest value entering the subtraction, checked normwise
against 5u; fused against 2u. Attention: eager rounds s, the scaled s (exact), p, and o
(3u, plus the softmax turning a score's absolute error e into a relative e: scores are
~1, so e ~ u); checked against 5u normwise, fused (P rounded to bf16 for P @ V, o
rounded) against 3u.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
U = 2.0**-8


def bf16_round(a):
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def graph(work, name, inputs, nodes, outputs):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"format": "neuronsim-graph", "version": 1, "name": name,
                   "inputs": [{"name": n, "dtype": "bf16", "shape": s} for n, s in inputs],
                   "nodes": nodes, "outputs": outputs}, f)
    return path


def run(path, mode, x, work, output):
    out_dir = os.path.join(work, os.path.basename(path) + mode)
    subprocess.run([NEURONSIM, "compile", path, "--mode", mode, "-t", "trn2", "-o", out_dir],
                   check=True, capture_output=True)
    args = [NEURONSIM, "run", os.path.join(out_dir, "launch.json"), "-q", "--out-dir", out_dir]
    for name, value in x.items():
        p = os.path.join(work, name + ".npy")
        np.save(p, value)
        args += ["--input", f"{name}={p}"]
    subprocess.run(args, check=True, capture_output=True)
    with open(os.path.join(out_dir, "launch.json")) as f:
        seq = json.load(f)
    return np.load(os.path.join(out_dir, output + ".npy")), [l["op"] for l in seq["launches"]]


def check(what, got, ref, tol):
    err = np.max(np.abs(got - ref)) / np.max(np.abs(ref))
    ok = bool(np.all(np.isfinite(got))) and err <= tol
    print(f"{'ok' if ok else 'FAIL'} {what}: {err / U:.2f} u of max |ref| (bound {tol / U:.0f} u)")
    return ok


def main():
    rng = np.random.default_rng(3)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        m, k, n = 200, 192, 320
        path = graph(work, "epilogues",
                     [("x", [m, k]), ("w", [k, n]), ("b", [n]), ("r", [m, n]), ("y", [n, k])],
                     [{"id": "h", "op": "matmul", "args": ["x", "w"]},
                      {"id": "hb", "op": "add", "args": ["h", "b"]},
                      {"id": "hs", "op": "mul", "args": ["hb", 0.5]},
                      {"id": "ha", "op": "gelu", "args": ["hs"], "approximate": "tanh"},
                      {"id": "hr", "op": "sub", "args": ["r", "ha"]},
                      {"id": "yt", "op": "transpose", "args": ["y"]},
                      {"id": "z", "op": "matmul", "args": ["x", "yt"]},
                      {"id": "z4", "op": "div", "args": ["z", 4]},
                      {"id": "zc", "op": "concat", "args": ["hr", "z4"]}], ["zc"])
        x = {"x": bf16_round(rng.standard_normal((m, k))),
             "w": bf16_round(rng.standard_normal((k, n)) / np.sqrt(k)),
             "b": bf16_round(rng.standard_normal(n)), "r": bf16_round(rng.standard_normal((m, n))),
             "y": bf16_round(rng.standard_normal((n, k)) / np.sqrt(k))}
        d = {a: v.astype(np.float64) for a, v in x.items()}
        hs = (d["x"] @ d["w"] + d["b"]) * 0.5
        gelu = 0.5 * hs * (1 + np.tanh(math.sqrt(2 / math.pi) * (hs + 0.044715 * hs**3)))
        ref = np.concatenate([d["r"] - gelu, d["x"] @ d["y"].T / 4], axis=1)
        got, ops = run(path, "eager", x, work, "zc")
        ok &= check("epilogues eager", got, ref, 5 * U) and len(ops) == 9
        got, ops = run(path, "fused", x, work, "zc")
        # Two launches: h with its four row ops, z (B transposed) with / 4; both write zc.
        ok &= check("epilogues fused", got, ref, 2 * U) and ops == ["matmul", "matmul"]

        # Several register blocks and column groups (640 rows: 2 blocks; 1100 columns: 2
        # groups of up to 2 banks), a residual tile per block and group, a column bias:
        # relu is not an op, so silu; fused rounds once (u), eager after the matmul, + b,
        # silu and + r (4u), checked normwise against 2u and 5u.
        m, k, n = 640, 256, 1100
        path = graph(work, "blocks", [("x", [m, k]), ("w", [k, n]), ("b", [1, n]),
                                      ("r", [m, n])],
                     [{"id": "h", "op": "matmul", "args": ["x", "w"]},
                      {"id": "hb", "op": "add", "args": ["b", "h"]},
                      {"id": "ha", "op": "silu", "args": ["hb"]},
                      {"id": "y", "op": "add", "args": ["ha", "r"]}], ["y"])
        x = {"x": bf16_round(rng.standard_normal((m, k))),
             "w": bf16_round(rng.standard_normal((k, n)) / np.sqrt(k)),
             "b": bf16_round(rng.standard_normal((1, n))),
             "r": bf16_round(rng.standard_normal((m, n)))}
        d = {a: v.astype(np.float64) for a, v in x.items()}
        hb = d["x"] @ d["w"] + d["b"]
        ref = hb / (1 + np.exp(-hb)) + d["r"]
        got, ops = run(path, "eager", x, work, "y")
        ok &= check("blocks eager", got, ref, 5 * U) and len(ops) == 4
        got, ops = run(path, "fused", x, work, "y")
        ok &= check("blocks fused", got, ref, 2 * U) and ops == ["matmul"]

        s, dh = 200, 64
        path = graph(work, "attention_nomask", [("q", [s, 2 * dh]), ("k", [s, 2 * dh]),
                                                ("v", [s, 2 * dh])],
                     [{"id": "q1", "op": "slice", "args": ["q"], "start": dh, "end": 2 * dh},
                      {"id": "k1", "op": "slice", "args": ["k"], "start": dh, "end": 2 * dh},
                      {"id": "v1", "op": "slice", "args": ["v"], "start": dh, "end": 2 * dh},
                      {"id": "kt", "op": "transpose", "args": ["k1"], "dim0": 0, "dim1": 1},
                      {"id": "sc", "op": "matmul", "args": ["q1", "kt"]},
                      {"id": "ss", "op": "mul", "args": ["sc", 0.125]},
                      {"id": "p", "op": "softmax", "args": ["ss"]},
                      {"id": "o", "op": "matmul", "args": ["p", "v1"]}], ["o"])
        x = {t: bf16_round(rng.standard_normal((s, 2 * dh))) for t in ("q", "k", "v")}
        d = {a: v.astype(np.float64)[:, dh:] for a, v in x.items()}
        sc = d["q"] @ d["k"].T * 0.125
        e = np.exp(sc - sc.max(axis=-1, keepdims=True))
        ref = e / e.sum(axis=-1, keepdims=True) @ d["v"]
        got, ops = run(path, "eager", x, work, "o")
        ok &= check("attention eager", got, ref, 5 * U) and len(ops) == 8
        got, ops = run(path, "fused", x, work, "o")
        ok &= check("attention fused", got, ref, 3 * U) and ops == ["attention"]
    if not ok:
        sys.exit("FAIL")
    print("fusion numerics ok")


if __name__ == "__main__":
    main()
