"""The GEMM generator (compiler/gemm.hpp) end to end: `neuronsim example matmul` and
compiled matmul graphs, run with `neuronsim run` on random inputs, against a float64
product computed here, for partial tiles in M, N and K and every input dtype.

Bound on |C - A @ B| per element, with S = |A| @ |B| and u = 2^-24 (fp32's unit roundoff):
- the inputs are exact in their dtype (drawn as values of it), so bf16, fp16 and fp8
  products are exact in fp32 (at most 2 x 11 significand bits); fp32 products round
  once: relative u each;
- PSUM adds the K products in fp32, in any order: at most (K - 1) u S (first order);
- C is rounded once into its dtype: relative 2^-8 for bf16, u for fp32.
So |C - ref| <= e + r (|ref| + e) with e = (K + 1) u S and r the output's unit roundoff.
When K is split into n segments (too long for SBUF), each segment's store adds its fp32
partial product into C through fp32 (one more fp32 rounding and one more rounding into
C's dtype per segment, each of a value at most S + e): |C - ref| <= e + n (r + u)(S + e).

Also: the pipelined kernel is faster than the serial one, and the Tensor engine's busy
cycles of one small product are the ones derived below.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
U32 = 2.0**-24
rng = np.random.default_rng(20261130)


def bf16_round(a):
    """float32 -> nearest bf16 (round half to even), returned as float32."""
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def draw(dtype, shape):
    """Random values that are exact in `dtype`, as float32."""
    x = rng.standard_normal(shape).astype(np.float32)
    if dtype == "bf16":
        return bf16_round(x)
    if dtype == "fp16":
        return x.astype(np.float16).astype(np.float32)
    if dtype.startswith("fp8"):
        # (1 + m/4) 2^e with m < 4, |e| <= 3: two fraction bits and a small exponent are
        # exact in e4m3 (3 bits, bias 7) and e5m2 (2 bits, bias 15).
        m = rng.integers(0, 4, shape)
        e = rng.integers(-3, 4, shape)
        return (rng.choice([-1.0, 1.0], shape) * (1 + m / 4) * 2.0**e).astype(np.float32)
    return x


def check(name, got, a, b, out_dtype, segments=1):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    s = np.abs(a64) @ np.abs(b64)
    e = (a.shape[1] + 1) * U32 * s
    r = 2.0**-8 if out_dtype == "bf16" else U32
    if segments == 1:
        bound = e + r * (np.abs(ref) + e) + 1e-30
    else:
        bound = e + segments * (r + U32) * (s + e) + 1e-30
    err = np.abs(got.astype(np.float64) - ref)
    if not np.all(np.isfinite(got)) or np.any(err > bound):
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        sys.exit(f"FAIL {name}: at {i} got {got[i]} want {ref[i]} (bound {bound[i]:.3g})")
    print(f"ok {name}: max abs err {float(err.max()):.3g}, "
          f"max err / bound {float((err / bound).max()):.3f}")


def run(neff, inputs, work, tag, stats=None):
    args = [NEURONSIM, "run", neff, "--out-dir", os.path.join(work, tag)]
    for key, value in inputs.items():
        path = os.path.join(work, f"{tag}_{key}.npy")
        np.save(path, value)
        args += ["--input", f"{key}={path}"]
    if stats:
        args += ["--stats-json", stats]
    subprocess.run(args, check=True, capture_output=True, text=True)
    return os.path.join(work, tag)


def stat(path, name):
    with open(path) as f:
        stats = json.load(f)["stats"]
    if name not in stats:
        sys.exit(f"FAIL: no statistic {name} in {path}")
    return stats[name]["value"]


def example(work, m, n, k, dtype, target, pipelined, segments=1):
    tag = f"ex_{m}x{n}x{k}_{dtype}_{target}_{'db' if pipelined else 'serial'}"
    neff = os.path.join(work, tag + ".neff")
    cmd = [NEURONSIM, "example", "matmul", "--rows", str(m), "--cols", str(n), "--inner",
           str(k), "--dtype", dtype, "-t", target, "-o", neff]
    if pipelined:
        cmd.append("--double-buffer")
    subprocess.run(cmd, check=True)
    a, b = draw(dtype, (m, k)), draw(dtype, (k, n))
    stats = os.path.join(work, tag + ".json")
    out = run(neff, {"a": a, "b": b}, work, tag, stats)
    check(tag, np.load(os.path.join(out, "c.npy")), a, b, "fp32" if dtype == "fp32" else "bf16",
          segments)
    return stat(stats, "total_time_ns")


def compiled(work, m, n, k, dtype):
    """A one-node graph `y = a @ b`, compiled eager for trn2."""
    graph = {"format": "neuronsim-graph", "version": 1, "name": "mm",
             "inputs": [{"name": "a", "dtype": dtype, "shape": [m, k]},
                        {"name": "b", "dtype": dtype, "shape": [k, n]}],
             "nodes": [{"id": "y", "op": "matmul", "args": ["a", "b"]}], "outputs": ["y"]}
    tag = f"graph_{m}x{n}x{k}_{dtype}"
    path = os.path.join(work, tag + ".json")
    with open(path, "w") as f:
        json.dump(graph, f)
    out_dir = os.path.join(work, tag)
    subprocess.run([NEURONSIM, "compile", path, "--mode", "eager", "-t", "trn2", "-o", out_dir],
                   check=True, capture_output=True)
    a, b = draw(dtype, (m, k)), draw(dtype, (k, n))
    out = run(os.path.join(out_dir, "00_y.neff"), {"a": a, "b": b}, work, tag + "_run")
    # fp8 products come out in bf16 (docs/graph.md); others keep their dtype.
    check(tag, np.load(os.path.join(out, "y.npy")), a, b, "fp32" if dtype == "fp32" else "bf16")


def tensor_busy_cycles(work):
    """256 x 1024 x 128 bf16 on trn2, pipelined (docs/cost-model.md, "Tensor engine"):
    one block of 2 row tiles, one group of 2 chunks, one K-tile.
    - 2 transposes of [128, 128]: max(P, min(64, F)) = 128 cycles each: 256;
    - 2 x 2 matmuls of a [128, 128] stationary and a [128, 512] moving tensor:
      max(min(64, 128), 512) = 512 cycles each: 2048;
    - LoadStationary of a [128, 128] stationary: ceil(128 / 4) = 32 cycles, paid in full
      once, by the first matmul (the transposes before it replace the stationary). The
      second matmul reuses it (same A^T tile, the other chunk); the third's load runs in
      the background of the second's multiply (all four read the one B tile and A^T panel
      the first waited for, so nothing holds it back) and the fourth reuses that.
    Total 256 + 2048 + 32 = 2336, at full rate: the Tensor throttle (trn2's tensor.throttle,
    docs/cost-model.md) is turned off here, and on it adds exactly what the run's
    tensor_engine_throttled_ns says."""
    neff = os.path.join(work, "busy.neff")
    subprocess.run([NEURONSIM, "example", "matmul", "--rows", "256", "--cols", "1024", "--inner",
                    "128", "-t", "trn2", "--double-buffer", "-o", neff], check=True)
    stats = os.path.join(work, "busy.json")
    no_throttle = os.path.join(work, "no_throttle.json")
    with open(no_throttle, "w") as f:
        json.dump({"tensor": {"throttle": False}}, f)
    subprocess.run([NEURONSIM, "run", neff, "--timing-only", "--stats-json", stats, "--override",
                    no_throttle], check=True, capture_output=True)
    got = stat(stats, "tensor_engine_busy_cycles")
    if got != 2336:
        sys.exit(f"FAIL tensor busy cycles: {got}, want 2336")
    print("ok tensor busy cycles: 2336")
    subprocess.run([NEURONSIM, "run", neff, "--timing-only", "--stats-json", stats], check=True,
                   capture_output=True)
    throttled = round(stat(stats, "tensor_engine_throttled_ns") * 2.4)  # trn2's Tensor GHz
    got = stat(stats, "tensor_engine_busy_cycles")
    if got - throttled != 2336 or throttled == 0:
        sys.exit(f"FAIL tensor busy cycles with the throttle: {got} - {throttled} throttled")
    print(f"ok tensor busy cycles with the throttle: {got} = 2336 + {throttled} throttled")


def main():
    with tempfile.TemporaryDirectory() as work:
        # Partial tiles in every dimension: 200 = 128 + 72 rows, 300 columns in one chunk,
        # 130 = 128 + 2 contraction rows; 129 x 513 x 257 leaves one row, one column and
        # one contraction row over.
        for dtype in ("bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "fp32"):
            for target in ("trn1", "trn2"):
                example(work, 200, 300, 130, dtype, target, True)
            example(work, 129, 513, 257, dtype, "trn2", True)
        # Several blocks and groups (M = 640 is two blocks of 3 and 2 row tiles), serial
        # and pipelined: the same values, the pipelined one faster.
        times = {p: example(work, 640, 1100, 300, "bf16", "trn2", p) for p in (False, True)}
        print(f"   640x1100x300 trn2: serial {times[False]:.0f} ns, "
              f"pipelined {times[True]:.0f} ns")
        if not times[True] < times[False]:
            sys.exit("FAIL: the pipelined GEMM is not faster than the serial one")
        # K = 60000 on trn1 (192 KiB per partition): one row tile's A^T panel and rows
        # take 469 x 128 x 2 + 60000 x 2 = 240064 bytes, so K is split; two segments of
        # up to 235 K-tiles fit (2 x 235 x 128 x 2 = 120320 bytes plus the ring and output).
        example(work, 64, 64, 60000, "bf16", "trn1", True, segments=2)
        for dtype in ("bf16", "fp8_e4m3", "fp32"):
            compiled(work, 200, 300, 130, dtype)
        tensor_busy_cycles(work)


if __name__ == "__main__":
    main()
