"""Not a test (CTest runs test_*.py): N runs of tiny_add, each on one of six configs, more
than the session keeps cores for, so that every run builds a fresh SystemC context. Run it
under valgrind for two values of N (docs/python.md, "Many runs in one session"): no invalid
access, and the same leak figures for both, i.e. nothing accumulates per context.

    PYTHONMALLOC=malloc PYTHONPATH=build/python NEURONSIM=build/neuronsim \\
      SOURCE_DIR=$PWD valgrind --leak-check=full /usr/bin/python3 \\
      tests/python/contexts_valgrind.py 6

HBM is made 1 GiB: valgrind cannot reserve a preset's 96 GiB of address space.
"""
import sys

import numpy as np

import neuronsim
from support import asm_neff

kernel = neuronsim.load_neff(asm_neff("tiny_add"))
a = np.ones((128, 512), np.float32)
for i in range(int(sys.argv[1])):
    neuronsim.run(kernel, {"a": a, "b": a},
                  overrides={"hbm": {"capacity_bytes": 1 << 30},
                             "dma": {"fixed_latency_ns": 1000 + 100 * (i % 6)}})
print(neuronsim.session_info())
