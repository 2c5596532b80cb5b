"""Microbenchmark sweeps of the cost model, as tables and plots (issue 24, docs/validation.md
"Sweeps"): DMA by partitions x bytes per partition (reads and writes) and by innermost
stride, engine instructions by size, matmuls by shape and dtype. Every point is one small
timing-only kernel run in one neuronsim session on a shipped preset.

    PYTHONPATH=build/python /usr/bin/python3 bench/validation_sweeps.py --write   # the doc and the PNGs
    PYTHONPATH=build/python /usr/bin/python3 bench/validation_sweeps.py --check   # the doc's tables are current

--write regenerates docs/validation-sweeps.md and its figures docs/img/sweep_*.png
(matplotlib, Debian's python3-matplotlib); --check recomputes the tables only and fails
(status 1) if the doc's differ, which CTest runs (`validation: sweeps doc is current`)."""
import argparse
import os
import sys

import neuronsim

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
DOC = os.path.join(SOURCE, "docs", "validation-sweeps.md")
IMG = os.path.join(SOURCE, "docs", "img")
TARGETS = ("trn1", "trn2")
PARTITIONS = (1, 4, 16, 32, 64, 128)
ROW_BYTES = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
STRIDES = (1, 2, 4, 8)
SIZES = (64, 256, 1024, 4096, 8192)
MOVING = (16, 64, 128, 256, 512)


def run(text, target, overrides=None):
    kernel = neuronsim.assemble(text, name="sweep", target=target)
    return neuronsim.run(kernel, target=target, timing_only=True, overrides=overrides)


def run_ns(text, target, overrides=None):
    return run(text, target, overrides).total_ns


def busy_cycles(text, target, engine, overrides=None):
    """The engine's busy time in cycles of its own clock."""
    e = run(text, target, overrides).engines[engine]
    return e["busy_ns"] * e["clock_ghz"]


def dma_kernel(partitions, row_bytes, write, stride=1):
    """One dma_copy of [partitions, row_bytes] fp32 between HBM and SBUF, Sync waiting for
    it. With stride > 1 the HBM side's innermost stride is `stride` elements (an HBM tensor
    stride times wider)."""
    elems = row_bytes // 4
    hbm = f"t{{ap=[[{elems * stride}, {partitions}], [{stride}, {elems}]]}}"
    dst, src = (hbm, "s") if write else ("s", hbm)
    return f"""kernel dma target=trn2
tensor t fp32[{partitions}, {elems * stride}] {"output" if write else "input"}
sbuf s fp32[{partitions}, {elems}]
sem done = 0
queue q first_engine=0 engines=16
sync:
    dma_copy {dst}, {src}, queue=q  signal done
    nop  wait done>=1
"""


def engine_kernel(opcode, engine, dtype, n, count=8):
    """`count` independent back-to-back instructions of [128, n]: the steady interval is
    the total over count (no dependencies, so no dependent overhead)."""
    body = {
        "tensor_copy": "tensor_copy d, a",
        "tensor_tensor": "tensor_tensor d, a, b, op=add",
        "activation": "activation d, a, func=exp",
        "tensor_scalar": "tensor_scalar d, a, op0=multiply, arg0=2.0",
    }[opcode]
    lines = "\n".join(f"    {body}" for _ in range(count))
    return f"""kernel op target=trn2
sbuf a {dtype}[128, {n}]
sbuf b {dtype}[128, {n}]
sbuf d {dtype}[128, {n}]
{engine}:
{lines}
"""


def matmul_kernel(dtype, m, n, count=16):
    """`count` matmuls [128 x m] x [128 x n] sharing one stationary, alternating between two
    PSUM banks."""
    lines = "\n".join(f"    matmul p{i % 2}, w, x" for i in range(count))
    return f"""kernel mm target=trn2
sbuf w {dtype}[128, {m}]
sbuf x {dtype}[128, {n}]
psum p0 fp32[{m}, {n}]
psum p1 fp32[{m}, {n}]
tensor:
{lines}
"""


def dma_table(target, labels, kernel_of, title, header, fig):
    """One DMA table: a row per label, GB/s per bytes-per-partition column; kernel_of(label,
    bytes) is the kernel and the bytes it moves."""
    rows = []
    for label in labels:
        row = [str(label)]
        for b in ROW_BYTES:
            text, moved = kernel_of(label, b)
            row.append(f"{moved / run_ns(text, target):.2f}")
        rows.append(row)
    return (title, [header] + [str(b) for b in ROW_BYTES], rows, fig, "bytes per partition",
            "GB/s", True)


