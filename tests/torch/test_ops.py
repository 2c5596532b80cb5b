"""Every aten op neuronsim.torch lowers, eager (one launch per op) and compiled (the
captured graph fused), in fp32, bf16 and fp16, against a float64 reference of the same rounded
inputs and against PyTorch's CPU result (tolerances: support.py). Rows 200 (a partial
128-row tile) by 96 columns, one process for all cases (about 10 s on 2 cores)."""
import math

import torch
import torch.nn.functional as F

import neuronsim.torch as nt
from support import RTOL, U, check, expect, finish

R, D, K = 200, 96, 64
EPS_ACC = 2.0**-24  # one fp32 addition's relative rounding
UNIT = {torch.float32: 2.0**-24, torch.bfloat16: U, torch.float16: 2.0**-11}  # unit roundoffs


def mm_atol(a, b):
    """fp32 accumulation bound of a (batched) product's K-term sums (support.py)."""
    return a.shape[-1] * EPS_ACC * float((a.abs().double() @ b.abs().double()).max())


def gen(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    n = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    p = lambda *s: (torch.rand(*s, generator=g) + 0.5).to(dtype)  # noqa: E731
    return n, p


def sum_atol(x, k):
    """fp32 accumulation error bound of sums of k terms of |x| (support.py)."""
    return k * EPS_ACC * float(x.abs().double().max()) * k


# name -> (fn, make inputs (n, p), atol(inputs, ref) or 0)
CASES = {
    "add": (lambda a, b: a + b, lambda n, p: (n(2, 100, D), n(D)), 0),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2), lambda n, p: (n(R, D), n(R, D)), 0),
    "sub_stat": (lambda a, s: a - s, lambda n, p: (n(R, D), n(R, 1)), 0),
    "mul_scalar": (lambda a: a * 3.0, lambda n, p: (n(R, D),), 0),
    "add_inplace": (lambda a, b: a.clone().add_(b), lambda n, p: (n(R, D), n(D)), 0),
    "mul_inplace": (lambda a, b: a.clone().mul_(b), lambda n, p: (n(R, D), n(R, 1)), 0),
    "mul": (lambda a, b: a * b, lambda n, p: (n(R, D), n(R, D)), 0),
    "div": (lambda a, b: a / b, lambda n, p: (n(R, D), p(R, D)), 0),
    "rsub": (lambda a: 1 - a, lambda n, p: (n(R, D),), 0),
    "neg": (lambda a: -a, lambda n, p: (n(R, D),), 0),
    "pow2": (lambda a: a.pow(2), lambda n, p: (n(R, D),), 0),
    "pow3": (lambda a: a.pow(3), lambda n, p: (n(R, D),), 0),
    "rsqrt": (torch.rsqrt, lambda n, p: (p(R, D),), 0),
    "sqrt": (torch.sqrt, lambda n, p: (p(R, D),), 0),
    "exp": (torch.exp, lambda n, p: (n(R, D),), 0),
    "reciprocal": (torch.reciprocal, lambda n, p: (p(R, D),), 0),
    # gelu(x) = x (1 + erf(x / sqrt 2)) / 2: for x < 0 the sum cancels, so the fp32 result
    # has an absolute error of about |x| 2^-24 (both PyTorch's and the device's)
    "gelu": (F.gelu, lambda n, p: (n(R, D),), lambda a: 2.0**-23 * float(a.abs().max())),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), lambda n, p: (n(R, D),),
                  lambda a: 2.0**-23 * float(a.abs().max())),
    "silu": (F.silu, lambda n, p: (n(R, D),), 0),
    "log": (torch.log, lambda n, p: (p(R, D),), 0),
    "relu": (F.relu, lambda n, p: (n(R, D),), 0),
    "sigmoid": (torch.sigmoid, lambda n, p: (n(R, D),), 0),
    "tanh": (torch.tanh, lambda n, p: (n(R, D),), 0),
    "sin": (torch.sin, lambda n, p: (n(R, D),), 0),
    "abs": (torch.abs, lambda n, p: (n(R, D),), 0),
    "mean": (lambda a: a.mean(-1, keepdim=True), lambda n, p: (n(R, D),),
             lambda a: sum_atol(a, D) / D),
    "sum": (lambda a: a.sum(-1, keepdim=True), lambda n, p: (n(2, 100, D),),
            lambda a: sum_atol(a, D)),
    "amax": (lambda a: torch.amax(a, -1, keepdim=True), lambda n, p: (n(R, D),), 0),
    "softmax": (lambda a: torch.softmax(a, -1), lambda n, p: (n(R, D),), D * 2.0**-22),
    "mm": (lambda a, b: a @ b, lambda n, p: (n(R, K), n(K, D)),
           lambda a, b: K * EPS_ACC * float((a.abs().double() @ b.abs().double()).max())),
    "addmm": (lambda c, a, b: torch.addmm(c, a, b), lambda n, p: (n(D), n(R, K), n(K, D)),
              lambda c, a, b: K * EPS_ACC * float((a.abs().double() @ b.abs().double()).max())),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda n, p: (n(2, 100, K), n(D, K), n(D)),
               lambda x, w, b: K * EPS_ACC * float((x.abs().double() @ w.abs().double().t()).max())),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (D,), w, b),
                   lambda n, p: (n(R, D), n(D), n(D)), D * 2.0**-22),
    "transpose": (lambda a: a.t() * 2, lambda n, p: (n(R, D),), 0),
    "view": (lambda a: (a * 2).view(2, 100, D), lambda n, p: (n(R, D),), 0),
    "slice": (lambda a: a[:, 16:80] + 1, lambda n, p: (n(R, D),), 0),
    "cat": (lambda a, b: torch.cat([a, b], -1), lambda n, p: (n(R, D), n(R, 32)), 0),
    "rms_norm": (lambda x, w: nt.rms_norm(x, w, 1e-6), lambda n, p: (n(256, D), n(D)),
                 D * 2.0**-22),
    # 200 rows: not the hand-fused kernel's (rows a multiple of 128), the fused formula's
    "rms_norm_200": (lambda x, w: nt.rms_norm(x, w, 1e-6), lambda n, p: (n(2, 100, D), n(D)),
                     D * 2.0**-22),
    # N-D tensors (docs/torch.md, "N-D tensors: views and blocks"): batched and 4-D
    # matmuls, heads by view + transpose and back, broadcasts over leading dimensions
    "bmm": (torch.bmm, lambda n, p: (n(3, 72, K), n(3, K, 40)), lambda a, b: mm_atol(a, b)),
    "matmul4d": (lambda a, b: a @ b, lambda n, p: (n(2, 2, 72, K), n(2, 2, K, 40)),
                 lambda a, b: mm_atol(a, b)),
    "matmul4d_bt": (lambda q, k: q @ k.transpose(-2, -1), lambda n, p: (n(2, 2, 72, K), n(2, 2, 48, K)),
                    lambda q, k: mm_atol(q, k.transpose(-2, -1))),
    "heads": (lambda x: x.view(2, 72, 3, 32).transpose(1, 2) * 2, lambda n, p: (n(2, 72, D),), 0),
    "heads_back": (lambda x: (x.view(2, 72, 3, 32).transpose(1, 2) * 2).transpose(1, 2)
                   .reshape(2, 72, D), lambda n, p: (n(2, 72, D),), 0),
    "permute": (lambda x: x.view(2, 72, 3, 32).permute(0, 2, 1, 3) + 1, lambda n, p: (n(2, 72, D),), 0),
    "softmax4d": (lambda a: torch.softmax(a, -1), lambda n, p: (n(2, 2, 72, 48),), 48 * 2.0**-22),
    "bcast_outer": (lambda a, b: a * b, lambda n, p: (n(8, 1, 64), n(1, 8, 64)), 0),
    "mask_bcast": (lambda s, m: s + m, lambda n, p: (n(2, 2, 72, 72), n(72, 72)), 0),
    # x * cos + rotate_half(x) * sin: eager rounds both products (u each, the dtype's
    # unit roundoff), which the sum can cancel: an absolute bound
    "rope": (lambda x, c, s: x * c + torch.cat((-x[..., 16:], x[..., :16]), dim=-1) * s,
             lambda n, p: (n(1, 3, 72, 32), n(72, 32), n(72, 32)),
             lambda x, c, s: 2 * UNIT[x.dtype] * float((x.abs() * (c.abs() + s.abs())).double().max())),
}


