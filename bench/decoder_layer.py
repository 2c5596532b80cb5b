"""The decoder layer figures of docs/compiler.md ("A transformer decoder layer"): the
graph (examples/transformer/decoder_layer.json by default) compiled eager and fused for
each target, every launch run timing only with its statistics, summed per part of the
layer; the whole launch sequence's simulator wall time, timing only and (--numerics) with
full numerics on generated inputs.

    NEURONSIM=build/neuronsim /usr/bin/python3 bench/decoder_layer.py [--graph G]
        [--targets trn1,trn2] [--modes eager,fused] [--numerics] [--keep DIR]

Parts, by the first node of each launch: norms (the two RMSNorms), qkv (the Q/K/V
projections with the rotary embedding), attention (per head: slices, K^T, scores, scale,
mask, softmax, P @ V, and the concat), out_proj (output projection and residual), mlp
(gate, up, SiLU, product, down, residual). Per part: launches, device time (each launch
as it runs alone, the same as in the sequence, sequence/sequence_runner.cpp), busy time of
each engine, the DMA engines' mean busy time, the time the Tensor engine waited for DMA
transfers (semaphore waits on the kernels' DMA queues, from each launch's profile: `neuronsim
view --json`, stall_attribution), HBM bytes read + written; and the Tensor engine's ideal time (M*N*K / 128^2 cycles per bf16 matmul of the part, at the Tensor
clock) against the device time.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

NEURONSIM = os.environ.get("NEURONSIM", "build/neuronsim")
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(os.path.dirname(__file__), ".."))
PARTS = ("norms", "qkv", "attention", "out_proj", "mlp")


def part_of(node):
    if node.startswith(("attn_norm", "mlp_norm")):
        return "norms"
    if re.fullmatch(r"(q|k)(_lin|_rh|_cos|_sin)?|v", node):
        return "qkv"
    if re.fullmatch(r"(q|k|v|kt|s|ss|sm|p|o)\d+|attn", node):
        return "attention"
    if node in ("attn_out", "h"):
        return "out_proj"
    return "mlp"


def stats_of(path):
    with open(path) as f:
        return {k: v["value"] for k, v in json.load(f)["stats"].items()}


def ideal_ns(graph, nodes, ghz):
    """M*N*K / 128^2 Tensor cycles for the matmul nodes among `nodes` (bf16)."""
    shapes = {i["name"]: i["shape"] for i in graph["inputs"]}
    cycles = 0.0
    for n in graph["nodes"]:
        shape = None
        if n["op"] == "matmul":
            a, b = (shapes[x] for x in n["args"])
            shape = [a[0], b[1]]
            if n["id"] in nodes:
                cycles += a[0] * a[1] * b[1] / (128 * 128)
        elif n["op"] == "transpose":
            shape = shapes[n["args"][0]][::-1]
        elif n["op"] == "slice":
            shape = shapes[n["args"][0]][:-1] + [n["end"] - n["start"]]
        elif n["op"] == "concat":
            shape = shapes[n["args"][0]][:-1] + [sum(shapes[x][-1] for x in n["args"])]
        elif n["op"] in ("mean", "sum", "max"):
            shape = shapes[n["args"][0]][:-1] + [1]
        else:
            ts = [shapes[x] for x in n["args"] if isinstance(x, str)]
            shape = max(ts, key=lambda s: (len(s), s))
        shapes[n["id"]] = shape
    return cycles / ghz


def measure(graph_path, graph, target, mode, work):
    out = os.path.join(work, f"{mode}_{target}")
    subprocess.run([NEURONSIM, "compile", graph_path, "--mode", mode, "-t", target, "-o", out],
                   check=True, capture_output=True)
    with open(os.path.join(out, "launch.json")) as f:
        seq = json.load(f)
    parts = {p: {"launches": 0, "nodes": set()} for p in PARTS}
    ghz = None
    for launch in seq["launches"]:
        js = os.path.join(out, launch["name"] + ".json")
        prof = os.path.join(out, "profile_" + launch["name"])
        subprocess.run([NEURONSIM, "run", os.path.join(out, launch["neff"]), "--timing-only",
                        "-q", "--stats-json", js, "--profile-dir", prof], check=True,
                       stdout=subprocess.DEVNULL)
        s = stats_of(js)
        view = json.loads(subprocess.run([NEURONSIM, "view", prof, "--json"], check=True,
                                         capture_output=True, text=True).stdout)
        by_source = view["stall_attribution"]["tensor"]["semaphore_wait_by_source_ps"]
        queues = ("load", "store")  # the DMA queues of the compiler's kernels
        tensor_dma_wait = sum(v for k, v in by_source.items() if k in queues) / 1000
        ghz = s["tensor_clock_cycles"] / s["total_time_ns"]
        p = parts[part_of(launch["nodes"][0])]
        p["launches"] += 1
        p["nodes"].update(launch["nodes"])
        dma = [v for k, v in s.items() if re.fullmatch(r"dma_engine_\d+_busy_ns", k)]
        for key, value in (("device", s["total_time_ns"]),
                           ("tensor", s["tensor_engine_busy_ns"]),
                           ("vector", s["vector_engine_busy_ns"]),
                           ("scalar", s["scalar_engine_busy_ns"]),
                           ("gpsimd", s["gpsimd_engine_busy_ns"]),
                           ("dma", sum(dma) / max(1, len(dma))),
                           ("twait", tensor_dma_wait),
                           ("hbm", s["hbm_read_bytes"] + s["hbm_write_bytes"])):
            p[key] = p.get(key, 0) + value
    for p in parts.values():
        p["ideal"] = ideal_ns(graph, p["nodes"], ghz)
    start = time.monotonic()
    subprocess.run([NEURONSIM, "run", os.path.join(out, "launch.json"), "--timing-only", "-q"],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    return parts, wall, out


def numerics_wall(out, graph):
    args = [NEURONSIM, "run", os.path.join(out, "launch.json"), "-q", "--seed", "1"]
    for i in graph["inputs"]:
        args += ["--input", f"{i['name']}=normal:0,0.02"]
    start = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", default=os.path.join(SOURCE_DIR, "examples", "transformer",
                                                    "decoder_layer.json"))
    ap.add_argument("--targets", default="trn1,trn2")
    ap.add_argument("--modes", default="eager,fused")
    ap.add_argument("--numerics", action="store_true",
                    help="also time the fused sequence with full numerics (minutes at full size)")
    ap.add_argument("--keep", help="compile into this directory and keep it")
    args = ap.parse_args()
    with open(args.graph) as f:
        graph = json.load(f)
    work = args.keep or tempfile.mkdtemp()
    print("| target | mode | part | launches | device | Tensor | Vector | Scalar | GpSimd | DMA "
          "(mean engine) | Tensor waiting for DMA | Tensor ideal / device | HBM bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    walls = []
    for target in args.targets.split(","):
        for mode in args.modes.split(","):
            parts, wall, out = measure(args.graph, graph, target, mode, work)
            total = {k: sum(p.get(k, 0) for p in parts.values())
                     for k in ("launches", "device", "tensor", "vector", "scalar", "gpsimd",
                               "dma", "twait", "hbm", "ideal")}
            for name, p in list(parts.items()) + [("layer", total)]:
                dev = p["device"]
                pct = lambda k: f"{p[k] / 1000:.0f} us ({100 * p[k] / dev:.0f}%)"  # noqa: E731
                print(f"| {target} | {mode} | {name} | {p['launches']} | {dev / 1000:.0f} us | "
                      f"{pct('tensor')} | {pct('vector')} | {pct('scalar')} | {pct('gpsimd')} | "
                      f"{pct('dma')} | {pct('twait')} | {100 * p['ideal'] / dev:.0f}% | "
                      f"{p['hbm'] / 2**20:.0f} MiB |")
                sys.stdout.flush()
            numerics = None
            if args.numerics and mode == "fused" and target == "trn2":
                numerics = numerics_wall(out, graph)
            walls.append((target, mode, wall, numerics))
    print()
    print("| target | mode | simulator wall time, timing only | with full numerics |")
    print("|---|---|---|---|")
    for target, mode, wall, numerics in walls:
        n = f"{numerics:.0f} s" if numerics is not None else "-"
        print(f"| {target} | {mode} | {wall:.1f} s | {n} |")


if __name__ == "__main__":
    main()
