"""neuronsim.run against `neuronsim run`: the same kernel and inputs give identical outputs
(bit for bit), total_ns and statistics, on every target, in one interpreter session, and
with a Kernel from neuronsim.assemble as from a NEFF file. Also: the Kernel object, and a
timing-only run (same time, no outputs)."""
import os

import numpy as np

import neuronsim
from support import ASM, Checks, asm_neff, cli_run

c = Checks()
rng = np.random.default_rng(12)

# --- The Kernel object: load_neff and assemble agree on everything (the NEFF is
# deterministic, so equal kernels have equal hashes).
tiny_path = asm_neff("tiny_add")
tiny = neuronsim.load_neff(tiny_path)
with open(os.path.join(ASM, "tiny_add.nasm")) as f:
    tiny_text = f.read()
assembled = neuronsim.assemble(tiny_text, "tiny_add.nasm")
c.check(tiny.name == "tiny_add" and tiny.target == "trn2", "name and target")
c.check(assembled.hash == tiny.hash and len(tiny.hash) == 64, "assemble and CLI asm: same hash")
c.check(tiny.inputs == [{"name": "a", "dtype": "fp32", "shape": (128, 512), "role": "input"},
                        {"name": "b", "dtype": "fp32", "shape": (128, 512), "role": "input"}],
        "inputs: %r" % tiny.inputs)
c.check([t["name"] for t in tiny.outputs] == ["out"], "outputs")
c.check(tiny.instruction_count == 5, "instruction_count %d" % tiny.instruction_count)
c.check(neuronsim.assemble(tiny.asm(), "again").hash == tiny.hash, "asm() round trip")
saved = os.path.join(os.path.dirname(tiny_path), "saved.neff")
assembled.save(saved)
with open(saved, "rb") as f, open(tiny_path, "rb") as g:
    c.check(f.read() == g.read(), "save() writes the CLI's NEFF byte for byte")

# --- Runs against the CLI, alternating targets in one session (each target's core is
# built once and reused; a new one after the first run replaces the simulation context).
a = rng.standard_normal((128, 512)).astype(np.float32)
b = rng.standard_normal((128, 512)).astype(np.float32)
mm = neuronsim.load_neff(asm_neff("matmul_bias_relu"))
w = rng.standard_normal((128, 128)).astype(np.float32)
x = rng.standard_normal((128, 512)).astype(np.float32)
cases = [(tiny, {"a": a, "b": b}), (mm, {"w": w, "x": x})]
cli_results = {}
for target in ["trn2", "trn1", "trn3", "trn2", "trn1"]:
    for kernel, inputs in cases:
        key = (kernel.name, target)
        if key not in cli_results:
            cli_results[key] = cli_run(kernel.source, inputs, target)
        outputs, stats = cli_results[key]
        for source in (kernel, kernel.source):  # a Kernel, or the NEFF's path
            r = neuronsim.run(source, inputs, target=target)
            what = "%s on %s" % key
            c.check(r.total_ns == stats["total_time_ns"],
                    "%s: total_ns %r, CLI %r" % (what, r.total_ns, stats["total_time_ns"]))
            c.check(r.stats == stats, "%s: statistics differ from the CLI's" % what)
            c.check(sorted(r.outputs) == sorted(outputs), "%s: output names" % what)
            for name, o in outputs.items():
                got = r.outputs[name]
                c.check(got.dtype == np.float32 and got.shape == o.shape and
                        np.array_equal(got.view(np.uint32), o.view(np.uint32)),
                        "%s: output %s differs from the CLI's" % (what, name))
            c.check(r.target == target, "%s: target %s" % (what, r.target))
np.testing.assert_array_equal(neuronsim.run(tiny, {"a": a, "b": b}).outputs["out"], a + b)

# Engines: the same numbers as the statistics, busy + waits + idle = total.
r = neuronsim.run(tiny, {"a": a, "b": b}, target="trn2")
v = r.engines["vector"]
c.check(v["instructions"] == 1, "vector ran one instruction")
for name, e in r.engines.items():
    parts = e["busy_ns"] + e["semaphore_wait_ns"] + e["port_wait_ns"] + e["dma_queue_wait_ns"] \
        + e["idle_ns"]
    c.check(abs(parts - r.total_ns) < 1e-6 * r.total_ns, "%s: parts add up to total" % name)
    c.check(abs(e["utilisation"] - e["busy_ns"] / r.total_ns) < 1e-12, "%s: utilisation" % name)

# Timing only: the same time, no outputs, inputs not needed.
t = neuronsim.run(tiny, target="trn2", timing_only=True)
c.check(t.total_ns == r.total_ns and t.outputs == {}, "timing only: same time, no outputs")

# The kernel's own target with target=None; overrides as a dict change the config (a slower
# DMA: examples/configs/trn2_slow_dma.json's field) and the CLI agrees.
c.check(neuronsim.run(tiny, {"a": a, "b": b}, target=None).target == "trn2", "target=None")
slow = os.path.join(os.path.dirname(ASM), "configs", "trn2_slow_dma.json")
o_cli, s_cli = cli_run(tiny_path, {"a": a, "b": b}, "trn2", ["--override", slow])
import json
with open(slow) as f:
    slow_dict = json.load(f)
r_slow = neuronsim.run(tiny, {"a": a, "b": b}, target="trn2", overrides=slow_dict)
c.check(r_slow.total_ns == s_cli["total_time_ns"] and r_slow.total_ns > r.total_ns,
        "override dict: %r, CLI %r, plain %r" % (r_slow.total_ns, s_cli["total_time_ns"],
                                                 r.total_ns))
r_file = neuronsim.run(tiny, {"a": a, "b": b}, target="trn2", overrides=slow)
c.check(r_file.total_ns == r_slow.total_ns, "override file = override dict")
c.check(neuronsim.run(tiny, {"a": a, "b": b}, target="trn2").total_ns == r.total_ns,
        "back on plain trn2 after the overrides")
info = neuronsim.session_info()
c.check(info["launches"] >= 25 and 1 <= len(info["cores"]) <= 5, "session_info %r" % info)
print("session:", info)
c.finish()
