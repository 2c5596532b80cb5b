"""The eager timeline is the host model's (docs/host-model.md), the one `neuronsim run
launch.json` uses: naive RMSNorm written in PyTorch under neuronsim.torch.device gives the
same six kernels, device times and host timeline, launch by launch, as
scripts/rmsnorm_study.sh's eager program (examples/rmsnorm/*.json compiled --mode eager
and run as a sequence); the compiled naive function gives the fused program's launch;
neuronsim.torch.rms_norm gives the hand-fused kernel (`example rmsnorm --double-buffer`)
in a one-launch sequence. At [128, 2048] with numerics and [4096, 4096] timing only, on
trn1 and trn2. Also: host ops (views) take framework dispatch time, synchronize() waits
for the device, queue depth blocks the runtime call, listeners see records in order."""
import json
import os
import re
import subprocess
import tempfile

import torch

import neuronsim
import neuronsim.torch as nt
from support import SOURCE_DIR, check, expect, finish

NEURONSIM = os.environ["NEURONSIM"]
SCRATCH = tempfile.mkdtemp(prefix="neuronsim-torch-host-")
ROW = re.compile(r"^\s+(\d+)\s+(\S+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$")


def cli_sequence(launch_dir, target):
    """(per launch (device start, device ns, device end), end to end) of `neuronsim run`."""
    out = subprocess.run([NEURONSIM, "run", os.path.join(launch_dir, "launch.json"), "--target",
                          target, "--timing-only"], check=True, capture_output=True, text=True).stdout
    rows = [tuple(float(m.group(i)) for i in (6, 7, 8)) for m in map(ROW.match, out.splitlines()) if m]
    total = float(re.search(r"^end to end: ([\d.]+) ns", out, re.M).group(1))
    return rows, total


def hand_sequence(d, n, cols, target):
    os.makedirs(d, exist_ok=True)
    subprocess.run([NEURONSIM, "example", "rmsnorm", "--double-buffer", "--rows", str(n), "--cols",
                    str(cols), "-t", target, "-o", os.path.join(d, "rmsnorm.neff")], check=True,
                   capture_output=True)
    with open(os.path.join(d, "launch.json"), "w") as f:  # as rmsnorm_study.sh writes it
        json.dump({"format": "neuronsim-launch-sequence", "version": 1, "program": "rmsnorm_hand",
                   "mode": "manual", "tensors": [
                       {"name": "x", "dtype": "bf16", "shape": [n, cols], "role": "input"},
                       {"name": "w", "dtype": "bf16", "shape": [cols], "role": "input"},
                       {"name": "y", "dtype": "bf16", "shape": [n, cols], "role": "output"}],
                   "launches": [{"name": "rms_norm", "neff": "rmsnorm.neff", "op": "rms_norm",
                                 "nodes": []}]}, f)


def naive(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-06) * w


def timeline(rt):
    launches = [r for r in rt.records if isinstance(r, nt.LaunchRecord)]
    return [(r.device_start_ns, r.device_end_ns - r.device_start_ns, r.device_end_ns)
            for r in launches], rt.end_to_end_ns()


def same(what, g, w):
    expect(len(g[0]) == len(w[0]), "%s: %d launches, neuronsim run has %d" % (what, len(g[0]), len(w[0])))
    for i, (a, b) in enumerate(zip(g[0], w[0])):
        # neuronsim run prints 3 decimals
        expect(all(abs(p - q) < 1e-3 for p, q in zip(a, b)), "%s launch %d: %s vs %s" % (what, i, a, b))
    expect(abs(g[1] - w[1]) < 1e-3, "%s: end to end %.3f vs %.3f ns" % (what, g[1], w[1]))


