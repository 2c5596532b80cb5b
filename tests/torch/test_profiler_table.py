"""neuronsim.torch.profile over synthetic runtime records (no simulation): the key_averages
table against torch 1.13's own table code, the device columns, every sort key, the
schedule and step(), and the in-flight rule (docs/torch.md, "The profiler")."""

from torch.autograd.profiler_util import FunctionEventAvg, _build_table

import neuronsim
from neuronsim.torch import _runtime
from neuronsim.torch._runtime import HostOpRecord, LaunchRecord
from neuronsim.torch.profiler import profile, schedule
from support import expect, finish


class FakeRuntime:
    """The Runtime interface the profiler uses, fed by hand: each launch is placed like
    the host model with async run-ahead (dispatch 10 us, runtime call 20 us)."""

    def __init__(self):
        self.target, self.overrides = "trn2", None
        self.now, self.device_free, self.index = 0.0, 0.0, 0
        self.listeners, self.recording = [], []

    def add_listener(self, fn):
        self.listeners.append(fn)

    def remove_listener(self, fn):
        self.listeners.remove(fn)

    def host_now_ns(self):
        return self.now

    def set_profile_recording(self, d):
        self.recording.append(d)

    def synchronize(self):
        self.now = max(self.now, self.device_free) + 5000.0
        return self.now

    def emit(self, r):
        for fn in list(self.listeners):
            fn(r)

    def launch(self, op, kernel, device_ns, shapes=((128, 2048),)):
        d0 = self.now
        rt0, rt1 = d0 + 10000.0, d0 + 30000.0
        dev0 = max(rt1, self.device_free)
        self.device_free = dev0 + device_ns
        self.now = rt1
        self.emit(LaunchRecord(
            index=self.index, op=op, kernel=kernel, python_line="study.py:7",
            input_shapes=[list(s) for s in shapes], dtypes=["bf16"], dispatch_start_ns=d0,
            dispatch_end_ns=rt0, runtime_start_ns=rt0, runtime_end_ns=rt1,
            device_start_ns=dev0, device_end_ns=dev0 + device_ns, hbm_bytes=1000,
            instructions=10, engines={}, profile_dir=None, fallback=False, target="trn2"))
        self.index += 1

    def host_op(self, op, ns=2000.0):
        self.emit(HostOpRecord(op, "study.py:9", self.now, self.now + ns))
        self.now += ns


rt = FakeRuntime()
_runtime.push_runtime(rt)

# 1. CPU columns only (correlate_device_time=False): byte for byte torch 1.13's table of the
# same numbers (host times are whole microseconds here, as torch keeps them).
with profile(record_device=False, correlate_device_time=False) as prof:
    rt.launch("aten::pow", "pow_k", 4000.0)
    rt.launch("aten::mul", "mul_k", 3000.0)
    rt.host_op("aten::view")
    rt.launch("aten::mul", "mul_k", 3000.0)
    rt.synchronize()
ours = prof.key_averages()
theirs = []
for row in ours:
    e = FunctionEventAvg()
    e.key, e.count = row.key, row.count
    e.self_cpu_time_total, e.cpu_time_total = int(row.self_cpu_time_total), int(row.cpu_time_total)
    e.input_shapes, e.node_id = [], -1
    theirs.append(e)
for key in ("self_cpu_time_total", "cpu_time_total", "count"):
    a = ours.table(sort_by=key, row_limit=10)
    b = _build_table(theirs, sort_by=key, row_limit=10)
    expect(a == b, "CPU-only table differs from torch's for sort_by=%s:\n%s\n%s" % (key, a, b))
print(ours.table(sort_by="self_cpu_time_total"))

# 2. Device columns: aten ops with their launches' device time, kernels as device events.
with profile(record_device=False) as prof:
    rt.launch("aten::pow", "pow_k", 4000.0)
    rt.launch("aten::mul", "mul_k", 3000.0)
    rt.launch("aten::mul", "mul_k", 3000.0)
    rt.synchronize()
t = prof.key_averages().table(sort_by="self_privateuse1_time_total", row_limit=10)
print(t)
for h in ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
          "Self NeuronCore", "Self NeuronCore %", "NeuronCore total", "NeuronCore time avg",
          "# of Launches", "# of Calls"):
    expect(h in t.splitlines()[1], "header %r missing" % h)
