"""What the neuronsim.torch tests share: tolerances and the comparison with PyTorch's CPU.

The device computes every op in fp32 and rounds its stored result once to the tensor's
dtype (docs/numerics.md); PyTorch's CPU does the same for bf16 tensors (its kernels
compute in fp32). So each op's result is checked against a float64 reference of the same
(already rounded) inputs: |device - ref| <= rtol * |ref| + atol, with

- bf16: rtol = U + 2^-16, U = 2^-8 the unit roundoff of bf16's 8-bit significand (one
  rounding of the result), plus 2^-16 for the fp32 computation before it (activation
  approximations of a few fp32 ulps, 2^-23 each, can move a value across a bf16 rounding
  boundary by at most that much);
- fp16: rtol = 2^-11 + 2^-16 likewise (an 11-bit significand), and atol 2^-24 more:
  below 2^-14 fp16 is subnormal, spaced 2^-24 apart, so a rounding errs by up to 2^-25
  absolute whatever the value (plus the fp32 error before it);
- fp32: rtol = 2^-18, 32 fp32 ulps (2^-23 each) for the activation approximations and the
  steps of a composite op (softmax, layer_norm: about ten operations);
- atol: for reductions and matmuls, the fp32 accumulation error of a sum of K terms,
  K * 2^-24 * sum |terms| (each addition rounds by at most 2^-24 of the partial sum),
  which is what can cancel; 0 for elementwise ops.
PyTorch's own bf16 CPU result is checked with the same bound (it is the same single
rounding), so the device is within 2 * rtol of PyTorch's bf16 output.
"""
import os
import sys

import numpy as np
import torch

U = 2.0**-8
RTOL = {torch.bfloat16: U + 2.0**-16, torch.float16: 2.0**-11 + 2.0**-16, torch.float32: 2.0**-18}
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples", "torch"))

failures = []


def f64(t):
    return t.detach().to(torch.float64).numpy()


def check(name, got, ref, dtype, atol=0.0, rtol=None):
    """Elementwise |got - ref| <= rtol |ref| + atol (ref float64); records a failure."""
    rtol = RTOL[dtype] if rtol is None else rtol
    if dtype == torch.float16:
        atol += 2.0**-24  # fp16's subnormal spacing (above)
    got = np.asarray(f64(got) if isinstance(got, torch.Tensor) else got, np.float64)
    ref = np.asarray(f64(ref) if isinstance(ref, torch.Tensor) else ref, np.float64)
    if got.shape != ref.shape:
        failures.append("%s: shape %s, expected %s" % (name, got.shape, ref.shape))
        return
    err = np.abs(got - ref)
    bound = rtol * np.abs(ref) + atol
    bad = ~(err <= bound)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err - bound, -np.inf)), err.shape)
        failures.append("%s (%s): %d elements out of bound, worst at %s: got %r, ref %r, "
                        "bound %r" % (name, str(dtype), bad.sum(), i, got[i], ref[i], bound[i]))


def expect(cond, what):
    if not cond:
        failures.append(what)


def expect_error(fn, *parts):
    """fn() raises neuronsim.Error whose message contains every part."""
    import neuronsim
    try:
        fn()
    except neuronsim.Error as e:
        msg = str(e)
        missing = [p for p in parts if p not in msg]
        if missing:
            failures.append("error %r lacks %r" % (msg, missing))
        return msg
    failures.append("no error (expected one with %r)" % (parts,))
    return None


def scratch_dir(prefix):
    """A temporary directory, removed when the test exits."""
    import atexit
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def finish():
    for f in failures:
        print("FAIL:", f)
    print("%d failure(s)" % len(failures) if failures else "ok")
    sys.exit(1 if failures else 0)
