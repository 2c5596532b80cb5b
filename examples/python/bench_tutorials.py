"""Latency of each NKI tutorial kernel (examples/python/) on trn1 and trn2, simulated by
neuronsim: device time of one launch, and the busiest engine's utilisation.

    PYTHONPATH=build/python python3 examples/python/bench_tutorials.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from neuronsim import nki  # noqa: E402
import neuronsim.nki.language as nl  # noqa: E402

import layernorm  # noqa: E402
import matmul  # noqa: E402
import rmsnorm  # noqa: E402
import softmax  # noqa: E402
import tensor_add  # noqa: E402


def bf16(*arrays):
    return [nki.typed(a, nl.bfloat16) for a in arrays]


def cases():
    rows, cols = 1024, 2048
    a, b = tensor_add.inputs((rows, cols))
    x, w = rmsnorm.inputs((rows, cols))
    (s,) = softmax.inputs((rows, cols))
    ln = layernorm.inputs((rows, cols))
    lhsT, rhs = matmul.inputs(K=1024, M=1024, N=2048)
    return [
        ("tensor_add fp32 [1024,2048] (8x4 grid)", tensor_add.nki_tensor_add_kernel_[8, 4], (a, b)),
        ("rmsnorm tutorial (nl) bf16 [1024,2048]", rmsnorm.rmsnorm_tutorial, bf16(x, w)),
        ("rmsnorm fused (nisa) bf16 [1024,2048]", rmsnorm.rmsnorm_fused, bf16(x, w)),
        ("softmax fp32 [1024,2048]", softmax.softmax_kernel, (s,)),
        ("layernorm v1 fp32 [1024,2048]", layernorm.layernorm_v1, ln),
        ("layernorm v2 fp32 [1024,2048]", layernorm.layernorm_v2, ln),
        ("matmul tiled bf16 1024x1024x2048", matmul.matmul_tiled, bf16(lhsT, rhs)),
    ]


def main():
    targets = ("trn1", "trn2")
    print(f"{'kernel':42s}" + "".join(f"{t + ' us':>12s}{'busiest':>18s}" for t in targets))
    for name, kernel, args in cases():
        row = f"{name:42s}"
        for t in targets:
            r = nki.benchmark(kernel, *args, target=t)
            eng, util = max(r.utilisation.items(), key=lambda kv: kv[1])
            row += f"{r.latency_us:12.2f}{eng + f' {100 * util:.0f}%':>18s}"
        print(row, flush=True)


if __name__ == "__main__":
    np.random.seed(0)
    main()
