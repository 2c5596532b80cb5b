"""neuronsim.nki: kernels written in the style of AWS's Neuron Kernel Interface (NKI),
traced into neuronsim kernels and run with timing.

    from neuronsim import nki
    import neuronsim.nki.language as nl
    import neuronsim.nki.isa as nisa

    @nki.jit
    def add_kernel(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a) + nl.load(b))
        return out

    y = nki.simulate(add_kernel)(x1, x2)                 # outputs (nki.simulate_kernel too)
    r = nki.benchmark(add_kernel, x1, x2, target="trn1")  # latency, utilisation, profile
    print(add_kernel.trace(x1, x2).asm())                # the generated assembly

A kernel file written for AWS's NKI runs unedited with `python3 -m neuronsim.nki
file.py`: the import hook maps `neuronxcc.nki...` and `nki...` onto these modules
(neuronsim.nki.install_import_hook() does the same in a running program).

docs/python.md ("neuronsim.nki") describes the language, the drivers and every
difference from NKI.
"""
from __future__ import annotations

from . import compiler, isa, language, typing  # noqa: F401
from . import _drivers, _unsupported
from ._args import typed
from ._core import NkiError
from ._dropin import install_import_hook, uninstall_import_hook
from ._drivers import (BaremetalKernel, BenchmarkKernel, BenchmarkResult, LatencyStats,
                       ProfileKernel, baremetal, benchmark, execute, profile, simulate,
                       simulate_kernel)
from ._jit import JitKernel, TracedKernel, jit
from .typing import tensor

__all__ = ["jit", "simulate", "simulate_kernel", "execute", "benchmark", "baremetal", "profile",
           "typed",
           "tensor", "NkiError", "TracedKernel", "JitKernel", "BenchmarkResult", "LatencyStats",
           "BenchmarkKernel", "BaremetalKernel", "ProfileKernel", "install_import_hook",
           "uninstall_import_hook", "language", "isa", "typing", "compiler"]


def __dir__():
    return sorted(__all__)  # what a drop-in user explores: the API, not the implementation



def _run(kernel, args, target, kwargs, **run_options):
    """(TracedKernel, neuronsim.RunResult): the earlier internal entry point, kept for
    callers written against it; new code uses _drivers._run."""
    from ._core import user_location

    traced, _, result = _drivers._run(kernel, args, kwargs, target, user_location(),
                                      **run_options)
    return traced, result


# Documented names nobody implemented raise an NkiError naming the API (_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__, _unsupported.NKI, "nki")
_unsupported.install(language, _unsupported.LANGUAGE, "nki.language", language._INTERNAL)
# Current NKI's tensor class, which kernels name in annotations (nki.language page
# "Tensor class": NkiTensor), is nki.typing's tensor type here.
if "NkiTensor" not in vars(language):
    language.NkiTensor = typing.tensor
_unsupported.install(isa, _unsupported.ISA, "nki.isa", isa._INTERNAL)
