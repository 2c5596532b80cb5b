"""neuronsim.torch.rms_norm, the fused RMSNorm op (the torch.rms_norm analogue; PyTorch
1.13 has no torch.nn.functional.rms_norm): an operator `neuronsim::rms_norm` registered with
torch.library, so that dispatch modes and captured graphs see one op. On the CPU it is the
reference x * rsqrt(mean(x^2, -1) + eps) * w; in eager mode it runs the hand-fused kernel
of scripts/rmsnorm_study.sh (`neuronsim example rmsnorm --double-buffer`) where that kernel
applies, the compiler's fused kernel of the same formula otherwise; in a compiled graph it
is that formula's nodes, fused with their neighbours."""
import torch
from torch.library import Library

from .. import Error, _core

_lib = Library("neuronsim", "DEF")
_lib.define("rms_norm(Tensor x, Tensor weight, float eps) -> Tensor")


def _reference(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


_lib.impl("rms_norm", _reference, "CompositeExplicitAutograd")


def _below_autograd(x, weight, eps):
    guard = torch._C._AutoDispatchBelowAutograd()  # a guard object: below autograd while alive
    try:
        return torch.ops.neuronsim.rms_norm(x, weight, eps)
    finally:
        del guard


# Meta tensors (compiled mode's capture) have an autograd key of their own, which
# CompositeExplicitAutograd does not cover in PyTorch 1.13: pass them on to the dispatch
# modes below autograd.
_lib.impl("rms_norm", _below_autograd, "AutogradMeta")

# The study's hand-fused kernel double-buffers (scripts/rmsnorm_study.sh: --double-buffer).
HAND_BUFFERS = 2
_HAND_DTYPES = {torch.bfloat16: "bf16", torch.float32: "fp32"}
_kernels = {}


def rms_norm(x, weight, eps=1e-6):
    """y = x * rsqrt(mean(x^2, dim=-1, keepdim=True) + eps) * weight over the last dim."""
    return torch.ops.neuronsim.rms_norm(x, weight, float(eps))


def hand_kernel(x, weight, eps, target):
    """The hand-fused kernel for these tensors, or None where it does not apply (dtype not
    bf16/fp32, weight not [D] of x's dtype, rows not a multiple of 128, a row too long for
    its buffers)."""
    if x.dtype not in _HAND_DTYPES or weight.dtype != x.dtype or x.dim() < 2:
        return None
    if weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        return None
    n = x.numel() // x.shape[-1]
    if n == 0 or n % 128:
        return None
    key = (n, x.shape[-1], x.dtype, eps, target)
    if key not in _kernels:
        try:
            _kernels[key] = _core.rmsnorm_kernel(n, x.shape[-1], HAND_BUFFERS,
                                                 _HAND_DTYPES[x.dtype], eps, target)
        except Error:  # e.g. rows longer than SBUF holds double-buffered
            _kernels[key] = None
    return _kernels[key]