expect(t.strip().endswith("Self NeuronCore time total: 10.000us"), "device total counts kernels once")
rows = {r.key: r for r in prof.key_averages()}
expect(rows["aten::mul"].count == 2 and rows["aten::mul"].launches == 2, "mul calls and launches")
expect(rows["aten::mul"].self_cpu_time_total == 60.0, "host time = dispatch + runtime call")
expect(rows["aten::mul"].self_device_time_total == 6.0, "mul device time")
expect(rows["mul_k"].kind == "kernel" and rows["mul_k"].self_cpu_time_total == 0, "kernel row")
first = lambda key: prof.key_averages().table(sort_by=key).splitlines()[3].split()[0]
expect(first("self_privateuse1_time_total") == first("self_device_time_total"), "the two device keys")
expect(first("self_device_time_total") in ("aten::mul", "mul_k"), "device sort")
expect(first("self_cpu_time_total") == "aten::mul", "cpu sort")
for key in ("cpu_time", "device_time_total", "device_time", "privateuse1_time_total",
            "privateuse1_time", "count", "launches", "hbm_bytes"):
    prof.key_averages().table(sort_by=key)
try:
    prof.key_averages().table(sort_by="self_cuda_time_total")
    expect(False, "an unknown sort key is refused")
except neuronsim.Error as e:
    expect("unknown sort_by 'self_cuda_time_total'" in str(e), str(e))

# record_shapes: grouped by input shape, one row per (name, shapes), with PyTorch's column.
with profile(record_device=False, record_shapes=True) as prof:
    rt.launch("aten::mul", "mul_k", 3000.0, shapes=((128, 2048), (2048,)))
    rt.launch("aten::mul", "mul_k", 1000.0, shapes=((128, 1), (128, 2048)))
    rt.synchronize()
grouped = prof.key_averages(group_by_input_shape=True)
muls = [r for r in grouped if r.key == "aten::mul"]
expect(len(muls) == 2 and sorted(r.self_device_time_total for r in muls) == [1.0, 3.0],
       "one mul row per shape list: %s" % muls)
table = grouped.table(sort_by="self_device_time_total")
expect("Input Shapes" in table.splitlines()[1] and "[[128, 2048], [2048]]" in table,
       "Input Shapes column:\n" + table)
expect(len([r for r in prof.key_averages() if r.key == "aten::mul"]) == 1, "ungrouped: one row")

# 3. The in-flight rule: without synchronize, device work after the window's end is missing.
with profile(record_device=False) as prof:
    rt.launch("aten::exp", "exp_k", 500000.0)  # 0.5 ms on the device, the host goes on
tot = prof.totals()
expect(tot["launches"] == 0 and tot["in_flight"] == 1 and tot["device_ns"] == 0,
      "in-flight launch missing: %s" % tot)
rows = {r.key: r for r in prof.key_averages()}
expect(rows["aten::exp"].self_device_time_total == 0 and "exp_k" not in rows,
      "no device time for an in-flight launch")
rt.synchronize()
with profile(record_device=False) as prof:
    rt.launch("aten::exp", "exp_k", 500000.0)
    rt.synchronize()
tot = prof.totals()
expect(tot["launches"] == 1 and tot["device_ns"] == 500000.0 and tot["in_flight"] == 0,
      "synchronize keeps it: %s" % tot)

# 4. schedule(wait=1, warmup=1, active=2): only steps 2 and 3 are kept, as ProfilerStep*.
with profile(record_device=False, schedule=schedule(wait=1, warmup=1, active=2)) as prof:
    for step in range(5):
        rt.launch("aten::add", "add_k", 1000.0 * (step + 1))
        rt.synchronize()
        prof.step()
rows = {r.key: r for r in prof.key_averages()}
expect(rows["aten::add"].count == 2, "two active steps: %d" % rows["aten::add"].count)
expect(rows["add_k"].self_device_time_total == 3.0 + 4.0, "steps 2 and 3's launches")
expect(rows["ProfilerStep*"].count == 2, "two ProfilerStep rows")
step = rows["ProfilerStep*"]
# Step k (2, 3): dispatch + runtime call 30 us, the device (k + 1) us, the sync 5 us; the
# step's self CPU is its span less its op's host time: (k + 1) + 5 us.
expect(step.cpu_time_total == (30 + 3 + 5) + (30 + 4 + 5), "step spans: %s" % step.cpu_time_total)
expect(step.self_cpu_time_total == (3 + 5) + (4 + 5), "step self: %s" % step.self_cpu_time_total)

# on_trace_ready once per saved cycle; key_averages before any window finished is refused.
ready = []
p = profile(record_device=False, schedule=schedule(wait=0, warmup=0, active=1, repeat=2),
            on_trace_ready=lambda pr: ready.append(len(pr.key_averages())))
try:
    p.key_averages()
    expect(False, "key_averages before a window is refused")
except neuronsim.Error as e:
    expect("no window has finished" in str(e), str(e))
with p:
    for step in range(3):
        rt.launch("aten::add", "add_k", 1000.0)
        rt.synchronize()
        p.step()
expect(len(ready) == 2, "on_trace_ready per cycle: %s" % ready)
finish()
