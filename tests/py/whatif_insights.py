"""Ranked insights (docs/whatif.md, "Insights"): `neuronsim view --insights` and `report
--insights` list what a profile shows that one can act on, each with a speedup measured by
a re-run: a DMA queue on one DMA engine and short DMA rows (examples/asm/matmul_bias_relu), the
Tensor engine's stationary loads (the GEMM example),
an engine idle on one semaphore (the single-buffered RMSNorm example), port conflicts
(Vector and GpSimd sharing trn1's SBUF port), the host's dispatch gaps (an eager launch
sequence). Without the flag the outputs are unchanged; with it they are byte-identical run
after run."""
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


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def insights(profile):
    return {i["kind"]: i for i in json.loads(run("view", profile, "--json", "--insights"))["insights"]}


# Vector and GpSimd work on SBUF at once; on trn1 they share one SBUF port.
PORTS = """kernel ports target=trn1
tensor a fp32[128, 4096] input
sbuf x  fp32[128, 4096]
sbuf y1 fp32[128, 4096]
sbuf y2 fp32[128, 4096]
sem loaded = 0
sem done = 0
queue loads first_engine=0 engines=16
sync:
    dma_copy x, a, queue=loads  signal loaded
    nop  wait done>=2
vector:
    tensor_tensor y1, x, x, op=add  wait loaded>=1  signal done
gpsimd:
    tensor_tensor y2, x, x, op=multiply  wait loaded>=1  signal done
"""

with tempfile.TemporaryDirectory() as work:
    neff = os.path.join(work, "mm.neff")
    run("asm", os.path.join(SOURCE_DIR, "examples", "asm", "matmul_bias_relu.nasm"), "-o", neff)
    p = os.path.join(work, "p_mm")
    run("run", neff, "--timing-only", "-q", "--profile-dir", p)
    plain = run("view", p)
    check("insights" not in plain, "view without --insights lists insights")
    text = run("view", p, "--insights")
    check(text.startswith(plain), "view --insights changes the view before its insights")
    check(text == run("view", p, "--insights"), "view --insights differs run to run")
    found = insights(p)
    q = found.get("dma_queue_one_engine")
    check(q is not None and q["speedup"] > 1.5 and q["where"] == "sync[1] dma_copy",
          "the one-engine queue in_q: %r" % q)
    check("small_dma" in found and found["small_dma"]["speedup"] > 1.1, "short rows: %r" % found)
    ranked = [i["speedup"] for i in json.loads(run("view", p, "--json", "--insights"))["insights"]]
    check(ranked == sorted(ranked, reverse=True), "insights not ranked by speedup: %r" % ranked)

    rms = os.path.join(work, "rms.neff")
    run("example", "rmsnorm", "-t", "trn2", "-o", rms)
    p_rms = os.path.join(work, "p_rms")
    run("run", rms, "--timing-only", "-q", "--profile-dir", p_rms)
    idle = insights(p_rms).get("semaphore_idle")
    check(idle is not None and idle["speedup"] > 1.05, "an engine idle on a semaphore: %r" % idle)

    # The trn1 GEMM example loads a stationary tile before each group of matmuls.
    gemm = os.path.join(work, "gemm.neff")
    run("example", "matmul", "-t", "trn1", "-o", gemm)
    p_gemm = os.path.join(work, "p_gemm")
    run("run", gemm, "--timing-only", "-q", "--profile-dir", p_gemm)
    loads = insights(p_gemm).get("stationary_load")
    check(loads is not None and "matmul" in loads["where"] and loads["speedup"] >= 1.0 and
          "load_stationary_speedup" in loads["measured_by"], "stationary loads: %r" % loads)

    ports_asm, ports_neff = os.path.join(work, "ports.nasm"), os.path.join(work, "ports.neff")
    with open(ports_asm, "w") as f:
        f.write(PORTS)
    run("asm", ports_asm, "-o", ports_neff)
    p_ports = os.path.join(work, "p_ports")
    run("run", ports_neff, "--timing-only", "-q", "--profile-dir", p_ports)
    conflict = insights(p_ports).get("port_conflicts")
    check(conflict is not None and conflict["speedup"] > 1.2 and "SBUF port shared by Vector and "
          "GpSimd" in conflict["measured_by"], "port conflicts: %r" % conflict)

    graph = os.path.join(SOURCE_DIR, "examples", "rmsnorm", "rmsnorm_small.json")
    out = os.path.join(work, "eager")
    run("compile", graph, "--mode", "eager", "-t", "trn2", "-o", out)
    p_seq = os.path.join(work, "p_seq")
    run("run", os.path.join(out, "launch.json"), "--timing-only", "-q", "--profile-dir", p_seq)
    gaps = insights(p_seq).get("host_gaps")
    check(gaps is not None and gaps["speedup"] > 1.0 and gaps["where"].startswith("before launch"),
          "host gaps: %r" % gaps)

    # The report: an Insights section per run with --insights, none without; byte-identical.
    r1, r2, r0 = (os.path.join(work, n) for n in ("r1.html", "r2.html", "r0.html"))
    run("report", p, p_seq, "--insights", "-o", r1)
    run("report", p, p_seq, "--insights", "-o", r2)
    run("report", p, p_seq, "-o", r0)
    html1, html2, html0 = (open(f).read() for f in (r1, r2, r0))
    check(html1 == html2, "report --insights differs run to run")
    check(html1.count("<h3>Insights</h3>") == 2 and "Insights" not in html0,
          "report insights sections")
print("ok")
