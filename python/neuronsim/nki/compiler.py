"""nki.compiler (`import neuronxcc.nki.compiler as ncc`): the compiler controls NKI kernels
name, as NKI documents them (API pages nki.compiler.skip_middle_end_transformations,
enable_stack_allocator, force_auto_alloc, nki.compiler.sbuf.alloc / mod_alloc /
auto_alloc, nki.compiler.psum.*, and for current NKI nki.compiler.CompileConfig /
SpecializationConfig).

neuronsim has no compiler between the trace and the instructions, so:

- the decorators return the kernel unchanged (there are no middle-end transformations
  to skip, and the tracer's allocator is the only allocator);
- `ncc.sbuf` / `ncc.psum` and what their `alloc`, `mod_alloc` and `auto_alloc` return are
  buffers: `nl.ndarray(shape, dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0,
  num_free_tiles=(2,)))` makes an SBUF tile exactly as `buffer=nl.sbuf` does. Each
  buffer compares equal to nl.sbuf / nl.psum (it is that string, with the placement the
  kernel asked for as attributes: `.space`, `.placement`), so the language accepts it.
  The placement itself is not honoured: the tracer's allocator places every tile (by
  live range, next fit, docs/python.md "Allocation"), which is what NKI's automatic
  allocation does; the arguments are checked as the pages state.
"""
from __future__ import annotations

from ._core import fail, user_location

__all__ = ["sbuf", "psum", "skip_middle_end_transformations", "enable_stack_allocator",
           "force_auto_alloc", "CompileConfig", "SpecializationConfig", "AddressRotation"]


# --- decorators -----------------------------------------------------------------------


def _decorator(name, func):
    """A no-op decorator usable bare (@d) and called (@d(), @d(log_level=...))."""
    if func is None:
        return lambda f: f
    if not callable(func):
        fail(f"nki.compiler.{name}: decorates a kernel function, not {type(func).__name__}")
    return func


def skip_middle_end_transformations(func=None):
    """NKI: skip the compiler's middle-end transformations on the kernel (page
    nki.compiler.skip_middle_end_transformations). A no-op: neuronsim lowers each traced
    call to its instructions and transforms nothing in between."""
    return _decorator("skip_middle_end_transformations", func)


def enable_stack_allocator(func=None, log_level=50):
    """NKI: allocate SBUF/PSUM tensors with a stack allocator (page
    nki.compiler.enable_stack_allocator). A no-op: the tracer's allocator places tiles."""
    return _decorator("enable_stack_allocator", func)


def force_auto_alloc(func=None):
    """NKI: ignore direct allocations and allocate automatically (page
    nki.compiler.force_auto_alloc). neuronsim always allocates automatically."""
    return _decorator("force_auto_alloc", func)


# --- buffers --------------------------------------------------------------------------


class Buffer(str):
    """An on-chip buffer as nl.ndarray takes it: equal to "sbuf" or "psum" (nl.sbuf,
    nl.psum), with the placement the kernel asked for. `placement` is None for automatic
    allocation, else ("alloc", func) or ("mod_alloc", {arguments})."""

    def __new__(cls, space, placement=None):
        obj = super().__new__(cls, space)
        obj.space = space
        obj.placement = placement
        return obj

    def __repr__(self):
        if self.placement is None:
            return f"ncc.{self.space}"
        kind, detail = self.placement
        return f"ncc.{self.space}.{kind}({detail!r})"

    # str's own methods stay (the language compares buffers as strings); the allocation
    # API hangs off the automatic buffer so `ncc.sbuf.mod_alloc(...)` reads as NKI's.

    def auto_alloc(self):
        """nki.compiler.{sbuf,psum}.auto_alloc(): automatic allocation, the same as
        nl.sbuf / nl.psum."""
        return Buffer(self.space)

    def alloc(self, func):
        """nki.compiler.{sbuf,psum}.alloc(func): `func(block_index, pdim_size,
        fdim_size)` places each logical block. Accepted; the tracer places tiles itself."""
        if not callable(func):
            fail(f"ncc.{self.space}.alloc: func must be callable (block index, partitions, "
                 f"bytes) -> placement, not {type(func).__name__}")
        return Buffer(self.space, ("alloc", func))

    def mod_alloc(self, *args, **kwargs):
        """nki.compiler.sbuf.mod_alloc(*, base_addr, base_partition=0, num_par_tiles=(),
        num_free_tiles=()) and nki.compiler.psum.mod_alloc(*, base_bank, base_addr=0,
        base_partition=0, num_bank_tiles=(), num_par_tiles=(), num_free_tiles=()): modulo
        allocation, checked as the pages state; placement left to the tracer."""
        where = f"ncc.{self.space}.mod_alloc"
        if args:
            fail(f"{where} takes keyword arguments only (base_addr=..., num_free_tiles=...)")
        if self.space == "sbuf":
            allowed = {"base_addr": None, "base_partition": 0, "num_par_tiles": (),
                       "num_free_tiles": ()}
            required = ("base_addr",)
        else:
            allowed = {"base_bank": None, "base_addr": 0, "base_partition": 0,
                       "num_bank_tiles": (), "num_par_tiles": (), "num_free_tiles": ()}
            required = ("base_bank",)
        unknown = sorted(set(kwargs) - set(allowed))
        if unknown:
            fail(f"{where}: unknown argument(s) {', '.join(unknown)} (takes "
                 f"{', '.join(allowed)})")
        missing = [r for r in required if r not in kwargs]
        if missing:
            fail(f"{where}: {missing[0]}= is required")
        got = dict(allowed, **kwargs)
        for k, v in got.items():
            if k.startswith("num_"):
                if not isinstance(v, (tuple, list)) or not all(_int(x) and x >= 1 for x in v):
                    fail(f"{where}: {k} must be a tuple of positive ints, got {v!r}")
            elif not _int(v) or v < 0:
                fail(f"{where}: {k} must be a non-negative int, got {v!r}")
        if self.space == "sbuf" and got["base_partition"] != 0:
            fail(f"{where}: base_partition must be 0 (nki.compiler.sbuf.mod_alloc: "
                 f"\"Must be 0 in the current version\")")
        if self.space == "psum":
            if got["base_bank"] >= 8:  # 8 PSUM banks of 2 KiB (reference section 1)
                fail(f"{where}: base_bank {got['base_bank']} is past PSUM's 8 banks")
            if got["base_addr"] != 0 or got["base_partition"] != 0:
                fail(f"{where}: base_addr and base_partition must be 0 "
                     f"(nki.compiler.psum.mod_alloc)")
        return Buffer(self.space, ("mod_alloc", got))


def _int(x):
    return isinstance(x, int) and not isinstance(x, bool)


sbuf = Buffer("sbuf")  # NKI: "alias of nki.compiler.sbuf.auto_alloc()"
psum = Buffer("psum")  # NKI: "alias of nki.compiler.psum.auto_alloc()"


# --- current NKI's per-kernel configuration ---------------------------------------------


class _Config:
    """Options held for the record: they steer neuronx-cc's passes, which neuronsim does
    not have (nki.compiler.CompileConfig / SpecializationConfig pages)."""

    def __init__(self, **options):
        self.options = dict(options)
        for k, v in options.items():
            setattr(self, k, v)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({inner})"


class CompileConfig(_Config):
    """nki.compiler.CompileConfig(...): accepted by @nki.jit(compile_config=...)."""


class SpecializationConfig(_Config):
    """nki.compiler.SpecializationConfig(...): accepted by
    @nki.jit(specialization_config=...)."""


class AddressRotation:
    """nki.compiler.AddressRotation: a CompileConfig value (no effect here)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


del user_location
