"""neuronsim.whatif gives what `neuronsim whatif --json` prints, for a NEFF path and for a
Kernel object, before and after other runs in the same process (it runs in a fresh
simulation context of its own); runs after it still work; bad arguments raise Error."""
import json

import numpy as np

import neuronsim
from support import Checks, asm_neff, cli

c = Checks()
neff = asm_neff("matmul_bias_relu")
cli_json = json.loads(cli("whatif", neff, "-t", "trn2", "--json").stdout)
cli_text = cli("whatif", neff, "-t", "trn2").stdout

first = neuronsim.whatif(neff, target="trn2")
c.check(first["text"] == cli_text, "text == neuronsim whatif")
c.check({k: v for k, v in first.items() if k != "text"} == cli_json,
        "the dict == neuronsim whatif --json")
c.check(all({"resource", "time_ns", "speedup"} <= set(r) for r in first["ranking"]),
        "ranking rows have resource, time_ns, speedup")

# After a run on a live core, on a Kernel object: the same ranking.
w = np.ones((128, 128), np.float32)
x = np.ones((128, 512), np.float32)
before = neuronsim.run(neff, {"w": w, "x": x}, target="trn2")
k = neuronsim.load_neff(neff)
second = neuronsim.whatif(k, target="trn2")
c.check(second["ranking"] == first["ranking"], "a Kernel object after a run: the same ranking")
c.check(second["baseline_ns"] == before.total_ns, "baseline == run's total_ns")
after = neuronsim.run(neff, {"w": w, "x": x}, target="trn2")
c.check(after.total_ns == before.total_ns and np.array_equal(after.outputs["out"],
                                                               before.outputs["out"]),
        "a run after whatif")

# Overrides as a dict: halving the Tensor engine by hand matches its relief.
halved = [r for r in first["ranking"]
          if r["resource"] == "tensor engine" and r["relief"] == "cost halved"][0]
by_hand = neuronsim.run(neff, target="trn2", timing_only=True,
                        overrides={"tensor": {"cost_percent": 50}})
c.check(by_hand.total_ns == halved["time_ns"], "tensor.cost_percent=50 by hand: %r vs %r"
        % (by_hand.total_ns, halved["time_ns"]))

c.raises(lambda: neuronsim.whatif(42), ["whatif", "int"], "not a kernel")
c.raises(lambda: neuronsim.whatif(neff, waits=-1), ["waits"], "negative waits")
c.raises(lambda: neuronsim.whatif(neff, overrides={"tensor": {"cost_percent": -1}}),
         ["cost_percent"], "a bad override")
c.finish()
