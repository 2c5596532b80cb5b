"""Bad input to neuronsim.torch (issue 22, item 7): each gets one neuronsim.Error naming
the aten op and the user's Python line (test_errors.py:N); fallback=True runs unlowered
ops on the CPU, counted and recorded; a launch that fails leaves the process usable."""
import inspect

import torch

import neuronsim
import neuronsim.torch as nt
from support import expect, expect_error, finish


def here(offset=1):
    """test_errors.py:N of the caller's line + offset - 1 (the line that raises)."""
    return "test_errors.py:%d" % (inspect.currentframe().f_back.f_lineno + offset - 1)


def eager(fn, **kw):
    def run():
        with nt.device("trn2", **kw):
            fn()
    return run


def main():
    x = torch.randn(256, 64)
    # An op without a lowering.
    line = here(2)
    def cos(): return torch.cos(x)  # noqa: E704
    expect_error(eager(cos), line, "aten::cos", "not lowered", "fallback=True")
    # dtypes: int64 indices, complex
    idx = torch.arange(8)
    line = here(2)
    def ints(): return idx + 1  # noqa: E704
    expect_error(eager(ints), line, "aten::add.Tensor", "int64")
    z = torch.randn(8, dtype=torch.complex64)
    line = here(2)
    def cplx(): return z * 2  # noqa: E704
    expect_error(eager(cplx), line, "aten::mul.Tensor", "complex64")
    line = here(2)
    def maxdim(): return x.max(-1, keepdim=True)  # noqa: E704
    expect_error(eager(maxdim), line, "aten::max.dim", "int64 indices", "torch.amax")
    # shapes the compiler's row model cannot take
    # (a broadcast over a leading dimension, [8, 1, 64] * [1, 8, 64], and a bmm run per
    # block now: tests/torch/test_ops.py)
    line = here(2)
    def dim0(): return x.sum(0, keepdim=True)  # noqa: E704
    expect_error(eager(dim0), line, "aten::sum.dim_IntList", "only the last dimension")
    line = here(2)
    def nokeep(): return x.mean(-1)  # noqa: E704
    expect_error(eager(nokeep), line, "aten::mean.dim", "keepdim")

    # Fallback: counted, recorded, CPU values.
    with nt.device("trn2", fallback=True) as rt:
        y = torch.cos(x) * 2
    expect(torch.equal(y, torch.cos(x) * 2), "fallback values")
    expect(rt.fallback_ops == {"aten::cos": 1}, "fallback count %s" % rt.fallback_ops)
    fb = [r for r in rt.records if isinstance(r, nt.LaunchRecord) and r.fallback]
    expect(len(fb) == 1 and fb[0].device_start_ns is None and fb[0].op == "aten::cos",
           "fallback record %s" % fb)
    expect(rt.fallback_report() == "aten::cos: 1", "report %r" % rt.fallback_report())

    # Compiled: unlowered node, dynamic control flow, a non-tensor return.
    def f_cos(t):
        return torch.cos(t) + 1
    expect_error(lambda: nt.compile(f_cos)(x), "test_errors.py:%d" % (f_cos.__code__.co_firstlineno + 1),
                 "node 'cos", "aten::cos", "not lowered")

    def f_branch(t):
        if t.sum() > 0:
            return t * 2
        return t
    expect_error(lambda: nt.compile(f_branch)(x), "test_errors.py:%d" % (f_branch.__code__.co_firstlineno + 1),
                 "dynamic control flow")

    def f_shape(t):
        return t.view(64, 256) * 2  # changes the row length
    expect_error(lambda: nt.compile(f_shape)(x), "test_errors.py:%d" % (f_shape.__code__.co_firstlineno + 1),
                 "aten::view", "last dimension")
    def f_permute(t):
        return t.permute(0, 2, 1, 3) + 1  # a 4-D input's rows are 32 long: no [72, 32] block
    expect_error(lambda: nt.compile(f_permute)(torch.randn(2, 72, 3, 32)),
                 "test_errors.py:%d" % (f_permute.__code__.co_firstlineno + 1),
                 "aten::add.Tensor", "made by aten::permute", "last dimension")

    def f_inplace(t):
        t += 1  # would change the caller's tensor
        return t
    expect_error(lambda: nt.compile(f_inplace)(x), "test_errors.py:%d" % (f_inplace.__code__.co_firstlineno + 1),
                 "aten::add_.Tensor", "an input of the graph")
    expect_error(lambda: nt.compile(lambda t: t.shape[0])(x), "returns int")
    expect_error(lambda: nt.compile(f_cos)(3.0), "argument 0 is float")

    # A launch that fails (the program's tensors do not fit a 4 MiB HBM) names op and line;
    # the process and the session go on.
    big = torch.randn(1024, 1024)
    line = here(2)
    def too_big(): return big * 2  # noqa: E704
    expect_error(eager(too_big, overrides={"hbm": {"capacity_bytes": 4 << 20}}), line,
                 "aten::mul:", "failed", "HBM")
    with nt.device("trn2") as rt:
        y = big * 2
    expect(torch.equal(y, big * 2) and len(rt.records) == 1, "the next run works")
    expect(nt.current_runtime() is None, "no runtime left active after errors")
    expect(isinstance(neuronsim.session_info()["launches"], int), "session alive")
    finish()


if __name__ == "__main__":
    main()
