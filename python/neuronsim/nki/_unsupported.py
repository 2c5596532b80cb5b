"""Documented NKI names neuronsim.nki does not provide: reaching one (`nl.device_print`,
`from neuronxcc.nki.isa import local_gather`) raises NkiError naming the API, the user's
file:line and what to do, instead of an AttributeError.

The lists are NKI's API reference indexes (aws-neuron-sdk general/nki/api/nki.language.rst,
nki.isa.rst, nki.rst, and the names later NKI releases added there). A module-level
__getattr__ is only asked for names a module lacks, so a name another part of the front
end implements is simply found; the lists never hide one.
"""
from __future__ import annotations

import dis
import os
import sys

from ._core import NkiError

_DEFAULT_HINT = "rewrite that part of the kernel with the nki.language / nki.isa calls " \
                "docs/python.md lists"

LANGUAGE = {
    "atomic_rmw": "use nisa.dma_copy(dst, src, dst_rmw_op=np.add) for an HBM read-modify-write",
    "rand": "pass random data as a kernel argument",
    "shared_identity_matrix": "build it with nisa.iota / nisa.affine_select or pass it as an "
                              "argument",
    "var": "compute it with nl.mean of squares, or nisa.bn_stats + nisa.bn_aggr",
    "all": None, "trunc": None, "ceil": None, "floor": None, "cos": None, "tan": None,
    "arctan": None, "gelu_dx": None, "silu_dx": None, "erf_dx": None, "mish": None,
    "softmax": "write it with nl.max, nl.exp, nl.sum and a divide (examples/python/softmax.py)",
    "rms_norm": "write it with nl.square, nl.mean and nl.rsqrt (examples/python/rmsnorm.py)",
    "dropout": None, "bitwise_and": None, "bitwise_or": None, "bitwise_xor": None,
    "invert": None, "left_shift": None, "right_shift": None, "logical_and": None,
    "logical_or": None, "logical_xor": None, "logical_not": None, "expand_dims": None,
    "all_reduce": "collectives need several devices; neuronsim runs one kernel",
    "all_gather": "collectives need several devices; neuronsim runs one kernel",
    "reduce_scatter": "collectives need several devices; neuronsim runs one kernel",
    "all_to_all": "collectives need several devices; neuronsim runs one kernel",
    "device_print": "return the tile as an extra output and print it after nki.simulate",
    "gather_flattened": "indirect (gather) indexing is not supported",
    "static_cast": "cast with nl.copy(x, dtype=...) inside a kernel, or x.astype() in numpy",
    "loop_reduce": None, "spmd_dim": None, "nc": None, "ds": None, "shared_constant": None,
    "load_transpose2d": "load the tile and transpose it with nisa.nc_transpose",
    "bool_": None, "abs_max": None, "abs_min": None, "fmod": None,
    "mod": None, "finfo": None, "broadcast_to": "use the tensor method t.broadcast_to(shape)",
    "fp32": "use nl.float32", "bf16": "use nl.bfloat16", "fp16": "use nl.float16",
    "select_reduce": None, "range_select": None,
}

ISA = {
    "tensor_partition_reduce": None, "tensor_copy_dynamic_src": None,
    "tensor_copy_dynamic_dst": None, "tensor_copy_predicated": None, "reciprocal":
        "use nisa.activation(op=nl.reciprocal, ...) or nl.reciprocal",
    "dropout": None, "local_gather": "indirect (gather) indexing is not supported",
    "dma_engine": "DMAs are issued by the Sync engine here (nisa.dma_copy)",
    "nc_version": None, "get_nc_version": None, "max8": None, "nc_find_index8": None,
    "nc_match_replace8": None, "nc_stream_shuffle": None, "dma_transpose": None,
    "range_select": None, "select_reduce": None,
    "exponential": "use nisa.activation(op=nl.exp, ...)",
    "register_alloc": "registers and runtime values are not modelled by the tracer",
    "register_load": "registers and runtime values are not modelled by the tracer",
    "register_move": "registers and runtime values are not modelled by the tracer",
    "register_store": "registers and runtime values are not modelled by the tracer",
    "rng": "pass random data as a kernel argument",
    "rand2": "pass random data as a kernel argument",
    "set_rng_seed": "pass random data as a kernel argument",
}

NKI = {
    "trace": "decorate the kernel with @nki.jit and call kernel.trace(*args) for the assembly",
    "FrameworkKernel": "framework (PyTorch/JAX) integration is not modelled; pass numpy arrays",
    "nccl": "collectives need several devices; neuronsim runs one kernel",
    "collectives": "collectives need several devices; neuronsim runs one kernel",
    "kernels": "the nki.kernels library is not bundled; copy the kernel's source into your file",
}


class UnsupportedApi(NkiError, AttributeError):
    """A documented NKI name neuronsim.nki does not provide. Also an AttributeError, so
    hasattr() and getattr(module, name, default) keep working."""


class UnsupportedImportName(NkiError, ImportError):
    """The same, reached by `from module import name`: an ImportError, since the import
    statement turns an AttributeError into its own "cannot import name" message."""


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def _in_import_from(frame):
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _IMPORT_FROM


def _caller():
    """The innermost frame outside neuronsim.nki and importlib: the user's line."""
    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(2)
    while frame is not None:
        f = frame.f_code.co_filename
        if not f.startswith("<frozen") and not os.path.abspath(f).startswith(here):
            return f, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def module_getattr(module_name, table, nki_name):
    """A PEP 562 module __getattr__ for `module_name` that raises UnsupportedApi for the
    names in `table` (name -> hint or None) and AttributeError for others."""

    def __getattr__(name):
        if name.startswith("__") or name not in table:
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        file, line = _caller()
        hint = table[name] or _DEFAULT_HINT
        kind = UnsupportedImportName if _in_import_from(sys._getframe(1)) else UnsupportedApi
        raise kind(f"{file}:{line}: {nki_name}.{name} (NKI API page {nki_name}.{name}) is not "
                   f"supported by neuronsim.nki; {hint}")

    return __getattr__


def install(module, table, nki_name, internal=()):
    """Gives `module` the __getattr__ above unless it defines its own, and a __dir__ that
    lists its NKI names only: not `internal` (the implementation's own imports and
    helpers, still reachable as attributes by the rest of the front end)."""
    if "__getattr__" not in vars(module):
        module.__getattr__ = module_getattr(module.__name__, table, nki_name)
    hidden = frozenset(internal)

    def __dir__():
        return sorted(n for n in vars(module) if not n.startswith("_") and n not in hidden)

    module.__dir__ = __dir__
