"""The graph compiler (docs/compiler.md) end to end: small graphs compiled eager and fused,
every launch of the sequence run in order with `neuronsim run` (intermediates passed as
.npy files, which are exact: bf16 outputs are written widened to float32), the final
output compared with a float64 numpy reference within a bound derived below, and the
fused RMSNorm's device time compared with the hand-fused example's.

Rounding: u = 2^-8 bounds the relative error of one round-to-nearest into bf16 (8 bits of
significand: half a unit in the last place, 2^-8 just above a power of two). The engines
compute in fp32 (relative error ~2^-24 per operation), covered by a slack of u/16.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
GRAPHS = os.path.join(SOURCE_DIR, "examples", "rmsnorm")
U = 2.0**-8
ONE_ROUNDING = U * (1 + 1 / 16)
rng = np.random.default_rng(5)


def bf16_round(a):
    """float -> nearest bf16 (round half to even), returned as float32."""
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def kernel_tensors(neff):
    """{name: role} of a NEFF's HBM tensors, from its disassembly."""
    out = subprocess.run([NEURONSIM, "disasm", neff], check=True, capture_output=True,
                         text=True).stdout
    pattern = r"^tensor (\w+) .* (input|output|constant|scratch)$"
    return {m.group(1): m.group(2) for m in re.finditer(pattern, out, re.M)}


def run_sequence(graph, mode, target, inputs, work):
    """Compiles `graph`, runs every launch in order; returns (tensors, launch doc, ns, hbm)."""
    out_dir = os.path.join(work, f"{os.path.basename(graph)}_{mode}_{target}")
    subprocess.run([NEURONSIM, "compile", graph, "--mode", mode, "-t", target, "-o", out_dir],
                   check=True, capture_output=True)
    with open(os.path.join(out_dir, "launch.json")) as f:
        seq = json.load(f)
    assert seq["format"] == "neuronsim-launch-sequence" and seq["mode"] == mode
    pool = dict(inputs)
    total_ns, hbm_bytes = 0.0, 0
    for launch in seq["launches"]:
        neff = os.path.join(out_dir, launch["neff"])
        args = [NEURONSIM, "run", neff, "--out-dir", os.path.join(out_dir, launch["name"])]
        for name, role in kernel_tensors(neff).items():
            if role == "input":
                path = os.path.join(out_dir, f"in_{launch['name']}_{name}.npy")
                np.save(path, pool[name].astype(np.float32))
                args += ["--input", f"{name}={path}"]
        text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        total_ns += float(re.search(r"total: ([0-9.]+) ns", text).group(1))
        m = re.search(r"HBM read (\d+) bytes, written (\d+) bytes", text)
        hbm_bytes += int(m.group(1)) + int(m.group(2))
        for name, role in kernel_tensors(neff).items():
            if role == "output":
                pool[name] = np.load(os.path.join(out_dir, launch["name"], name + ".npy"))
    return pool, seq, total_ns, hbm_bytes


def check(name, got, ref, rtol, atol):
    err = np.abs(got.astype(np.float64) - ref)
    excess = err - (atol + rtol * np.abs(ref))
    if np.max(excess) > 0 or not np.all(np.isfinite(got)):
        i = np.unravel_index(np.argmax(excess), err.shape)
        sys.exit(f"FAIL {name}: at {i} got {got[i]} want {ref[i]}")
    print(f"ok {name}: max rel err {float(np.max(err / (np.abs(ref) + 1e-30))):.3g}")


def rmsnorm(work):
    graph = os.path.join(GRAPHS, "rmsnorm_small.json")
    x = bf16_round(rng.standard_normal((128, 2048)))
    w = bf16_round(1.0 + 0.1 * rng.standard_normal(2048))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-6) * w64
    for target in ("trn1", "trn2"):
        # Fused: fp32 throughout, one rounding of y: relative u (+ fp32 slack).
        pool, seq, fused_ns, _ = run_sequence(graph, "fused", target, {"x": x, "w": w}, work)
        assert len(seq["launches"]) == 1
        check(f"rmsnorm fused {target}", pool["y"], ref, ONE_ROUNDING, 1e-6)
        # Eager: every op's result is rounded to bf16 in HBM. Relative errors add to first
        # order: sq (u) -> mean of rounded squares (u) + its rounding (u) -> + eps (u) ->
        # rsqrt halves the input's 3u and rounds (1.5u + u) -> x * rstd (+u) -> * w (+u):
        # 4.5u; checked against 5u (second-order terms are ~0.01 u).
        pool, seq, eager_ns, _ = run_sequence(graph, "eager", target, {"x": x, "w": w}, work)
        assert len(seq["launches"]) == 6
        check(f"rmsnorm eager {target}", pool["y"], ref, 5 * U, 1e-6)
        # Device time: the fused kernel within 15% of the hand-fused double-buffered example.
        hand = os.path.join(work, f"hand_{target}.neff")
        subprocess.run([NEURONSIM, "example", "rmsnorm", "--double-buffer", "--rows", "128",
                        "--cols", "2048", "-t", target, "-o", hand], check=True)
        text = subprocess.run([NEURONSIM, "run", hand, "--input", "x=normal:0,1", "--input",
                               "w=ones"], check=True, capture_output=True, text=True).stdout
        hand_ns = float(re.search(r"total: ([0-9.]+) ns", text).group(1))
        print(f"rmsnorm [128, 2048] {target}: eager {eager_ns:.0f} ns, fused {fused_ns:.0f} ns, "
              f"hand-fused {hand_ns:.0f} ns")
        if fused_ns > 1.15 * hand_ns:
            sys.exit(f"FAIL fused rmsnorm {fused_ns} ns is not within 15% of {hand_ns} ns")
        if eager_ns <= fused_ns:
            sys.exit("FAIL eager rmsnorm should be slower than fused")


