"""neuronsim whatif ranks what limits a kernel (docs/whatif.md): a DMA-bound copy ranks
the DMA engines or HBM first, a large GEMM the Tensor engine, and a kernel with a
deliberately serialising semaphore wait that wait; the ranking is byte-identical run
after run, and a launch sequence's baseline is `neuronsim run`'s end-to-end time."""
import json
import os
import subprocess
import sys
import tempfile

NEURONSIM = os.environ["NEURONSIM"]
SOURCE_DIR = os.environ["SOURCE_DIR"]


def run(*args):
    p = subprocess.run([NEURONSIM, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: neuronsim %s: %s" % (" ".join(args), p.stderr))
    return p.stdout


def whatif(path, *extra):
    return json.loads(run("whatif", path, "--json", *extra))


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def assemble(work, name, text):
    """The NEFF of assembly `text`, written into `work`."""
    source, neff = os.path.join(work, name + ".nasm"), os.path.join(work, name + ".neff")
    with open(source, "w") as f:
        f.write(text)
    run("asm", source, "-o", neff)
    return neff


def first_ok(ranking):
    return [r for r in ranking if "error" not in r][0]


# Two 4 MiB loads into SBUF on a queue of 4 DMA engines (4 x 23 B/ns on trn2, a quarter
# of the core's HBM share of 2900 GB/s / 8 = 362.5 B/ns) and nothing else: the DMA engines
# are all it waits for, so doubling their bandwidth nearly halves its time.
COPY = """kernel copy target=trn2
tensor a fp32[128, 8192] input
tensor b fp32[128, 8192] input
sbuf xa fp32[128, 8192]
sbuf xb fp32[128, 8192]
sem loaded = 0
queue loads first_engine=0 engines=4
sync:
    dma_copy xa, a, queue=loads  signal loaded
    dma_copy xb, b, queue=loads  signal loaded
    nop  wait loaded>=2
"""

# A chain load -> Vector -> store of its result -> Scalar -> GpSimd -> store, where Scalar
# waits for the first store (the semaphore `serial`), a dependency its data does not need.
# Without that wait the two halves (Vector and the store, Scalar and GpSimd) overlap, which
# saves more than relieving any one engine or the DMA, each only one link of the chain.
# The other waits are the data's own; the last store waits on both Scalar and GpSimd, so
# dropping one of its waits leaves it waiting for the other.
SERIAL = """kernel serial target=trn2
tensor a    fp32[128, 4096] input
tensor out1 fp32[128, 4096] output
tensor out2 fp32[128, 4096] output
sbuf x  fp32[128, 4096]
sbuf y1 fp32[128, 4096]
sbuf y2 fp32[128, 4096]
sbuf y3 fp32[128, 4096]
sem loaded = 0
sem done1 = 0
sem serial = 0
sem done2 = 0
sem done3 = 0
sem stored = 0
queue loads first_engine=0 engines=16
queue st1   first_engine=0 engines=16
queue st2   first_engine=0 engines=16
sync:
    dma_copy x, a, queue=loads  signal loaded
    dma_copy out1, y1, queue=st1  wait done1>=1  signal serial
    dma_copy out2, y3, queue=st2  wait done3>=1, done2>=1  signal stored
    nop  wait stored>=1, serial>=1
vector:
    tensor_tensor y1, x, x, op=add  wait loaded>=1  signal done1
scalar:
    activation y2, x, func=relu  wait loaded>=1, serial>=1  signal done2
gpsimd:
    tensor_tensor y3, y2, x, op=add  wait done2>=1  signal done3
"""

with tempfile.TemporaryDirectory() as work:
    copy_neff = assemble(work, "copy", COPY)
    r = whatif(copy_neff)
    top = first_ok(r["ranking"])
    check(top["kind"] in ("dma", "hbm"), "the copy ranks %s first, not DMA or HBM" % top["resource"])
    check(top["speedup"] > 1.8, "relieving %s speeds the copy by only %.3fx"
          % (top["resource"], top["speedup"]))
    for row in r["ranking"]:
        if row["kind"] == "engine" and "error" not in row:
            check(abs(row["speedup"] - 1.0) < 1e-9,
                  "the copy uses no compute engine, yet %s %s changes its time"
                  % (row["resource"], row["relief"]))
    check(set(r["ranking"][0]) >= {"resource", "time_ns", "speedup"}, "ranking rows lack fields")
    # The same run twice: byte-identical, text and JSON.
    check(run("whatif", copy_neff) == run("whatif", copy_neff), "whatif text differs run to run")
    check(run("whatif", copy_neff, "--json") == run("whatif", copy_neff, "--json"),
          "whatif JSON differs run to run")
    # The baseline is the kernel's `run` time.
    stats = json.loads(run("run", copy_neff, "--timing-only", "--stats-json", "-"))
    check(abs(stats["stats"]["total_time_ns"]["value"] - r["baseline_ns"]) < 1e-6,
          "baseline %s ns, run says %s" % (r["baseline_ns"], stats["stats"]["total_time_ns"]))

    # A large GEMM: [512 x 4096] x [4096 x 2048] bf16 on trn2.
    gemm = os.path.join(work, "gemm.neff")
    run("example", "matmul", "-t", "trn2", "--rows", "512", "--inner", "4096", "--cols", "2048",
        "-o", gemm)
    r = whatif(gemm)
    top = first_ok(r["ranking"])
    check(top["resource"] == "tensor engine",
          "the GEMM ranks %s (%s) first, not the tensor engine" % (top["resource"], top["relief"]))

    serial_neff = assemble(work, "serial", SERIAL)
    r = whatif(serial_neff)
    top = first_ok(r["ranking"])
    check(top["resource"] == "semaphore serial" and top["relief"] == "wait removed",
          "the serialised kernel ranks %s (%s) first, not the wait on serial"
          % (top["resource"], top["relief"]))
    check("scalar[0] activation" in top["where"], "the wait is placed at %r" % top["where"])
    check(top["speedup"] > 1.3, "removing the serialising wait gives only %.3fx" % top["speedup"])
    runner_up = first_ok(r["ranking"][1:])
    check(top["speedup"] > runner_up["speedup"] + 0.1,
          "the serialising wait (%.3fx) is not clearly ahead of %s %s (%.3fx)"
          % (top["speedup"], runner_up["resource"], runner_up["relief"], runner_up["speedup"]))

    # A launch sequence: the baseline is run's end-to-end time (host model included), and
    # the host's dispatch is one of the reliefs.
    graph = os.path.join(SOURCE_DIR, "examples", "rmsnorm", "rmsnorm_small.json")
    out = os.path.join(work, "eager")
    run("compile", graph, "--mode", "eager", "-t", "trn2", "-o", out)
    launch = os.path.join(out, "launch.json")
    r = whatif(launch)
    check(r["sequence"] and r["launches"] > 1, "the eager program is not a sequence")
    check(any(row["resource"] == "host dispatch" for row in r["ranking"]), "no host relief")
    text = run("run", launch, "--timing-only")
    end_to_end = [l for l in text.splitlines() if l.startswith("end to end: ")][0]
    check(end_to_end.startswith("end to end: %.3f ns" % r["baseline_ns"]),
          "baseline %.3f ns, run says %r" % (r["baseline_ns"], end_to_end))

    # Bad input: one line naming the file, exit status 1.
    p = subprocess.run([NEURONSIM, "whatif", os.path.join(work, "missing.neff")],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "missing.neff" in p.stderr, "a missing NEFF: %r" % p.stderr)
print("ok")
