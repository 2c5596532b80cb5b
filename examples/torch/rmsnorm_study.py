#!/usr/bin/python3
"""The RMSNorm study as a PyTorch user writes it (scripts/rmsnorm_study.sh is the same
study as launch sequences; docs/torch.md, "The study"):

    eager      the naive RMSNorm as PyTorch ops, one launch per aten op
    fused      neuronsim.torch.rms_norm, the torch.rms_norm analogue: the hand-fused kernel
    compiled   neuronsim.torch.compile of the naive function: one fused kernel

each profiled with neuronsim.torch.profile and a warm-up schedule (one warm-up step, one
active step; each step ends with neuronsim.torch.synchronize(), so the active step holds
all its device work), on the study's shapes ([4096, 4096] and [128, 2048] bf16) and
targets (trn1, trn2). Prints each variant's key_averages table (sorted by device time),
the side-by-side comparison (end-to-end and device time, launches, HBM bytes) and checks
each output against PyTorch's CPU result. Each variant's profile directory (what `neuronsim
view`, `report` and `compare` open) and Chrome trace go under --out.

    PYTHONPATH=build/python /usr/bin/python3 examples/torch/rmsnorm_study.py --shape 128,2048 --target trn2
"""
import argparse
import json
import os
import sys
import time

import torch

import neuronsim.torch as nt

EPS = 1e-6


def rmsnorm(x, w):
    """The naive RMSNorm, as in the study: six aten ops."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def fused(x, w):
    return nt.rms_norm(x, w, EPS)


# Relative error bounds against the fp32 CPU result of the same bf16 inputs, in units of
# bf16's unit roundoff u = 2^-8. Eager rounds six results to bf16: pow, mean and add each
# add u to rsqrt's argument, which reaches its result halved (d rsqrt(a)/rsqrt(a) =
# -da/2a), then rsqrt, and the two muls, u each: 3/2 + 3 = 4.5 u, so 5 u. A fused kernel
# computes in fp32 on chip and rounds once: u, and 2 u leaves room for its fp32 reduction
# order and the activation's fp32 rsqrt.
BOUNDS_U = {"eager": 5, "fused": 2, "compiled": 2}
U = 2.0 ** -8


def relative_error(y, ref):
    y, ref = y.double(), ref.double()
    return ((y - ref).abs() / ref.abs().clamp(min=1e-3)).max().item()


def profile_variant(name, fn, x, w, out_dir, timing_only):
    """Two steps, the first a warm-up; returns (profile, output, wall seconds)."""
    start = time.monotonic()
    with nt.profile(output_dir=os.path.join(out_dir, "profile-" + name),
                    schedule=nt.schedule(wait=0, warmup=1, active=1)) as prof:
        for _ in range(2):
            y = fn(x, w)
            nt.synchronize()
            prof.step()
    prof.export_chrome_trace(os.path.join(out_dir, "trace-%s.json" % name))
    return prof, y, time.monotonic() - start


def study(target, n, d, out_dir, timing_only, row_limit):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, d, generator=g).to(torch.bfloat16)
    w = (1 + 0.1 * torch.randn(d, generator=g)).to(torch.bfloat16)
    ref = rmsnorm(x.float(), w.float())
    compiled = nt.compile(rmsnorm, target=target, timing_only=timing_only)
    results = {}
    with nt.device(target, timing_only=timing_only):
        for name, fn in (("eager", rmsnorm), ("fused", fused), ("compiled", compiled)):
            prof, y, wall = profile_variant(name, fn, x, w, out_dir, timing_only)
            results[name] = (prof, y, wall)
    print("\n=== RMSNorm [%d, %d] bf16 on %s ===" % (n, d, target))
    for name, (prof, y, wall) in results.items():
        print("\n--- %s: key_averages (sorted by self_privateuse1_time_total) ---" % name)
        print(prof.key_averages().table(sort_by="self_privateuse1_time_total",
                                        row_limit=row_limit), end="")
    print("\n%-10s %14s %14s %14s %9s %14s %10s" % (
        "variant", "end to end us", "device us", "host us", "launches", "HBM bytes", "wall s"))
    summary = {}
    for name, (prof, y, wall) in results.items():
        t = prof.totals()
        summary[name] = dict(t, wall_s=wall, profile_dir=prof.profile_dir)
        print("%-10s %14.3f %14.3f %14.3f %9d %14d %10.2f" % (
            name, t["end_to_end_ns"] / 1e3, t["device_ns"] / 1e3, t["host_ns"] / 1e3,
            t["launches"], t["hbm_bytes"], wall))
    e, c, f = (summary[v]["end_to_end_ns"] for v in ("eager", "compiled", "fused"))
    print("eager / compiled: %.2fx end to end; compiled / fused: %.3fx" % (e / c, c / f))
    if not timing_only:
        for name, (prof, y, wall) in results.items():
            rel = relative_error(y, ref)
            bound = BOUNDS_U[name] * U
            summary[name]["relative_error"] = rel
            print("%s output vs PyTorch CPU (fp32): max relative error %.3g (bound %d x 2^-8)"
                  % (name, rel, BOUNDS_U[name]))
            if rel > bound:
                sys.exit("%s: output differs from PyTorch's CPU result by %.3g (relative), "
                         "more than %.3g" % (name, rel, bound))
    print("profiles: neuronsim compare %s" % " ".join(
        summary[v]["profile_dir"] for v in ("eager", "compiled", "fused")))
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", nargs="+", default=["trn1", "trn2"])
    ap.add_argument("--shape", nargs="+", default=["4096,4096", "128,2048"],
                    help="N,D: x is [N, D] bf16")
    ap.add_argument("--out", default="out/torch-rmsnorm-study")
    ap.add_argument("--timing-only", action="store_true",
                    help="no numerics (the same times; outputs are not checked)")
    ap.add_argument("--row-limit", type=int, default=12)
    ap.add_argument("--json", help="write every case's comparison numbers here")
    a = ap.parse_args()
    everything = {}
    for target in a.target:
        for shape in a.shape:
            n, d = (int(v) for v in shape.split(","))
            out_dir = os.path.join(a.out, "%s-%dx%d" % (target, n, d))
            os.makedirs(out_dir, exist_ok=True)
            everything["%s %dx%d" % (target, n, d)] = study(target, n, d, out_dir,
                                                            a.timing_only, a.row_limit)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
