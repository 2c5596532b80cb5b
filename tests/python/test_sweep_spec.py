"""neuronsim.sweep.expand: a spec's lists are grid axes (docs/sweeps.md). The issue's
example gives 16 points in a fixed order; kernels in a list expand one after another;
override axes become nested overrides; every bad spec is one Error naming the spec and
the reason. Nothing runs here (no Dask)."""
import json
import os

import neuronsim
from support import SCRATCH, SOURCE_DIR, Checks

c = Checks()

ISSUE = {"kernel": {"example": "rmsnorm", "rows": [1024, 2048], "cols": [2048, 4096],
                    "buffers": [2, 4]}, "targets": ["trn1", "trn2"], "timing_only": True}
points, columns = neuronsim.sweep.expand(ISSUE)
c.check(len(points) == 16, f"the issue's example: 16 points, not {len(points)}")
c.check(columns == ["kernel", "rows", "cols", "buffers", "target"], f"columns {columns}")
c.check([p.index for p in points] == list(range(16)), "points are numbered in order")
# The last axis varies fastest: targets, then buffers, cols, rows.
c.check([p.target for p in points[:2]] == ["trn1", "trn2"], "targets vary fastest")
c.check(points[2].params == {"kernel": "example:rmsnorm", "rows": 1024, "cols": 2048,
                             "buffers": 4, "target": "trn1"}, f"point 2: {points[2].params}")
c.check(points[15].kernel == {"kind": "example", "example": "rmsnorm", "rows": 2048,
                              "cols": 4096, "buffers": 4}, f"point 15: {points[15].kernel}")
again, _ = neuronsim.sweep.expand(json.loads(json.dumps(ISSUE)))
c.check([p.describe() for p in again] == [p.describe() for p in points], "same spec, same points")

# A spec file: relative paths start at its directory; the file's contents travel with
# the point (a remote worker needs none of the spec's files).
spec_dir = os.path.join(SCRATCH, "specs")
os.makedirs(spec_dir)
graph = os.path.join(SOURCE_DIR, "examples", "rmsnorm", "rmsnorm_small.json")
spec_path = os.path.join(spec_dir, "s.json")
with open(spec_path, "w") as f:
    json.dump({"kernel": [{"graph": os.path.relpath(graph, spec_dir), "mode": ["eager", "fused"]},
                          {"example": "softmax", "rows": 256, "double_buffer": [False, True]}],
               "overrides": {"dma": {"engines": [4, 16], "queue_depth": 8}}}, f)
points, columns = neuronsim.sweep.expand(spec_path)
c.check(len(points) == 8, f"two kernels of 2 x 2 override points: 8, not {len(points)}")
c.check(columns == ["kernel", "mode", "target", "overrides.dma.engines",
                    "overrides.dma.queue_depth", "rows", "double_buffer"], f"columns {columns}")
with open(graph) as f:
    c.check(points[0].kernel["graph_text"] == f.read(), "the graph's text is in the point")
c.check(points[0].overrides == {"dma": {"engines": 4, "queue_depth": 8}},
        f"nested overrides: {points[0].overrides}")
c.check(points[0].target == "trn2", "the default target is trn2")
c.check(points[4].params["kernel"] == "example:softmax" and "mode" not in points[4].params,
        f"a kernel's own columns only: {points[4].params}")
# An axis of one list: a value that is a list.
points, _ = neuronsim.sweep.expand({"kernel": {"neff": os.path.join(SOURCE_DIR, "tests", "python", "support.py")},
                                    "overrides": {"x": {"y": [[1, 2]]}}})
c.check(points[0].overrides == {"x": {"y": [1, 2]}}, "[[1, 2]] is one value, [1, 2]")


def bad(spec, words, what):
    c.raises(lambda: neuronsim.sweep.expand(spec), words, what)


bad([], ["spec", "a JSON object"], "not an object")
bad({"kernel": {"example": "rmsnorm"}, "target": "trn2"}, ["unknown key", "target", "targets"],
    "a misspelt key names the keys a spec takes")
bad({}, ["needs a kernel"], "no kernel")
bad({"kernel": {"example": "rmsnorm", "rows": []}}, ["axis 'rows'", "empty"], "an empty axis")
bad({"kernel": {"example": "rmsnorm", "graph": "g.json"}}, ["exactly one kind", "example, graph"],
    "two kinds")
bad({"kernel": {"example": "rmsnorm", "colls": 4}}, ["unknown key", "colls", "cols"],
    "an example option it does not take")
bad({"kernel": {"example": "rmsnorm", "rows": [64, -1]}}, ["rows", "positive integer", "-1"],
    "a bad example value")
bad({"kernel": {"graph": "g.json", "mode": "lazy"}}, ["mode", "fused, eager", "lazy"], "a bad mode")
bad({"kernel": {"graph": "no-such.json"}}, ["cannot read", "no-such.json"], "a missing graph")
bad({"kernel": {"nki": "k.py"}}, ["FILE.py:FUNCTION"], "an nki kernel without its function")
bad({"kernel": {"nki": "k.py:f", "args": {"a": {"shape": [1]}}}}, ["argument 'a'", "dtype"],
    "an nki argument without a dtype")
bad({"kernel": {"example": "rmsnorm"}, "inputs": {"x": "normal:0,1"}}, ["timing_only", "false"],
    "inputs without numerics")
bad({"kernel": {"example": "rmsnorm"}, "targets": []}, ["targets"], "no targets")
bad({"kernel": {"example": "rmsnorm"}, "targets": ["trn9"]}, ["trn1, trn2, trn3", "trn9"],
    "an unknown preset")
bad({"kernel": {"example": "rmsnorm", "rows": list(range(1, 2001)), "cols": list(range(1, 1001))}},
    ["2000000 points", "at most 1000000"], "a grid too large to hold, before it is built")
c.raises(lambda: neuronsim.sweep.expand(os.path.join(SCRATCH, "none.json")),
         ["none.json", "cannot read the sweep spec"], "a missing spec file")
broken = os.path.join(SCRATCH, "broken.json")
with open(broken, "w") as f:
    f.write('{"kernel": {\n  "example": rmsnorm}}')
c.raises(lambda: neuronsim.sweep.expand(broken), ["broken.json:2:", "not JSON"],
         "a spec that is not JSON names its line")
c.finish()
