"""Compiled mode lays out a weight the graph reads only transposed (nn.Linear's [out, in]
weight, read by F.linear as weight.t()) transposed on the host, once per version of the
parameter (docs/torch.md, "Compiled mode"): an nn.Linear model compiles to the same
kernels, launches and device time as the same model written with [in, out] weights, and
its numerics match PyTorch's CPU. Updating the parameter in place re-lays it out. A weight
that is also read untransposed keeps its layout (the graph then transposes it)."""
import torch

import neuronsim.torch as nt
from support import check, expect, finish

torch.manual_seed(0)


class Linears(torch.nn.Module):
    def __init__(self, a, b, c):
        super().__init__()
        self.up = torch.nn.Linear(a, b, bias=False)
        self.down = torch.nn.Linear(b, c)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


class InOut(torch.nn.Module):
    """The same model with its weights stored [in, out]."""

    def __init__(self, m):
        super().__init__()
        self.w_up = torch.nn.Parameter(m.up.weight.detach().t().contiguous())
        self.w_down = torch.nn.Parameter(m.down.weight.detach().t().contiguous())
        self.b_down = torch.nn.Parameter(m.down.bias.detach().clone())

    def forward(self, x):
        return torch.nn.functional.silu(x @ self.w_up) @ self.w_down + self.b_down


class Both(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(n, n) / n)

    def forward(self, x):
        return (x @ self.w) + (x @ self.w.t())


def device_ns(rt, start):
    recs = rt.records[start:]
    return [r.kernel for r in recs], sum(r.device_end_ns - r.device_start_ns for r in recs)


with torch.no_grad():
    m = Linears(256, 512, 128)
    ref_model = InOut(m)
    x = torch.randn(128, 256)
    lin, inout = nt.compile(m, target="trn2"), nt.compile(ref_model, target="trn2")
    y = lin(x)
    check("nn.Linear compiled", y, m(x), torch.float32, atol=2.0**-20)
    k_lin, t_lin = device_ns(lin.runtime, 0)
    inout(x)
    k_io, t_io = device_ns(inout.runtime, 0)
    expect(not any("transpose" in k for k in k_lin), "no transpose launch: %s" % k_lin)
    expect(len(k_lin) == len(k_io) and t_lin == t_io,
           "nn.Linear %s %.1f ns vs [in, out] %s %.1f ns" % (k_lin, t_lin, k_io, t_io))
    m.up.weight.mul_(2.0)  # a new version of the parameter: laid out again
    check("after an in-place update", lin(x), m(x), torch.float32, atol=2.0**-20)

    b = Both(128)
    xb = torch.randn(64, 128)
    check("a weight read both ways", nt.compile(b, target="trn2")(xb), b(xb), torch.float32,
          atol=2.0**-18)

    # Full size, timing only: [2048, 4096] x nn.Linear(4096, 4096) on trn2.
    big = torch.nn.Linear(4096, 4096, bias=False)
    cb = nt.compile(big, target="trn2", timing_only=True)
    cb(torch.empty(2048, 4096))
    kernels, t = device_ns(cb.runtime, 0)
    expect(kernels == [kernels[0]] and "transpose" not in kernels[0],
           "one matmul launch at full size: %s" % kernels)
finish()
