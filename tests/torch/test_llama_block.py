"""examples/torch/llama_block.py (attention written with 4-D views, rotate_half by slices and
cat, a [T, T] mask broadcast over batch and heads) at the reduced size (200 tokens: a
partial 128-row tile, 2 heads of 64, MLP 128 -> 344 -> 128), eager and compiled on trn2,
against the same module in float64 on PyTorch's CPU (the same rounded weights and inputs):
batch 1 in bf16 and fp32, and batch 2 in bf16 eagerly (compiled, a batch of 2 fails:
docs/torch.md, "N-D tensors: views and blocks", lists why).

Bounds: test_decoder_block.py's, derived there for the same block (the same ops on the
same values; rotate_half by slices and a cat is exact like the permutation product, a
negation and moves): 8u eager, 4u compiled in bf16, 32u both in fp32, normwise."""
import time

import numpy as np
import torch

import neuronsim.torch as nt
from support import expect, f64, finish

from llama_block import SMALL, make_block, make_inputs

TOL = {torch.bfloat16: (8 * 2.0**-8, 4 * 2.0**-8), torch.float32: (32 * 2.0**-24, 32 * 2.0**-24)}


def normwise(got, ref):
    return float(np.max(np.abs(f64(got) - ref)) / np.max(np.abs(ref)))


def eager_only(dtype, batch):
    block = make_block(SMALL, dtype)
    inputs = make_inputs(SMALL, batch, dtype)
    with torch.no_grad():
        ref = f64(make_block(SMALL, dtype).double()(*[t.double() for t in inputs]))
        with nt.device("trn2") as rt:
            eager = block(*inputs)
    e = normwise(eager, ref)
    launches = [r for r in rt.records if isinstance(r, nt.LaunchRecord)]
    print("%s batch %d: eager %d launches, error %.2fu" % (dtype, batch, len(launches), e / 2.0**-8))
    expect(tuple(eager.shape) == tuple(inputs[0].shape), "batch %d: shape" % batch)
    expect(e <= TOL[dtype][0], "batch %d eager: error %.3g > %.3g" % (batch, e, TOL[dtype][0]))


def main():
    for dtype, batch in ((torch.bfloat16, 1), (torch.float32, 1), (torch.bfloat16, 2)):
        if batch == 2:
            eager_only(dtype, batch)
            continue
        block = make_block(SMALL, dtype)
        inputs = make_inputs(SMALL, batch, dtype)
        with torch.no_grad():
            ref = f64(make_block(SMALL, dtype).double()(*[t.double() for t in inputs]))
            start = time.time()
            with nt.device("trn2") as rt:
                eager = block(*inputs)
            t_eager = time.time() - start
            start = time.time()
            compiled_fn = nt.compile(block, target="trn2")
            compiled = compiled_fn(*inputs)
            t_compiled = time.time() - start
        e, c = normwise(eager, ref), normwise(compiled, ref)
        launches = [r for r in rt.records if isinstance(r, nt.LaunchRecord)]
        u = 2.0**-8 if dtype == torch.bfloat16 else 2.0**-24
        what = "%s batch %d" % (dtype, batch)
        print("%s: eager %d launches, error %.2fu (%.1f s); compiled %d launches, error %.2fu "
              "(%.1f s)" % (what, len(launches), e / u, t_eager,
                            len(compiled_fn.runtime.records), c / u, t_compiled))
        expect(not any(r.fallback for r in launches), "%s: no fallback" % what)
        expect(eager.dtype == dtype and compiled.dtype == dtype, "%s: result dtypes" % what)
        expect(tuple(eager.shape) == tuple(inputs[0].shape), "%s: shape" % what)
        expect(e <= TOL[dtype][0], "%s eager: error %.3g > %.3g" % (what, e, TOL[dtype][0]))
        expect(c <= TOL[dtype][1], "%s compiled: error %.3g > %.3g" % (what, c, TOL[dtype][1]))
        expect(len(compiled_fn.runtime.records) < len(launches), "compiled has fewer launches")
        expect(all(r.op == "neuronsim::compiled:LlamaBlock" for r in compiled_fn.runtime.records),
               "compiled launches are named after the graph")
    finish()


if __name__ == "__main__":
    main()
