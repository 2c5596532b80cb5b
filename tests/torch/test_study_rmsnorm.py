"""examples/torch/rmsnorm_study.py at the small shape ([128, 2048] bf16) on trn1 and trn2
agrees with scripts/rmsnorm_study.sh: the same three programs run as `neuronsim run
launch.json --profile-dir` (eager and fused from `neuronsim compile` of
examples/rmsnorm/rmsnorm_small.json, hand-fused from `neuronsim example rmsnorm
--double-buffer` in a one-launch sequence) give the same end-to-end and device time,
launches, engine times, instruction counts and HBM bytes as the PyTorch script's
profiles, and the script's outputs are within its bf16 bounds of PyTorch's CPU result
(it exits non-zero otherwise)."""
import json
import os
import subprocess
import sys
from support import expect, finish, scratch_dir

NS = os.environ["NEURONSIM"]
SOURCE = os.environ["SOURCE_DIR"]
work = scratch_dir("torch-study-")
N, D = 128, 2048


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    expect(r.returncode == 0, "%s: %s%s" % (" ".join(cmd), r.stdout[-3000:], r.stderr[-3000:]))
    return r.stdout


out = run([sys.executable, os.path.join(SOURCE, "examples/torch/rmsnorm_study.py"),
           "--shape", "%d,%d" % (N, D), "--target", "trn1", "trn2", "--out", work,
           "--json", os.path.join(work, "study.json")])
print(out[-2500:])
study = json.load(open(os.path.join(work, "study.json")))
for header in ("Self CPU %", "Self NeuronCore", "# of Calls", "ProfilerStep*", "aten::rsqrt",
               "neuronsim::rms_norm", "neuronsim::compiled:rmsnorm"):
    expect(header in out, "the tables show %r" % header)

hand_launch = {
    "format": "neuronsim-launch-sequence", "version": 1, "program": "rmsnorm_hand",
    "mode": "manual",
    "tensors": [{"name": "x", "dtype": "bf16", "shape": [N, D], "role": "input"},
                {"name": "w", "dtype": "bf16", "shape": [D], "role": "input"},
                {"name": "y", "dtype": "bf16", "shape": [N, D], "role": "output"}],
    "launches": [{"name": "rms_norm", "neff": "rmsnorm.neff", "op": "rms_norm", "nodes": []}]}
graph = os.path.join(SOURCE, "examples/rmsnorm/rmsnorm_small.json")
same = ("total_time_ps", "neuroncore_cycle_count", "dma_active_time_ps", "dma_transfer_count",
        "dma_transfer_total_bytes", "hbm_read_bytes", "hbm_write_bytes")
for target in ("trn1", "trn2"):
    d = os.path.join(work, "cli-" + target)
    run([NS, "compile", graph, "--mode", "eager", "-t", target, "-o", d + "/eager"])
    run([NS, "compile", graph, "--mode", "fused", "-t", target, "-o", d + "/compiled"])
    os.makedirs(d + "/fused")
    run([NS, "example", "rmsnorm", "--double-buffer", "--rows", str(N), "--cols", str(D),
         "-t", target, "-o", d + "/fused/rmsnorm.neff"])
    json.dump(hand_launch, open(d + "/fused/launch.json", "w"))
    case = study["%s %dx%d" % (target, N, D)]
    for variant in ("eager", "compiled", "fused"):
        run([NS, "run", "%s/%s/launch.json" % (d, variant), "--target", target, "--timing-only",
             "--profile-dir", "%s/p-%s" % (d, variant)])
        host = json.load(open("%s/p-%s/host.json" % (d, variant)))
        ours = case[variant]
        expect(abs(ours["end_to_end_ns"] - host["total_ns"]) < 1e-6,
              "%s %s end to end: script %.3f ns, neuronsim run %.3f ns"
              % (target, variant, ours["end_to_end_ns"], host["total_ns"]))
        expect(abs(ours["device_ns"] - host["device_ns"]) < 1e-6, "%s %s device" % (target, variant))
        expect(ours["launches"] == len(host["launches"]), "%s %s launches" % (target, variant))
        cmp = json.loads(run([NS, "compare", "--json", "%s/p-%s" % (d, variant),
                              ours["profile_dir"]]))["runs"]
        for k in list(same) + [k for k in cmp[0] if k.endswith(("_active_time_ps", "_count"))]:
            expect(cmp[0][k] == cmp[1][k], "%s %s %s: neuronsim run %s, script %s"
                  % (target, variant, k, cmp[0][k], cmp[1][k]))
        expect(ours["hbm_bytes"] == cmp[0]["hbm_read_bytes"] + cmp[0]["hbm_write_bytes"],
              "%s %s HBM bytes" % (target, variant))
        expect(ours["relative_error"] <= {"eager": 5, "fused": 2, "compiled": 2}[variant] * 2**-8,
              "%s %s numerics" % (target, variant))
    print("%s: eager %.3f us, compiled %.3f us, fused %.3f us end to end: as neuronsim run"
          % (target, case["eager"]["end_to_end_ns"] / 1e3, case["compiled"]["end_to_end_ns"] / 1e3,
             case["fused"]["end_to_end_ns"] / 1e3))
finish()
