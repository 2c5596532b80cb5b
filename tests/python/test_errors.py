"""Errors are neuronsim.Error exceptions carrying neuronsim's message, and a failed run
leaves the session usable: the next run on the same core gives the right answer."""
import os

import numpy as np

import neuronsim
from support import DEADLOCK, SCRATCH, Checks, asm_neff

c = Checks()
c.check(issubclass(neuronsim.Error, Exception), "Error is an Exception")
tiny = neuronsim.load_neff(asm_neff("tiny_add"))
a = np.ones((128, 512), np.float32)
good = {"a": a, "b": a}

c.raises(lambda: neuronsim.assemble("kernel k target=trn2\nbogus line here\n", "bad.nasm"),
         ["bad.nasm:2"], "assembler error names name:LINE")
c.raises(lambda: neuronsim.assemble("kernel k\n", "nt.nasm"), ["names no target"],
         "kernel without a target")
c.raises(lambda: neuronsim.load_neff(os.path.join(SCRATCH, "missing.neff")), ["missing.neff"],
         "missing NEFF")
junk = os.path.join(SCRATCH, "junk.neff")
with open(junk, "wb") as f:
    f.write(b"not a neff at all" * 10)
c.raises(lambda: neuronsim.load_neff(junk), ["junk.neff"], "corrupt NEFF")
c.raises(lambda: neuronsim.run(tiny, {"a": a}), ["inputs not given", "'b'"], "missing input")
c.raises(lambda: neuronsim.run(tiny, {"a": a, "b": a, "c": a}), ["no input tensor named 'c'"],
         "unknown input")
c.raises(lambda: neuronsim.run(tiny, {"a": a[:4], "b": a}), ["tensor a", "[128, 512]"],
         "wrong shape")
c.raises(lambda: neuronsim.run(tiny, good, target="trn9"), ["trn9"], "unknown target")
c.raises(lambda: neuronsim.run(tiny, good, overrides={"dma": {"no_such_key": 1}}),
         ["overrides", "no_such_key"], "bad override key, named in an overrides dict")
c.raises(lambda: neuronsim.run(42), ["Kernel"], "not a kernel")
c.raises(lambda: neuronsim.run(tiny, [a, a]), ["dict"], "inputs not a dict")
c.raises(lambda: neuronsim.run(tiny, {"a": np.full((128, 512), "x"), "b": a}),
         ["<U1", "input 'a'"],
         "strings for a float tensor")

stuck = neuronsim.assemble(DEADLOCK, "stuck.nasm")
prof = os.path.join(SCRATCH, "stuck_profile")
c.raises(lambda: neuronsim.run(stuck, {"a": np.ones((128, 4), np.float32)}, profile_dir=prof),
         ["stuck.nasm", "deadlock", "never"], "deadlock")
c.check(not os.path.exists(prof), "a failed run leaves no profile directory behind")

# The session goes on: the same core computes the next kernel right.
b = np.full((128, 512), 2.0, np.float32)
r = neuronsim.run(tiny, {"a": a, "b": b})
c.check(np.all(r.outputs["out"] == 3.0), "a run after the failures computes right")
# An HBM of 2^62 bytes costs nothing until touched (64 MiB chunks mapped on first touch):
# a core for it is built and runs, and the session goes on with the default config.
r = neuronsim.run(tiny, good, overrides={"hbm": {"capacity_bytes": 1 << 62}})
c.check(np.all(r.outputs["out"] == 2.0), "a run on an HBM of 2^62 bytes")
r = neuronsim.run(tiny, {"a": a, "b": b})
c.check(np.all(r.outputs["out"] == 3.0), "a run after a core for another config")
c.raises(lambda: neuronsim.Profile(os.path.join(SCRATCH, "no_profile_here")), ["no_profile_here"],
         "Profile of a missing directory")
c.finish()