def sweeps():
    """Every table: (title, header, rows, figure, x label, y label, log x)."""
    out = []
    for write in (False, True):
        what = "write SBUF -> HBM" if write else "read HBM -> SBUF"
        for target in TARGETS:
            out.append(dma_table(
                target, PARTITIONS, lambda p, b: (dma_kernel(p, b, write), p * b),
                f"DMA {what}, {target}: GB/s of one dma_copy (fixed latency included) by "
                f"partitions (rows) and bytes per partition (columns)", "partitions",
                ("dma_write" if write else "dma_read") + f"_{target}"))
    for target in TARGETS:
        out.append(dma_table(
            target, STRIDES, lambda st, b: (dma_kernel(128, b, False, st), 128 * b),
            f"DMA read by innermost HBM stride (elements, rows), {target}: GB/s of 128 "
            f"partitions x bytes per partition (columns)", "stride", f"dma_stride_{target}"))
    for target in TARGETS:
        rows = []
        for opcode, engine in (("tensor_copy", "vector"), ("tensor_tensor", "vector"),
                               ("tensor_scalar", "vector"), ("tensor_copy", "gpsimd"),
                               ("activation", "scalar")):
            for dtype in ("fp32", "bf16"):
                rows.append([f"{engine} {opcode} {dtype}"] + [
                    f"{busy_cycles(engine_kernel(opcode, engine, dtype, n), target, engine) / 8:.0f}"
                    for n in SIZES])
        out.append((f"Engine instructions, {target}: cycles each (engine clock, its busy time over 8) by elements per "
                    f"partition, 8 independent [128, N] instructions back to back",
                    ["instruction"] + [str(n) for n in SIZES], rows, f"engines_{target}",
                    "elements per partition", "cycles", True))
    for target in TARGETS:
        rows = []
        for dtype in ("bf16", "fp8_e4m3", "fp32"):
            for m in (32, 128):
                for throttle in ((False, True) if target != "trn1" else (False,)):
                    over = None if throttle else {"tensor": {"throttle": False}}
                    name = f"{dtype} M={m}" + (", throttled" if throttle else "")
                    rows.append([name] + [
                        f"{busy_cycles(matmul_kernel(dtype, m, n), target, 'tensor', over) / 16:.0f}"
                        for n in MOVING])
        out.append((f"Matmul, {target}: Tensor busy cycles per matmul (16 back to back from cold, "
                    f"one stationary) by moving columns N; throttled rows are the shipped "
                    f"preset, the others have tensor.throttle off",
                    ["matmul"] + [str(n) for n in MOVING], rows, f"matmul_{target}",
                    "moving columns N", "cycles per matmul", False))
    return out


def table_text(title, header, rows):
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def doc_text(tables):
    parts = ["# Validation sweeps: the cost model's curves\n",
             "Generated by `bench/validation_sweeps.py --write` (do not edit; CTest's "
             "`validation: sweeps doc is current` recomputes the tables). Each point is a small "
             "timing-only kernel on a shipped preset; the published figures these curves are "
             "checked against are in docs/validation.md.\n"]
    for title, header, rows, fig, *_ in tables:
        parts.append(table_text(title, header, rows))
        parts.append(f"![{fig}](img/sweep_{fig}.png)\n")
    return "\n".join(parts)


def plot(tables):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(IMG, exist_ok=True)
    for title, header, rows, fig, xlabel, ylabel, logx in tables:
        xs = [float(h) for h in header[1:]]
        f, ax = plt.subplots(figsize=(7, 4))
        for r in rows:
            ax.plot(xs, [float(v) for v in r[1:]], marker="o", label=r[0])
        if logx:
            ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title.split(":")[0], fontsize=10)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, alpha=0.3)
        f.tight_layout()
        f.savefig(os.path.join(IMG, f"sweep_{fig}.png"), dpi=80, metadata={"Software": None})
        plt.close(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args()
    tables = sweeps()
    text = doc_text(tables)
    if args.write:
        with open(DOC, "w") as f:
            f.write(text)
        plot(tables)
        print(f"wrote {DOC} and {len(tables)} figures in {IMG}")
        return 0
    with open(DOC) as f:
        if f.read() != text:
            print(f"{DOC} is not current: run bench/validation_sweeps.py --write", file=sys.stderr)
            return 1
    print(f"{DOC}: current ({len(tables)} tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