# Eager launches per case where not one (docs/torch.md): a bmm is one matmul launch per
# batch entry; rope is five (the two products by a [72, 32] table over the 3 heads, one
# kernel of a block per head each, the negation, the cat, the sum; the slices are views).
EAGER_LAUNCHES = {"bmm": 3, "matmul4d": 4, "matmul4d_bt": 4, "rope": 5}


# Eager aten::native_layer_norm returns mean and rstd too, so its kernel stores them in bf16
# and normalises with the stored (rounded) rstd: two roundings on y's path, 2U, and the
# rstd's rounding (U relative on x_hat * w) survives the bias add as an absolute error.
U16 = 2.0**-11  # fp16's unit roundoff
EAGER_RTOL = {("layer_norm", torch.bfloat16): 2 * U + 2.0**-16,
              ("layer_norm", torch.float16): 2 * U16 + 2.0**-16}
EAGER_ATOL = {("layer_norm", torch.bfloat16):
              lambda x, w, b: U * float(F.layer_norm(x.double(), (D,), w.double()).abs().max()),
              ("layer_norm", torch.float16):
              lambda x, w, b: U16 * float(F.layer_norm(x.double(), (D,), w.double()).abs().max())}


def hf_rms_norm(x, w):
    """HF LlamaRMSNorm: computed in fp32, back to the input's dtype before the weight."""
    h = x.to(torch.float32)
    return w * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype)


