"""neuronsim.compile = `neuronsim compile`: the same program directory byte for byte (NEFFs
and launch.json), from a graph file or a dict, fused and eager; the kernels it returns run
in process and compute RMSNorm (checked against numpy within bf16 rounding)."""
import filecmp
import json
import os

import numpy as np

import neuronsim
from support import SCRATCH, SOURCE_DIR, Checks, cli

c = Checks()
# examples/rmsnorm/rmsnorm.json at a small shape, written out for the CLI.
with open(os.path.join(SOURCE_DIR, "examples", "rmsnorm", "rmsnorm.json")) as f:
    graph = json.load(f)
rows, cols = 256, 512
graph["name"] = "rmsnorm_small"
graph["inputs"][0]["shape"] = [rows, cols]
graph["inputs"][1]["shape"] = [cols]
graph_path = os.path.join(SCRATCH, "rmsnorm_small.json")
with open(graph_path, "w") as f:
    json.dump(graph, f)

rng = np.random.default_rng(11)
x = rng.standard_normal((rows, cols)).astype(np.float32)
w = rng.standard_normal(cols).astype(np.float32)
xb, wb = neuronsim.round_to(x, "bf16"), neuronsim.round_to(w, "bf16")
ms = np.mean(xb.astype(np.float64) ** 2, axis=-1, keepdims=True)
reference = xb / np.sqrt(ms + 1e-6) * wb
# bf16 output: one rounding (relative 2^-8) after a few fp32 operations and the bf16
# intermediates of eager mode (each a rounding of 2^-8): 2^-5 bounds four roundings.
BOUND = 2.0**-5

for mode in ("fused", "eager"):
    py_dir = os.path.join(SCRATCH, "py_" + mode)
    cli_dir = os.path.join(SCRATCH, "cli_" + mode)
    p = neuronsim.compile(graph_path, mode=mode, target="trn2", out_dir=py_dir)
    cli("compile", graph_path, "--mode", mode, "-t", "trn2", "-o", cli_dir)
    files = sorted(os.listdir(cli_dir))
    c.check(sorted(os.listdir(py_dir)) == files, "%s: the same files %r" % (mode, files))
    match, mismatch, errors = filecmp.cmpfiles(py_dir, cli_dir, files, shallow=False)
    c.check(not mismatch and not errors, "%s: files differ from the CLI's: %r" % (mode, mismatch))
    with open(os.path.join(cli_dir, "launch.json")) as f:
        c.check(p.launch_json == f.read(), "%s: launch_json" % mode)
    c.check(p.program == "rmsnorm_small" and p.mode == mode and p.target == "trn2",
            "%s: program, mode, target" % mode)
    c.check((len(p.launches) == 1) == (mode == "fused"), "%s: %d launches" % (mode, len(p.launches)))
    for l, k in zip(p.launches, p.kernels):
        saved = neuronsim.load_neff(os.path.join(cli_dir, l["neff"]))
        c.check(k.hash == saved.hash, "%s: kernel %s = the CLI's NEFF" % (mode, l["name"]))
    # From a dict, without out_dir: the same kernels.
    d = neuronsim.compile(graph, mode=mode, target="trn2")
    c.check([k.hash for k in d.kernels] == [k.hash for k in p.kernels] and d.out_dir is None,
            "%s: a dict compiles to the same kernels" % mode)
    # Run the program launch by launch in process, passing program tensors by name.
    tensors = {"x": x, "w": w}
    for k in p.kernels:
        r = neuronsim.run(k, {t["name"]: tensors[t["name"]] for t in k.inputs}, target="trn2")
        tensors.update(r.outputs)
    y = tensors["y"]
    err = np.max(np.abs(y - reference) / np.maximum(np.abs(reference), 1e-3))
    c.check(err <= BOUND, "%s: RMSNorm relative error %.3g > %.3g" % (mode, err, BOUND))

c.raises(lambda: neuronsim.compile(graph, mode="lazy"), ["eager or fused", "lazy"], "bad mode")
bad = dict(graph, nodes=[dict(graph["nodes"][0], op="no_such_op")])
c.raises(lambda: neuronsim.compile(bad), ["no_such_op"], "bad graph")
c.raises(lambda: neuronsim.compile(os.path.join(SCRATCH, "none.json")), ["none.json"],
         "missing graph file")
c.finish()
