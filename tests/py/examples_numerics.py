"""The example kernels (examples/) against float64 references computed here with numpy.

Each example is emitted with `neuronsim example`, run with `neuronsim run` on trn1 and
trn2, serial, double-buffered and (rmsnorm, softmax) with 4 buffers, on random inputs; the outputs must match the reference
within the tolerance stated beside each check, and the double-buffered variant must be
faster than the serial one.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
rng = np.random.default_rng(20261129)


def bf16_round(a):
    """float32 -> nearest bf16 (round half to even), returned as float32."""
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def run(work, name, target, nbuf, inputs, sizes):
    """nbuf buffers per stage: 1 serial, 2 by --double-buffer, more by --buffers."""
    tag = f"{name}_{target}_b{nbuf}"
    neff = os.path.join(work, tag + ".neff")
    cmd = [NEURONSIM, "example", name, "-t", target, "-o", neff] + sizes
    if nbuf == 2:
        cmd.append("--double-buffer")
    elif nbuf > 2:
        cmd += ["--buffers", str(nbuf)]
    subprocess.run(cmd, check=True)
    args = [NEURONSIM, "run", neff, "--target", target, "--out-dir", os.path.join(work, tag)]
    for key, value in inputs.items():
        path = os.path.join(work, f"{tag}_{key}.npy")
        np.save(path, value)
        args += ["--input", f"{key}={path}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    total_ns = float(re.search(r"total: ([0-9.]+) ns", out).group(1))
    return os.path.join(work, tag), total_ns


def check(name, got, ref, rtol, atol):
    err = np.abs(got.astype(np.float64) - ref)
    bound = atol + rtol * np.abs(ref)
    worst = float(np.max(err - bound))
    if worst > 0 or not np.all(np.isfinite(got)):
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        sys.exit(f"FAIL {name}: at {i} got {got[i]} want {ref[i]} (rtol {rtol}, atol {atol})")
    print(f"ok {name}: max abs err {float(err.max()):.3g}")


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        # Matmul 512^3: bf16 inputs are exact in fp32, products are exact in fp32 and the
        # K=512 sum accumulates in fp32 (relative error ~1e-6), then the output is rounded
        # to bf16: relative 2^-8 of the value plus a small absolute term for sums near 0.
        a = bf16_round(rng.standard_normal((512, 512)).astype(np.float32))
        b = bf16_round(rng.standard_normal((512, 512)).astype(np.float32))
        ref = a.astype(np.float64) @ b.astype(np.float64)
        # Softmax [1024, 1024]: fp32 math, exp via expf, bf16 output: relative 2^-8.
        x = bf16_round(rng.standard_normal((1024, 1024)).astype(np.float32) * 2)
        xs = x.astype(np.float64)
        e = np.exp(xs - xs.max(axis=1, keepdims=True))
        soft = e / e.sum(axis=1, keepdims=True)
        # RMSNorm [1024, 2048]: fp32 mean of squares and rsqrt, bf16 output: 2^-8 relative.
        xr = bf16_round(rng.standard_normal((1024, 2048)).astype(np.float32))
        w = bf16_round((1 + 0.1 * rng.standard_normal(2048)).astype(np.float32))
        xd = xr.astype(np.float64)
        rms = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + 1e-6) * w

        cases = [
            ("matmul", {"a": a, "b": b}, "c", ref, 2**-8, 1e-2, []),
            ("softmax", {"x": x}, "y", soft, 2**-8, 1e-6, []),
            ("rmsnorm", {"x": xr, "w": w}, "y", rms, 2**-8, 1e-3, []),
        ]
        for target in ("trn1", "trn2"):
            for name, inputs, out, reference, rtol, atol, sizes in cases:
                times = {}
                buffers = (1, 2) if name == "matmul" else (1, 2, 4)  # matmul: --double-buffer
                for nbuf in buffers:
                    d, t = run(work, name, target, nbuf, inputs, sizes)
                    got = np.load(os.path.join(d, out + ".npy"))
                    check(f"{name} {target} {nbuf} buffers", got, reference, rtol, atol)
                    times[nbuf] = t
                print(f"   {name} {target}: serial {times[1]:.0f} ns, "
                      f"double-buffered {times[2]:.0f} ns ({times[1] / times[2]:.2f}x)"
                      + (f", 4 buffers {times[4]:.0f} ns" if 4 in times else ""))
                if not times[2] < times[1]:
                    print(f"FAIL {name} {target}: double-buffered is not faster")
                    failures += 1
                if 4 in times and not times[4] <= times[2]:
                    print(f"FAIL {name} {target}: 4 buffers are slower than 2")
                    failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
