"""A kernel call's arguments: which are HBM input tensors and which are constants of the
trace.

NKI's frameworks pass tensors (numpy arrays for baremetal/simulation) and treat every
other argument as a compile-time constant (nki.jit, FrameworkKernel.is_framework_tensor:
"Parameter that returns false must be constants known at compile time"). Tensors become
HBM input tensors; constants are handed to the kernel function unchanged and are part of
the trace's cache key.
"""
from __future__ import annotations

import enum
import inspect
import types

import numpy as np

from ._core import DType, fail, to_dtype


class typed:
    """An input array with the dtype the kernel sees: typed(x, nl.bfloat16) passes float
    data that neuronsim rounds to bf16 as the engines round (numpy has no bf16)."""

    def __init__(self, array, dtype):
        self.array = np.asarray(array)
        self.dtype = to_dtype(dtype)


class TensorArg:
    """One HBM input: its data (None for a shape-only nt.tensor[...] spec, whose data the
    driver makes up, as nki.benchmark ignores input values) and the dtype the kernel sees."""

    __slots__ = ("array", "dtype", "shape", "user")

    def __init__(self, array, dtype, shape, user):
        self.array, self.dtype, self.shape, self.user = array, dtype, tuple(shape), user

    def key(self):
        return ("t", self.shape, self.dtype.asm)

    def data(self, seed):
        """The array to load: the caller's, or for a spec seeded uniform [0, 1) values
        (integers: zeros), deterministic so repeated runs see the same inputs."""
        if self.array is not None:
            a = self.array
            if a.dtype == np.bool_:
                a = a.astype(np.uint8)
            if self.dtype.packed:  # four lanes per element: its bit patterns
                return np.ascontiguousarray(a, dtype=np.dtype(_numpy_int(self.dtype)))
            return np.ascontiguousarray(a, dtype=np.float32) if self.dtype.is_float else a
        if self.dtype.is_float:
            return np.random.default_rng(seed).random(self.shape, dtype=np.float32)
        return np.zeros(self.shape, dtype=np.dtype(_numpy_int(self.dtype)))


def _numpy_int(dtype):
    # int8 ... uint32: numpy spells them the same; a packed x4 type is its bit patterns
    # (uint32 for four fp8 lanes, uint16 for four fp4 ones).
    return f"uint{8 * dtype.size}" if dtype.packed else dtype.nki_name


class ConstArg:
    """A constant of the trace: passed to the kernel function as given."""

    __slots__ = ("value", "_key")

    def __init__(self, value, key):
        self.value, self._key = value, key

    def key(self):
        return ("v", self._key)


# Values a kernel may take as constants (numbers, strings, dtypes, ops such as np.add or
# nl.exp, enum members, configuration objects); containers of them are constants too.
_SCALARS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), slice, range)


def _is_tensor_like(value):
    if isinstance(value, (np.ndarray, typed)):
        return True
    if isinstance(value, (np.generic,) + _SCALARS) or isinstance(value, type):
        return False
    return hasattr(value, "__array__") or hasattr(value, "__array_interface__")


def _const_key(value, where, location, depth=0):
    """A hashable key that tells two constants apart (type and value), or an error for a
    container holding an array (an array is a tensor only as a whole argument)."""
    if depth > 32:
        fail(f"{where}: constant argument nested too deeply", location)
    if isinstance(value, np.generic):
        return (type(value).__name__, value.item())
    if isinstance(value, _SCALARS):
        return (type(value).__name__, repr(value))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,
                tuple(_const_key(v, where, location, depth + 1) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((_const_key(k, where, location, depth + 1),
                               _const_key(v, where, location, depth + 1))
                              for k, v in value.items()))
    if _is_tensor_like(value) or _is_spec(value):
        fail(f"{where}: a tensor inside a tuple, list or dict is not a kernel argument; "
             f"pass each array as an argument of its own", location)
    if isinstance(value, (DType, np.dtype, type, enum.Enum, types.FunctionType,
                          types.BuiltinFunctionType, np.ufunc, types.ModuleType)):
        return ("obj", id(value))
    try:
        hash(value)
        return ("obj", type(value).__qualname__, value)
    except TypeError:
        return ("repr", type(value).__qualname__, repr(value))


def _is_spec(value):
    from .typing import TensorSpec

    return isinstance(value, TensorSpec)


def classify(value, where, location):
    """TensorArg for an array, typed(...) or nt.tensor[shape, dtype] spec; ConstArg for a
    constant; NkiError for anything that can be neither."""
    from .typing import TensorSpec

    if isinstance(value, typed):
        return TensorArg(value.array, value.dtype, value.array.shape, value.array)
    if isinstance(value, type) and issubclass(value, TensorSpec):
        value = value()  # the bare type nt.tensor: no shape
    if isinstance(value, TensorSpec):
        if value.shape is None:
            fail(f"{where}: nt.tensor without a shape describes no input; give one, "
                 f"e.g. nt.tensor[[128, 512], nl.float32]", location)
        return TensorArg(None, value.dtype, value.shape, None)
    if isinstance(value, np.ndarray):
        return TensorArg(value, _numpy_dtype(value, where, location), value.shape, value)
    if _is_tensor_like(value):
        try:
            arr = np.asarray(value)
        except Exception as e:  # a framework tensor on a device, say
            fail(f"{where}: cannot read {type(value).__name__} as a numpy array ({e}); "
                 f"neuronsim.nki runs numpy arrays: pass x.cpu().numpy() or np.asarray(x)",
                 location)
        if arr.dtype == object:
            fail(f"{where}: {type(value).__name__} is not an array of numbers", location)
        return TensorArg(arr, _numpy_dtype(arr, where, location), arr.shape, None)
    if inspect.isgenerator(value) or hasattr(value, "__next__"):
        fail(f"{where}: an iterator is neither a tensor nor a constant; pass a tuple or list",
             location)
    return ConstArg(value, _const_key(value, where, location))


def _numpy_dtype(arr, where, location):
    if arr.dtype == np.float64:
        return to_dtype("float32")  # NKI kernels take fp32; numpy's default float is fp64
    if arr.dtype == np.bool_:
        return to_dtype("uint8")
    try:
        return to_dtype(arr.dtype, location)
    except Exception:
        fail(f"{where}: unsupported array dtype {arr.dtype} (use float32, float16, int8..32, "
             f"uint8..32, or nki.typed(x, nl.bfloat16) for bf16/fp8)", location)
