#!/usr/bin/python3
"""The Llama-style decoder block (examples/torch/decoder_block.py) profiled eager and
compiled with neuronsim.torch.profile (docs/torch.md, "The decoder block"): the per-op
key_averages table of each mode and the comparison (end-to-end and device time, host
time, launches, HBM bytes, and the wall time each run took).

    --size full    the existing decoder layer's shapes (examples/transformer/
                   decoder_layer.json: 2048 tokens, 32 heads of 128, MLP 4096 -> 11008),
                   timing only: the times are the same, nothing is computed
    --size small   the reduced size, with numerics, checked against PyTorch's CPU result

    PYTHONPATH=build/python /usr/bin/python3 examples/torch/decoder_study.py --size small
"""
import argparse
import json
import os
import sys
import time

import torch

import neuronsim.torch as nt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder_block import FULL, SMALL, make_block  # noqa: E402

# The reduced size's normwise bounds against the same block in float64 on PyTorch's CPU,
# in bf16 roundings u = 2^-8: tests/torch/test_decoder_block.py derives them (about 30
# roundings on eager's longest path, 14 compiled's; 8 u and 4 u).
BOUND_U = {"eager": 8, "compiled": 4}


def profile_mode(name, fn, x, args):
    out_dir = os.path.join(args.out, "profile-" + name) if args.out else None
    start = time.monotonic()
    with nt.profile(output_dir=out_dir, record_device=out_dir is not None) as prof:
        with torch.no_grad():
            y = fn(x)
        nt.synchronize()
    return prof, y, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("small", "full"), default="full")
    ap.add_argument("--target", default="trn2")
    ap.add_argument("--out", help="write each mode's profile directory here (with device "
                                  "profiles; at the full size 14 + 10 MiB, no slower)")
    ap.add_argument("--row-limit", type=int, default=15)
    ap.add_argument("--json", help="write the comparison numbers here")
    args = ap.parse_args()
    cfg = {"small": SMALL, "full": FULL}[args.size]
    timing_only = args.size == "full"
    block = make_block(cfg)
    x = torch.randn(cfg.tokens, cfg.hidden, generator=torch.Generator().manual_seed(1))
    x = x.to(torch.bfloat16)
    compiled = nt.compile(block, target=args.target, timing_only=timing_only)
    results = {}
    with nt.device(args.target, timing_only=timing_only):
        results["eager"] = profile_mode("eager", block, x, args)
        results["compiled"] = profile_mode("compiled", compiled, x, args)
    print("decoder block, %s size (%d tokens, %d heads of %d, MLP %d -> %d), bf16, %s%s" % (
        args.size, cfg.tokens, cfg.heads, cfg.head_dim, cfg.hidden, cfg.ffn, args.target,
        ", timing only" if timing_only else ""))
    for name, (prof, y, wall) in results.items():
        print("\n--- %s: key_averages (sorted by self_device_time_total) ---" % name)
        print(prof.key_averages().table(sort_by="self_device_time_total",
                                        row_limit=args.row_limit), end="")
    print("\n%-9s %14s %14s %14s %9s %14s %10s" % (
        "mode", "end to end us", "device us", "host us", "launches", "HBM MiB", "wall s"))
    summary = {}
    for name, (prof, y, wall) in results.items():
        t = prof.totals()
        summary[name] = dict(t, wall_s=wall)
        print("%-9s %14.1f %14.1f %14.1f %9d %14.1f %10.1f" % (
            name, t["end_to_end_ns"] / 1e3, t["device_ns"] / 1e3, t["host_ns"] / 1e3,
            t["launches"], t["hbm_bytes"] / 2**20, wall))
    e, c = summary["eager"], summary["compiled"]
    print("eager / compiled: %.2fx end to end, %.2fx device time, %.2fx HBM bytes" % (
        e["end_to_end_ns"] / c["end_to_end_ns"], e["device_ns"] / c["device_ns"],
        e["hbm_bytes"] / c["hbm_bytes"]))
    if not timing_only:
        with torch.no_grad():
            ref = make_block(cfg).double()(x.double())
        scale = ref.abs().max().item()
        for name, (prof, y, wall) in results.items():
            err = (y.double() - ref).abs().max().item() / scale / 2**-8
            summary[name]["error_u"] = err
            print("%s output vs PyTorch CPU (float64): max error %.2f u of the output's "
                  "scale (bound %d u)" % (name, err, BOUND_U[name]))
            if err > BOUND_U[name]:
                sys.exit("%s: output differs from PyTorch's CPU result by %.2f u" % (name, err))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
