"""NKI tutorial "softmax" in neuronsim.nki: softmax(x) = exp(x - max(x)) / sum(exp(x - max(x)))
along each row, 128 rows per tile. The body is the tutorial's."""
import math
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.language as nl


@nki.jit
def softmax_kernel(a_tensor):
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    ix, iy = nl.mgrid[0:128, 0:a_tensor.shape[1]]
    num_rows = a_tensor.shape[0]
    for i in nl.affine_range(math.ceil(a_tensor.shape[0] / 128)):
        a_tile = nl.load(a_tensor[i * 128 + ix, iy], mask=(i * 128 + ix < num_rows))
        max_vals = nl.max(a_tile, axis=[1], keepdims=True, mask=(i * 128 + ix < num_rows))
        shifted = nl.subtract(a_tile, max_vals, mask=(i * 128 + ix < num_rows))
        numerator = nl.exp(shifted)
        denominator = nl.sum(numerator, axis=[1])
        sm = numerator / denominator
        nl.store(out_tensor[i * 128 + ix, iy], value=sm, mask=(i * 128 + ix < num_rows))
    return out_tensor


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def inputs(shape=(256, 1024), seed=0):
    return (np.random.default_rng(seed).standard_normal(shape, dtype=np.float32),)


def check(target="trn2"):
    (x,) = inputs()
    np.testing.assert_allclose(nki.simulate(softmax_kernel, x, target=target), reference(x),
                               rtol=1e-4, atol=1e-6)
    return nki.benchmark(softmax_kernel, x, target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"softmax matches numpy; {r}")