def conversions():
    """x.to(dtype): exact widening, one rounding narrowing (as torch rounds: to nearest
    even), eager one launch each; HF's RMSNorm with its conversions, eager and compiled."""
    n, p = gen(torch.bfloat16, 99)
    xb = n(R, D)
    xf = torch.randn(R, D, generator=torch.Generator().manual_seed(98))
    for x, dtype in ((xb, torch.float32), (xf, torch.bfloat16)):
        with nt.device("trn2") as rt:
            y = x.to(dtype)
        expect(len(rt.records) == 1 and rt.records[0].op == "aten::_to_copy", "to: %s" % rt.records)
        expect(y.dtype == dtype and torch.equal(y, x.to(dtype)), "to %s eager" % dtype)
        c = nt.compile(lambda t: t.to(dtype) * 1.0)(x)
        expect(c.dtype == dtype and torch.equal(c, x.to(dtype)), "to %s compiled" % dtype)
    w = n(D)
    ref = hf_rms_norm(xb.double(), w.double())
    a = D * 2.0**-22
    with nt.device("trn2") as rt:
        eager = hf_rms_norm(xb, w)
    # eager rounds at .to(bf16) and after * w: 2U; the fused kernel keeps fp32 on chip and
    # rounds once, at the end (it does not round at the conversion, as inductor's default)
    check("hf rms_norm eager", eager, ref, torch.bfloat16, atol=a, rtol=2 * U + 2.0**-16)
    comp = nt.compile(hf_rms_norm)
    check("hf rms_norm compiled", comp(xb, w), ref, torch.bfloat16, atol=a)
    expect(len(comp.program(xb, w).launches) == 1, "hf rms_norm compiled: one launch")


def main():
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for seed, (name, (fn, make, atol)) in enumerate(CASES.items()):
            n, p = gen(dtype, seed)
            inputs = make(n, p)
            ref = fn(*[t.double() for t in inputs])
            a = atol(*inputs) if callable(atol) else atol
            # PyTorch's CPU result, computed in fp32 and rounded once to the dtype (some of
            # its bf16 kernels round intermediates too: pow, silu, gelu's tanh form, mean,
            # layer_norm differ from the float64 result by several U); it obeys the bound,
            # so the device is within twice the bound of it.
            cpu = fn(*[t.float() for t in inputs]).to(dtype)
            check("%s cpu" % name, cpu, ref, dtype, atol=a)
            with nt.device("trn2") as rt:
                eager = fn(*inputs)
            launches = [r for r in rt.records if isinstance(r, nt.LaunchRecord)]
            want = EAGER_LAUNCHES.get(name, 1)
            expect(len(launches) == want, "%s eager: %d launches, expected %d" % (name, len(launches), want))
            expect(eager.dtype == dtype, "%s eager: dtype %s" % (name, eager.dtype))
            ea = EAGER_ATOL[(name, dtype)](*inputs) if (name, dtype) in EAGER_ATOL else a
            check("%s eager" % name, eager, ref, dtype, atol=ea, rtol=EAGER_RTOL.get((name, dtype)))
            check("%s eager vs cpu" % name, eager, cpu, dtype, atol=a + ea,
                  rtol=2 * EAGER_RTOL.get((name, dtype), RTOL[dtype]))
            compiled = nt.compile(fn, target="trn2")(*inputs)
            expect(compiled.dtype == dtype, "%s compiled: dtype %s" % (name, compiled.dtype))
            check("%s compiled" % name, compiled, ref, dtype, atol=a)
            check("%s compiled vs cpu" % name, compiled, cpu, dtype, atol=2 * a, rtol=2 * RTOL[dtype])
    conversions()
    print("%d cases x 3 dtypes x eager/compiled, conversions" % len(CASES))
    finish()


if __name__ == "__main__":
    main()