def main():
    for target in ("trn1", "trn2"):
        for n, cols, graph, timing_only in ((128, 2048, "rmsnorm_small", False),
                                            (4096, 4096, "rmsnorm", True)):
            d = os.path.join(SCRATCH, "%s-%d" % (target, n))
            src = os.path.join(SOURCE_DIR, "examples", "rmsnorm", graph + ".json")
            for mode in ("eager", "fused"):
                subprocess.run([NEURONSIM, "compile", src, "--mode", mode, "-t", target, "-o",
                                os.path.join(d, mode)], check=True, capture_output=True)
            hand_sequence(os.path.join(d, "hand"), n, cols, target)
            g = torch.Generator().manual_seed(1)
            x = torch.randn(n, cols, generator=g).to(torch.bfloat16)
            w = (1 + 0.1 * torch.randn(cols, generator=g)).to(torch.bfloat16)
            with nt.device(target, timing_only=timing_only) as rt:
                y_eager = naive(x, w)
            same("%s %d eager" % (target, n), timeline(rt), cli_sequence(os.path.join(d, "eager"), target))
            expect([r.op for r in rt.records] == ["aten::pow", "aten::mean",
                                                  "aten::add", "aten::rsqrt",
                                                  "aten::mul", "aten::mul"],
                   "eager ops: %s" % [r.op for r in rt.records])
            c = nt.compile(naive, target=target, timing_only=timing_only)
            y_comp = c(x, w)
            same("%s %d compiled" % (target, n), timeline(c.runtime),
                 cli_sequence(os.path.join(d, "fused"), target))
            with nt.device(target, timing_only=timing_only) as rt:
                y_hand = nt.rms_norm(x, w, 1e-6)
            same("%s %d rms_norm" % (target, n), timeline(rt), cli_sequence(os.path.join(d, "hand"), target))
            expect(rt.records[0].kernel == "rmsnorm_db", "rms_norm ran %s" % rt.records[0].kernel)
            if not timing_only:
                # the study's own check (rmsnorm_study.sh): compiled == hand-fused bit for bit
                expect(torch.equal(y_comp, y_hand), "%s compiled and hand-fused differ" % target)
                check("%s eager" % target, y_eager, naive(x.double(), w.double()), torch.bfloat16,
                      rtol=7 * 2.0**-8)  # six roundings on the path (the pow's, rsqrt's half)
            else:
                expect(float(y_hand.abs().max()) == 0.0, "timing only gives zeros")
                expect(y_hand.shape == x.shape and y_hand.dtype == x.dtype, "timing-only shape")

    # Host ops, synchronize, queue depth, listeners (trn2: dispatch 10 us, runtime 20 us,
    # sync 5 us, async, queue depth 4; docs/host-model.md).
    x = torch.randn(256, 128)
    seen = []
    with nt.device("trn2") as rt:
        rt.add_listener(seen.append)
        v = x.view(2, 128, 128)  # a view: framework dispatch only, 0 .. 10 us
        y = v * 2  # dispatch 10 .. 20 us, runtime call 20 .. 40 us
        host = nt.synchronize()
        for _ in range(5):
            y = y + 1
    ref = x.view(2, 128, 128) * 2
    for _ in range(5):
        ref = ref + 1  # fp32 adds on the CPU round as the device's do
    expect(torch.equal(y, ref), "values through views")
    expect(seen == rt.records, "listeners see every record in order")
    op, mul = rt.records[0], rt.records[1]
    expect(isinstance(op, nt.HostOpRecord) and op.op == "aten::view" and (op.start_ns, op.end_ns) == (0, 10000),
           "host op %s" % op)
    expect((mul.dispatch_start_ns, mul.runtime_start_ns, mul.device_start_ns) == (10000, 20000, 40000),
           "launch after a host op: %s" % mul)
    expect(host == mul.device_end_ns + 5000, "synchronize: device end + sync (%s)" % host)
    adds = rt.records[2:]
    # Queue depth 4: the 5th add's runtime call waits for the 1st add's device end + sync.
    expect(adds[4].runtime_start_ns == max(adds[4].dispatch_end_ns, adds[0].device_end_ns + 5000),
           "queue depth: %s vs %s" % (adds[4].runtime_start_ns, adds[0].device_end_ns))
    expect(all(r.python_line.startswith("test_host_model.py:") for r in rt.records), "lines")

    # A compiled call inside a device context runs on that context's runtime, after its
    # eager launches; profile recording writes each launch's profile directory.
    f = nt.compile(naive, target="trn2")
    w = torch.ones(128)
    prof = os.path.join(SCRATCH, "profiles")
    with nt.device("trn2") as rt:
        rt.set_profile_recording(prof)
        a = x * 2
        b = f(a, w)
        rt.set_profile_recording(None)
        c = a + 1
    ops = [r.op for r in rt.records]
    expect(ops == ["aten::mul", "neuronsim::compiled:naive", "aten::add"],
           "mixed records %s" % ops)
    expect(len(f.runtime.records) == 0, "the compiled callable's own runtime stays unused")
    expect(rt.records[1].device_start_ns >= rt.records[0].device_end_ns, "in order on one core")
    for r in rt.records[:2]:
        expect(r.profile_dir == os.path.join(prof, "%d_%s" % (r.index, r.kernel)), r.profile_dir)
        p = neuronsim.Profile(r.profile_dir)
        expect(abs(p.total_ns - (r.device_end_ns - r.device_start_ns)) < 1e-3, "profile time")
    expect(rt.records[2].profile_dir is None, "recording off")
    check("compiled in eager", b, naive(a.double(), w.double()), torch.float32)

    # rms_norm of rows too long for the hand-fused kernel's double buffers (64 Ki bf16
    # columns: 128 KiB a row, four such buffers exceed SBUF): the compiler's fused kernel
    wide, ones = torch.zeros(128, 65536, dtype=torch.bfloat16), torch.ones(65536, dtype=torch.bfloat16)
    with nt.device("trn2", timing_only=True) as rt:
        nt.rms_norm(wide, ones)
    expect([r.kernel for r in rt.records] == ["neuronsim_rms_norm_fused"],
           "wide rms_norm: %s" % [r.kernel for r in rt.records])
    finish()


if __name__ == "__main__":
    main()
