"""NKI tutorial "tensor addition" in neuronsim.nki: c = a + b, tile by tile.

The kernel body is the tutorial's with `neuronsim.nki` imports; the SPMD grid of the
tutorial (one 128x512 tile per program) becomes two affine_range loops, since
neuronsim.nki traces one program. Run: PYTHONPATH=build/python python3 examples/python/tensor_add.py
"""
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl


@nki.jit
def tensor_add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a_input.shape[0] // 128):
        for j in nl.affine_range(a_input.shape[1] // 512):
            ix = i * 128 + nl.arange(128)[:, None]
            iy = j * 512 + nl.arange(512)[None, :]
            a_tile = nl.load(a_input[ix, iy])
            b_tile = nl.load(b_input[ix, iy])
            c_tile = a_tile + b_tile
            nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def inputs(shape=(256, 1024), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random(shape, dtype=np.float32), rng.random(shape, dtype=np.float32))


def check(target="trn2"):
    a, b = inputs()
    out = nki.simulate(tensor_add_kernel, a, b, target=target)
    np.testing.assert_allclose(out, a + b, rtol=1e-6, atol=1e-6)
    return nki.benchmark(tensor_add_kernel, a, b, target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"tensor_add matches numpy; {r}")
