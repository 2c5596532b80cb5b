"""examples/torch/llama_block.py (attention written with 4-D views, rotate_half by slices and
cat, a [T, T] mask broadcast over batch and heads) at the reduced size (200 tokens: a
partial 128-row tile, 2 heads of 64, MLP 128 -> 344 -> 128), eager and compiled on trn2,
against the same module in float64 on PyTorch's CPU (the same rounded weights and inputs):
batch 1 in bf16 and fp32, and batch 2 in bf16 (compiled, the heads' P @ V products of a
batch are launches that each write their columns of one concat, assembled by the launch
runner). Then rotary embedding alone on 32 heads, compiled: its fused row group needs more
semaphores than trn2's 64, and the compiler splits it (docs/compiler.md, "Splitting a row
launch"); checked against PyTorch's CPU. And two slices of one input read in place by one
row kernel (docs/compiler.md, "Slices read in place").

Bounds: test_decoder_block.py's, derived there for the same block (the same ops on the
same values; rotate_half by slices and a cat is exact like the permutation product, a
negation and moves): 8u eager, 4u compiled in bf16, 32u both in fp32, normwise."""
import time

import numpy as np
import torch

import neuronsim.torch as nt
from support import expect, f64, finish

from llama_block import SMALL, make_block, make_inputs, rotate_half

TOL = {torch.bfloat16: (8 * 2.0**-8, 4 * 2.0**-8), torch.float32: (32 * 2.0**-24, 32 * 2.0**-24)}


def normwise(got, ref):
    return float(np.max(np.abs(f64(got) - ref)) / np.max(np.abs(ref)))


def rope(q, cos, sin):
    return q * cos + rotate_half(q) * sin


def rope_32_heads():
    """q [1, 32, 128, 128] bf16: 32 heads of rope, one fused group past trn2's semaphores,
    are several row launches (each validated against the target by the compiler); a head's
    result is computed in fp32 and rounded once where it is stored (within 2 u: the
    products and the sum in fp32, a few fp32 ulps, then one bf16 rounding)."""
    g = torch.Generator().manual_seed(3)
    q = torch.randn(1, 32, 128, 128, generator=g).to(torch.bfloat16)
    cos = torch.randn(128, 128, generator=g).to(torch.bfloat16)
    sin = torch.randn(128, 128, generator=g).to(torch.bfloat16)
    f = nt.compile(rope, target="trn2")
    got = f(q, cos, sin)
    ref = f64(rope(*[t.double() for t in (q, cos, sin)]))
    e = normwise(got, ref)
    kernels = [l for l in f.program(q, cos, sin).launches]
    rows = [l for l in kernels if l["op"] == "fused"]
    print("rope, 32 heads of [128, 128] bf16: %d launches (%d row launches), error %.2fu"
          % (len(kernels), len(rows), e / 2.0**-8))
    expect(len(rows) > 1, "rope on 32 heads: the row group is split")
    expect(e <= 2 * 2.0**-8, "rope on 32 heads: error %.3g > 2u" % e)


def two_views():
    """x[:, 64:192] * w + x[:, :128] on 300 rows (a partial tile first): two slices of one
    input read in place by one row kernel (docs/compiler.md, "Slices read in place"); one
    bf16 rounding of an fp32 result (1 u, normwise)."""
    g = torch.Generator().manual_seed(4)
    x = torch.randn(300, 256, generator=g).to(torch.bfloat16)
    w = torch.randn(128, generator=g).to(torch.bfloat16)
    f = nt.compile(lambda x, w: x[:, 64:192] * w + x[:, :128], target="trn2")
    got = f(x, w)
    ref = f64(x.double()[:, 64:192] * w.double() + x.double()[:, :128])
    ops = [l["op"] for l in f.program(x, w).launches]
    expect(ops == ["fused"], "two slices read in place: one row launch, not %s" % ops)
    e = normwise(got, ref)
    expect(e <= 2.0**-8, "two views: error %.3g > 1u" % e)


def main():
    for dtype, batch in ((torch.bfloat16, 1), (torch.float32, 1), (torch.bfloat16, 2)):
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
        if batch == 1:  # batch 2: each batch's rows are layout launches (docs/torch.md)
            expect(len(compiled_fn.runtime.records) < len(launches), "compiled has fewer launches")
        expect(all(r.op == "neuronsim::compiled:LlamaBlock" for r in compiled_fn.runtime.records),
               "compiled launches are named after the graph")
    rope_32_heads()
    two_views()
    finish()


if __name__ == "__main__":
    main()
