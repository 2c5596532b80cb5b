"""nki.typing (`import neuronxcc.nki.typing as nt`): the types kernels put in their
signatures and the shape-only inputs their drivers pass.

NKI spells them `nt.tensor` (an annotation: `x: nt.tensor`, `nt.tensor[128, 512]`, or a
driver's input spec `nt.tensor[[K, M], nl.bfloat16]`), `nt.mutable_tensor` and
`nt.tensor[nt.mutable]` (a parameter the kernel writes in place). NKI's API reference has
no page for the module; these are the forms its release notes (nki.typing: "Use
nt.tensor[shape] to declare expected tensor shapes") and the published nki-samples
drivers and kernels use. An annotation is never checked here: the traced argument is
what it is.

As a kernel argument a spec with a shape and dtype (`nt.tensor[[1, H], nl.bfloat16]`) is
an HBM input of that shape whose data neuronsim makes up (seeded uniform [0, 1) values
for floats, zeros for integers): what nki.benchmark and nki.profile expect, since they
"do not use the actual inputs" (nki.benchmark page).
"""
from __future__ import annotations

from ._core import DType, NkiError, to_dtype, user_location

__all__ = ["tensor", "mutable_tensor", "mutable", "TensorSpec"]


class _Mutable:
    """The marker in nt.tensor[nt.mutable]."""

    def __repr__(self):
        return "nt.mutable"


mutable = _Mutable()


class _TensorType(type):
    """isinstance(x, nt.tensor) is True for a traced tensor and for a spec."""

    def __instancecheck__(cls, obj):
        from ._tensor import Tensor

        return isinstance(obj, Tensor) or type.__instancecheck__(cls, obj)

    def __getitem__(cls, params):
        return cls._make(params)

    def __repr__(cls):
        return f"nt.{cls._nt_name}"


class TensorSpec(metaclass=_TensorType):
    """A tensor type: optional shape, optional dtype, mutability. The subscript forms are
    nt.tensor[d0, d1, ...], nt.tensor[[d0, d1], dtype], nt.tensor[(d0, d1), dtype],
    nt.tensor[shape, dtype, nt.mutable], nt.tensor[nt.mutable]."""

    _nt_name = "tensor"
    _default_mutable = False

    def __init__(self, shape=None, dtype=None, is_mutable=False):
        self.shape = None if shape is None else tuple(int(s) for s in shape)
        self.dtype = to_dtype("float32") if dtype is None else dtype
        self.is_mutable = is_mutable

    @classmethod
    def _make(cls, params):
        params = params if isinstance(params, tuple) else (params,)
        is_mutable = cls._default_mutable
        rest = []
        for p in params:
            if p is mutable:
                is_mutable = True
            else:
                rest.append(p)
        shape, dtype = None, None
        if rest and isinstance(rest[0], (list, tuple)):
            shape, rest = rest[0], rest[1:]
            if rest:
                dtype, rest = rest[0], rest[1:]
        elif rest and all(_is_int(p) for p in rest):
            shape, rest = rest, []
        elif rest and all(_is_int(p) for p in rest[:-1]):
            shape, dtype, rest = rest[:-1], rest[-1], []
        if rest or (shape is not None and not all(_is_int(s) for s in shape)):
            file, line = user_location()
            raise NkiError(f"{file}:{line}: nt.{cls._nt_name}[{params!r}]: expected "
                           f"nt.tensor[d0, d1, ...] or nt.tensor[[d0, d1, ...], dtype]")
        if dtype is not None and not isinstance(dtype, DType):
            dtype = to_dtype(dtype)
        return cls(shape, dtype, is_mutable)

    def __repr__(self):
        parts = [] if self.shape is None else [str(list(self.shape)), repr(self.dtype)]
        if self.is_mutable:
            parts.append("nt.mutable")
        return f"nt.{self._nt_name}[{', '.join(parts)}]"

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and (self.shape, self.dtype, self.is_mutable) ==
                (other.shape, other.dtype, other.is_mutable))

    def __hash__(self):
        return hash((self.shape, self.dtype.asm, self.is_mutable))


def _is_int(x):
    return isinstance(x, int) or hasattr(x, "__index__")


class tensor(TensorSpec):  # noqa: N801 - NKI's name
    """nt.tensor: a kernel tensor (annotation) or, subscripted with a shape and dtype, a
    shape-only input for the drivers."""

    _nt_name = "tensor"


class mutable_tensor(TensorSpec):  # noqa: N801 - NKI's name
    """nt.mutable_tensor: a parameter the kernel writes (an output passed in)."""

    _nt_name = "mutable_tensor"
    _default_mutable = True
