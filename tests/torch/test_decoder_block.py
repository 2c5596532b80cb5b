"""examples/torch/decoder_block.py at the reduced size (200 tokens: a partial 128-row tile,
2 heads of 64, MLP 128 -> 344 -> 128), eager and compiled on trn2, in bf16 and fp32,
against the same module in float64 on PyTorch's CPU (the same rounded weights and input).

Bound, normwise as tests/py/compiler_transformer.py (the same layer as a graph):
max |got - ref| <= tol * max |ref|. Each rounding of a stored tensor adds at most u
relative to the value it rounds, and no value on the path is much larger than the output
(weights scaled by 1/sqrt(fan-in)). Eager rounds every op's result: about 30 on the longest
path (norm 6, projection, rope 3, scores, scale, mask, softmax, P @ V, output projection,
residual, norm 6, gate, silu, product, down, residual); compiled rounds each launch's
stored results, about 14. Independent roundings mostly cancel, so, as for the graph, the
bounds are 8u eager and 4u compiled (u = 2^-8 for bf16, 2^-24 for fp32), about three
times the measured error and far below a real mistake (a rotary sign or a wrong softmax
scale moves the output by tens of percent). In fp32 the roundings of the stored tensors
are small beside the fp32 sums themselves: a matmul's K-term sum (K up to 344) errs by up
to K 2^-24 of its terms' magnitudes, about sqrt(K) ~ 19u when the errors are independent;
the bound is 32u for both modes (measured 7.6u eager, 5.7u compiled)."""
import time

import numpy as np
import torch

import neuronsim.torch as nt
from support import expect, f64, finish

from decoder_block import SMALL, make_block

TOL = {torch.bfloat16: (8 * 2.0**-8, 4 * 2.0**-8), torch.float32: (32 * 2.0**-24, 32 * 2.0**-24)}


def normwise(got, ref):
    return float(np.max(np.abs(f64(got) - ref)) / np.max(np.abs(ref)))


def main():
    for dtype in (torch.bfloat16, torch.float32):
        block = make_block(SMALL, dtype)
        x = torch.randn(SMALL.tokens, SMALL.hidden, generator=torch.Generator().manual_seed(1)).to(dtype)
        with torch.no_grad():
            ref = f64(make_block(SMALL, dtype).double()(x.double()))
            start = time.time()
            with nt.device("trn2") as rt:
                eager = block(x)
            t_eager = time.time() - start
            start = time.time()
            compiled_fn = nt.compile(block, target="trn2")
            compiled = compiled_fn(x)
            t_compiled = time.time() - start
        e, c = normwise(eager, ref), normwise(compiled, ref)
        launches = [r for r in rt.records if isinstance(r, nt.LaunchRecord)]
        u = 2.0**-8 if dtype == torch.bfloat16 else 2.0**-24
        print("%s: eager %d launches, error %.2fu (%.1f s); compiled %d launches, error %.2fu "
              "(%.1f s)" % (dtype, len(launches), e / u, t_eager,
                            len(compiled_fn.runtime.records), c / u, t_compiled))
        expect(eager.dtype == dtype and compiled.dtype == dtype, "%s: result dtypes" % dtype)
        expect(e <= TOL[dtype][0], "%s eager: error %.3g > %.3g" % (dtype, e, TOL[dtype][0]))
        expect(c <= TOL[dtype][1], "%s compiled: error %.3g > %.3g" % (dtype, c, TOL[dtype][1]))
        expect(len(compiled_fn.runtime.records) < len(launches), "compiled has fewer launches")
        expect(all(r.op == "neuronsim::compiled:DecoderBlock" for r in compiled_fn.runtime.records),
               "compiled launches are named after the graph")
    finish()


if __name__ == "__main__":
    main()