def softmax(work):
    x = bf16_round(rng.standard_normal((256, 1024)))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    ref = e / e.sum(axis=-1, keepdims=True)
    # One softmax node: eager and fused are one kernel in fp32, one rounding of y (u).
    for mode in ("eager", "fused"):
        pool, _, _, _ = run_sequence(os.path.join(GRAPHS, "softmax_small.json"), mode, "trn2",
                                     {"x": x}, work)
        check(f"softmax {mode}", pool["y"], ref, ONE_ROUNDING, 1e-9)
    graph = os.path.join(GRAPHS, "softmax_naive_small.json")
    pool, seq, _, _ = run_sequence(graph, "fused", "trn2", {"x": x}, work)
    assert len(seq["launches"]) == 1
    check("naive softmax fused", pool["y"], ref, ONE_ROUNDING, 1e-9)
    # Eager naive softmax: max is exact; x - m rounds (absolute |x - m| u, which exp turns
    # into relative |x - m| u), e rounds (u), the sum of rounded e's carries their largest
    # relative error (max |x - m| u + u) and rounds (u), e / s rounds (u):
    # |x_i - m| u + max_j |x_j - m| u + 4u; checked with 5u.
    pool, seq, _, _ = run_sequence(graph, "eager", "trn2", {"x": x}, work)
    assert len(seq["launches"]) == 5
    spread = x64.max(axis=-1, keepdims=True) - x64
    rtol = U * (spread + spread.max(axis=-1, keepdims=True) + 5)
    check("naive softmax eager", pool["y"], ref, rtol, 1e-9)


def mlp(work):
    x = bf16_round(rng.standard_normal((256, 256)))
    wg = bf16_round(rng.standard_normal((256, 512)) / 16)
    wu = bf16_round(rng.standard_normal((256, 512)) / 16)
    g = x.astype(np.float64) @ wg
    up = x.astype(np.float64) @ wu
    sig = 1 / (1 + np.exp(-g))
    ref = g * sig * up
    # Eager: gate and up are matmul launches: fp32 accumulation (absolute error
    # ~K 2^-24 sum|x||w|, covered by atol) and one rounding each (u); silu scales gate's
    # relative error by |1 + g (1 - sigmoid(g))| and rounds (u); h rounds (u).
    # Fused (two launches: gate with silu on its PSUM copy, up with * act on its copy):
    # silu's result rounds once (u), h once (u), the products are not rounded.
    # Checked with one u to spare.
    sens = np.abs(1 + g * (1 - sig))
    atol = 2.0**-16 * np.max(np.abs(ref))
    for mode, roundings in (("fused", 2), ("eager", 3)):
        pool, seq, _, _ = run_sequence(os.path.join(GRAPHS, "mlp_small.json"), mode, "trn2",
                                       {"x": x, "w_gate": wg, "w_up": wu}, work)
        assert len(seq["launches"]) == (2 if mode == "fused" else 4)
        check(f"mlp {mode}", pool["h"], ref, U * (sens + roundings + 1), atol)


def write_graph(work, name, inputs, nodes, outputs):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"format": "neuronsim-graph", "version": 1, "name": name, "inputs": inputs,
                   "nodes": nodes, "outputs": outputs}, f)
    return path


def eager_layouts(work):
    """The eager [N, 1] layouts (docs/compiler.md, "Tiling") put every element back where it
    came from: RMSNorm over 3 row tiles (whole [128, 3] stat buffers, flat [128, 3] ops),
    and a flat range of 128 x 4100 elements (a tile of 4096 per partition and a short one)."""
    with open(os.path.join(GRAPHS, "rmsnorm_small.json")) as f:
        doc = json.load(f)
    doc["inputs"][0]["shape"] = [384, 256]
    doc["inputs"][1]["shape"] = [256]
    graph = write_graph(work, "rmsnorm_384", doc["inputs"], doc["nodes"], doc["outputs"])
    x = bf16_round(rng.standard_normal((384, 256)))
    w = bf16_round(1.0 + 0.1 * rng.standard_normal(256))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-6) * w64
    pool, _, _, _ = run_sequence(graph, "eager", "trn1", {"x": x, "w": w}, work)
    check("rmsnorm [384, 256] eager", pool["y"], ref, 5 * U, 1e-6)  # bound as in rmsnorm()
    n = 128 * 4100
    graph = write_graph(work, "flat_long", [{"name": "s", "dtype": "fp32", "shape": [n, 1]}],
                        [{"id": "t", "op": "mul", "args": ["s", 2]},
                         {"id": "y", "op": "add", "args": ["t", 1]}], ["y"])
    s = rng.standard_normal((n, 1)).astype(np.float32)
    pool, seq, _, _ = run_sequence(graph, "eager", "trn2", {"s": s}, work)
    assert len(seq["launches"]) == 2
    # s * 2 is exact; + 1 rounds once in fp32.
    check("flat [524800, 1] eager", pool["y"], s.astype(np.float64) * 2 + 1, 2.0**-23, 1e-30)


def main():
    with tempfile.TemporaryDirectory() as work:
        rmsnorm(work)
        eager_layouts(work)
        softmax(work)
        mlp(work)
    print("all compiler numerics ok")


if __name__ == "__main__":
    main()
