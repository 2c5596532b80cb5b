"""NKI tutorial "tensor addition" in neuronsim.nki: c = a + b, one 128x512 tile per
program of an SPMD launch grid, as the tutorial writes it (only the imports differ);
neuronsim.nki traces the grid's programs into one kernel. `tensor_add_loops` is the same
with the grid written as affine_range loops.
Run: PYTHONPATH=build/python python3 examples/python/tensor_add.py
"""
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl


@nki.jit
def nki_tensor_add_kernel_(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = a_tile + b_tile
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def nki_tensor_add(a_input, b_input, target="trn2"):
    grid_x = a_input.shape[0] // 128
    grid_y = a_input.shape[1] // 512
    return nki.simulate(nki_tensor_add_kernel_[grid_x, grid_y], a_input, b_input, target=target)


@nki.jit
def tensor_add_loops(a_input, b_input):
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
    np.testing.assert_allclose(nki_tensor_add(a, b, target), a + b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(nki.simulate(tensor_add_loops, a, b, target=target), a + b,
                               rtol=1e-6, atol=1e-6)
    # fp16, as the tutorial's own test: the sum rounds to fp16.
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    np.testing.assert_allclose(nki_tensor_add(a16, b16, target), a16 + b16, rtol=1e-3, atol=1e-3)
    return nki.benchmark(nki_tensor_add_kernel_[a.shape[0] // 128, a.shape[1] // 512], a, b,
                         target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"tensor_add matches numpy; {r}")
