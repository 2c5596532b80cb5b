"""neuronsim.torch.profile over real launches on trn2: the profile directory opened by
`neuronsim view`, `report` and `compare`, the Chrome trace's lanes (strictly checked), the
record_engines filter, and synchronize(): device work in flight when the profiler stops
is missing unless the host waited for it (docs/torch.md, "The profiler")."""
import json
import os
import subprocess
import sys

import torch

import neuronsim
import neuronsim.torch as nt
from support import expect, expect_error, finish, scratch_dir

NS = os.environ["NEURONSIM"]
SOURCE = os.environ["SOURCE_DIR"]
work = scratch_dir("torch-profiler-")


def cli(*args):
    r = subprocess.run([NS] + list(args), capture_output=True, text=True)
    expect(r.returncode == 0, "neuronsim %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
    return r.stdout


def perfetto_check(path):
    r = subprocess.run([sys.executable, os.path.join(SOURCE, "tests/tools/perfetto_check.py"),
                        path], capture_output=True, text=True)
    expect(r.returncode == 0, "perfetto_check %s: %s%s" % (path, r.stdout, r.stderr))


def f(x, w):
    return torch.exp(x) * w


g = torch.Generator().manual_seed(3)
x = torch.randn(128, 512, generator=g)
w = torch.randn(512, generator=g)
p_sync = os.path.join(work, "p_sync")
with nt.device("trn2") as rt:
    # 1. With synchronize(): every launch is in the results and the directory.
    with nt.profile(output_dir=p_sync) as prof:
        y = f(x, w)
        y2 = y.t()              # a view: host work, no launch
        nt.synchronize()
    tot = prof.totals()
    expect(tot["launches"] == 2 and tot["in_flight"] == 0, "two launches: %s" % tot)
    table = prof.key_averages().table(sort_by="self_device_time_total")
    print(table)
    host = json.load(open(os.path.join(p_sync, "host.json")))
    ops = [l["op"] for l in host["launches"]]
    expect(len(ops) == 2 and ops[0].startswith("aten::exp") and ops[1].startswith("aten::mul"),
          "host.json ops: %s" % ops)
    exp, mul = ops
    expect(all(os.path.isdir(os.path.join(p_sync, l["profile"])) for l in host["launches"]),
          "launch folders")
    expect(abs(host["device_ns"] - tot["device_ns"]) < 1e-6, "device time agrees")
    expect(host["total_ns"] == tot["end_to_end_ns"], "end to end agrees")
    rows = {r.key: r for r in prof.key_averages()}
    launch_ns = {l["op"]: l["device_ns"] for l in host["launches"]}
    expect(abs(rows[exp].self_device_time_total * 1000 - launch_ns[exp]) < 1e-6,
          "the table's device time is the launch's")

    # view, report and compare open the directory.
    view = cli("view", p_sync)
    expect(exp in view and mul in view, "view lists the ops:\n" + view)
    cli("report", p_sync, "-o", os.path.join(work, "report.html"))

    # 2. Chrome trace: host lanes, the view's host op, and the engines' lanes.
    trace = prof.export_chrome_trace(os.path.join(work, "trace.json"))
    perfetto_check(trace)
    doc = json.load(open(trace))
    lanes = {(e["pid"], e["args"]["name"]) for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    for lane in ("framework dispatch", "runtime calls", "device execution", "sync",
                 "aten ops without a device record"):
        expect((1000, lane) in lanes, "host lane %r: %s" % (lane, sorted(lanes)))
    device_lanes = {name for pid, name in lanes if pid != 1000}
    expect({"scalar", "vector"} & device_lanes and any(n.startswith("DMA") for n in device_lanes),
          "engine and DMA lanes: %s" % sorted(device_lanes))
    names = {e.get("name") for e in doc["traceEvents"] if e["ph"] == "X"}
    expect(any(n.startswith("aten::t") for n in names), "the view aten::t on the host lane")

    # record_engines keeps only the named lanes (and the arrows between kept slices).
    with nt.profile(record_engines=["vector"]) as prof2:
        f(x, w)
        nt.synchronize()
    trace2 = prof2.export_chrome_trace(os.path.join(work, "trace_vector.json"))
    perfetto_check(trace2)
    lanes2 = {e["args"]["name"] for e in json.load(open(trace2))["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] != 1000}
    expect(lanes2 <= {"vector"}, "record_engines=['vector']: %s" % sorted(lanes2))

    # 3. Without synchronize(): the last launch is still on the device when the profiler
    # stops (the host ran ahead), so its device work is missing, as on the hardware.
    p_async = os.path.join(work, "p_async")
    with nt.profile(output_dir=p_async) as prof3:
        f(x, w)
    tot3 = prof3.totals()
    print("without synchronize:", tot3)
    expect(tot3["in_flight"] >= 1 and tot3["launches"] == 2 - tot3["in_flight"],
          "in-flight work missing: %s" % tot3)
    rows3 = {r.key: r for r in prof3.key_averages()}
    expect(rows3[mul].self_device_time_total == 0,
          "no device time for the launch in flight")
    nt.synchronize()

    # Two saved windows (repeat=2): output_dir holds the last, replacing the first.
    p_steps = os.path.join(work, "p_steps")
    saved = []
    with nt.profile(output_dir=p_steps, on_trace_ready=lambda p: saved.append(p.totals()),
                    schedule=nt.schedule(wait=0, warmup=1, active=1, repeat=2)) as prof5:
        for n in (64, 128, 64, 128):
            torch.exp(x[:n])
            nt.synchronize()
            prof5.step()
    host5 = json.load(open(os.path.join(p_steps, "host.json")))
    expect(len(saved) == 2 and [t["launches"] for t in saved] == [1, 1], "two windows: %s" % saved)
    expect(len(host5["launches"]) == 1 and abs(host5["device_ns"] - saved[1]["device_ns"]) < 1e-6,
           "output_dir holds the last window")
    expect(sorted(os.listdir(work)) == sorted(set(os.listdir(work))) and
           not [d for d in os.listdir(work) if d.startswith(".p_steps")], "no staging left behind")
    cli("view", p_steps)

# A compiled function called outside any device context runs on its own runtime, which it
# enters for the call: the profiler started before attaches to it.
compiled = nt.compile(f, target="trn2")
with nt.profile() as prof4:
    compiled(x, w)
    compiled.runtime.synchronize()
tot4 = prof4.totals()
ops4 = [r.key for r in prof4.key_averages() if r.kind == "op"]
expect(tot4["launches"] >= 1 and tot4["in_flight"] == 0, "compiled call profiled: %s" % tot4)
expect(ops4 == ["neuronsim::compiled:f"], "compiled op row: %s" % ops4)
prof4.export_chrome_trace(os.path.join(work, "trace_compiled.json"))
perfetto_check(os.path.join(work, "trace_compiled.json"))

# A second runtime inside one profile is refused when it is entered, and leaves no
# runtime active behind it.
def two_runtimes():
    with nt.device("trn2"):
        with nt.profile():
            with nt.device("trn1"):
                pass
expect_error(two_runtimes, "second runtime", "trn1", "trn2")
expect(nt.current_runtime() is None, "no runtime left active")

# A window whose every launch is still in flight makes no profile directory: one error.
def in_flight_only():
    with nt.device("trn2"):
        with nt.profile(output_dir=os.path.join(work, "p_empty")):
            torch.exp(x)  # one launch, on the device until after the host's runtime call
expect_error(in_flight_only, "no launch finished on the device", "synchronize()")
expect(not os.path.exists(os.path.join(work, "p_empty")), "nothing written")

# One call of a compiled function (or of an eager op that runs several kernels, a bmm) is one
# call in key_averages, however many launches it makes (torch.profiler counts one call of
# the op); each launch is a kernel row. (x @ a) @ b compiles to two matmul launches, and
# an eager bmm over 3 batch entries is a launch per entry.
def two_matmuls(x, a, b):
    return (x @ a) @ b


ma, mb = torch.randn(512, 256, generator=g), torch.randn(256, 128, generator=g)
xb, yb = torch.randn(3, 128, 64, generator=g), torch.randn(3, 64, 128, generator=g)
compiled = nt.compile(two_matmuls, target="trn2")
with nt.device("trn2"):
    compiled(x, ma, mb)  # compiles before the window
    with nt.profile(record_device=False) as prof_calls:
        for _ in range(2):
            compiled(x, ma, mb)
        torch.bmm(xb, yb)
        nt.synchronize()
rows = {r.key: r for r in prof_calls.key_averages()}
cr = rows["neuronsim::compiled:two_matmuls"]
expect(cr.count == 2 and cr.launches == 4, "compiled: 2 calls, 4 launches: %r" % cr)
br = rows["aten::bmm"]
expect(br.count == 1 and br.launches == 3, "eager bmm: 1 call, 3 launches: %r" % br)
expect(all("." not in k for k in rows if k.startswith("aten::")),
       "op names as torch.profiler shows them, without the overload: %s" % sorted(rows))

# compare takes the torch profile beside a `neuronsim run` sequence profile.
cli("compile", os.path.join(SOURCE, "examples/rmsnorm/rmsnorm_small.json"), "--mode", "fused",
    "-t", "trn2", "-o", os.path.join(work, "fused"))
cli("run", os.path.join(work, "fused/launch.json"), "--timing-only", "--profile-dir",
    os.path.join(work, "p_fused"))
out = cli("compare", p_sync, os.path.join(work, "p_fused"))
expect("speedup" in out, "compare:\n" + out)

# Bad input: one clear error each.
for kwargs, want in (({"record_engines": ["tensr"]}, "unknown lane 'tensr'"),
                     ({"output_dir": p_sync, "record_device": False}, "needs record_device=True")):
    try:
        nt.profile(**kwargs)
        expect(False, "refused: %s" % kwargs)
    except neuronsim.Error as e:
        expect(want in str(e), str(e))
not_a_profile = os.path.join(work, "notes")
os.makedirs(not_a_profile)
open(os.path.join(not_a_profile, "keep.txt"), "w").close()
with nt.device("trn2"):
    try:
        with nt.profile(output_dir=not_a_profile):
            f(x, w)
            nt.synchronize()
        expect(False, "a directory of other files is not replaced")
    except neuronsim.Error as e:
        expect("holds something other than a profile" in str(e), str(e))
expect(os.listdir(not_a_profile) == ["keep.txt"], "left as it was")
try:
    prof.export_chrome_trace(os.path.join(work, "no/such/dir/t.json"))
    expect(False, "an unwritable trace path is refused")
except neuronsim.Error as e:
    expect("cannot write" in str(e) and "no/such/dir/t.json" in str(e), str(e))
finish()
