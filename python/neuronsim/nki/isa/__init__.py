"""neuronsim.nki.isa: the nki.isa calls that map one-to-one onto neuronsim instructions.

Each call takes NKI's current argument convention, the output tile first
(`nisa.tensor_copy(dst=res_sb, src=res_psum)`), or NKI's earlier one, which returns a
new tile (`res = nisa.tensor_copy(src)`); both append one instruction to the trace.
Default engines (docs/python.md ("neuronsim.nki")): nc_matmul and nc_transpose on Tensor, activation
on Scalar, iota on GpSimd, every other compute call on Vector; `engine=` picks another
where neuronsim allows it. DMAs are issued by the Sync engine.
"""
from __future__ import annotations

import enum
import functools
import itertools

from ... import _core as _cxx
from .. import _core
from .. import _mask  # masks and out-of-range views (H2's module): every emit goes through it
from .._core import FLOAT32, Instr, fail, to_dtype, user_location
from .._grid import operand_hint
from .._tensor import IndexExpr, IndirectRows, Tensor, _row_major, check_mask, new_tile
# nki.isa.constants' enums (engine, oob_mode, dge_mode) are defined there, once.
from . import constants  # noqa: F401 - nki.isa.constants, an NKI module of its own
from .constants import dge_mode, engine, oob_mode  # noqa: F401

# Module names that are the implementation's, not NKI's: dir(nisa) leaves them out (the
# helpers nki.language builds on among them).
_INTERNAL = ("annotations", "enum", "FLOAT32", "Instr", "fail", "to_dtype", "user_location",
             "IndexExpr", "Tensor", "check_mask", "new_tile", "EXACT_DIMS", "act_func",
             "alu_op", "emit", "constant_tile", "partition_broadcast", "dma_transpose_tile",
             "dropout_tile", "operand_hint")


tensor_engine, vector_engine, scalar_engine, gpsimd_engine, sync_engine, unknown_engine = (
    "tensor", "vector", "scalar", "gpsimd", "sync", None)


class matmul_perf_mode:
    """NKI's nki.isa.matmul_perf_mode: none, or double_row, the FP8 double performance mode
    of NeuronCore-v3/v4 (2x matmul throughput, two FP8 element pairs per PE)."""

    none = "none"
    double_row = "double_row"


# nc_matmul's perf_mode spellings: the page's enum values and strings, and neuronxcc-era
# 'double_row_gen3' (nki-samples' double_row_matmul, written for trn2: the same v3 mode).
_PERF_MODES = {None: "none", "none": "none", "double_row": "double_row",
               "double_row_gen3": "double_row"}


def _oob_skip(mode, location, what):
    """Whether oob_mode (or the earlier pages' mode=) asks to skip out-of-range rows."""
    if mode is None or mode == oob_mode.error:
        return False
    if mode == oob_mode.skip:
        return True
    fail(f"{what}: oob_mode {mode!r} is not nisa.oob_mode.error or nisa.oob_mode.skip", location)


class reduce_cmd:
    idle = "idle"
    reset = "reset"
    reduce = "reduce"
    reset_reduce = "reset_reduce"


# --- op names -----------------------------------------------------------------------------

_ALU_NAMES = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "true_divide": "divide", "maximum": "max", "minimum": "min", "max": "max", "min": "min",
    "power": "pow", "pow": "pow", "equal": "is_equal", "not_equal": "not_equal",
    "greater_equal": "is_ge", "greater": "is_gt", "less_equal": "is_le", "less": "is_lt",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "left_shift": "logical_shift_left", "right_shift": "logical_shift_right",
    "logical_shift_left": "logical_shift_left", "logical_shift_right": "logical_shift_right",
    "sum": "add", "prod": "multiply", "bypass": "bypass", "abs_max": "abs_max",
    # numpy < 1.25 names np.max / np.min "amax" / "amin" (kernels pass np.max as op=)
    "amax": "max", "amin": "min",
    # neuronsim's own names (docs/assembly.md) map to themselves
    "is_equal": "is_equal", "is_ge": "is_ge", "is_gt": "is_gt", "is_le": "is_le", "is_lt": "is_lt",
}
_ACT_NAMES = {
    "copy": "copy", "identity": "copy", "square": "square", "exp": "exp", "log": "log",
    "sqrt": "sqrt", "rsqrt": "rsqrt", "reciprocal": "reciprocal", "relu": "relu",
    "sigmoid": "sigmoid", "tanh": "tanh", "gelu": "gelu", "gelu_apprx_tanh": "gelu_apprx_tanh",
    "silu": "silu", "softplus": "softplus", "erf": "erf", "sin": "sin", "sign": "sign",
    "abs": "abs", "absolute": "abs",
}


def _op_name(op):
    if isinstance(op, str):
        return op
    return getattr(op, "__name__", None) or repr(op)


def alu_op(op, location):
    name = _ALU_NAMES.get(_op_name(op))
    if name is None:
        fail(f"unsupported ALU op {_op_name(op)!r} (supported: {', '.join(sorted(set(_ALU_NAMES)))})",
             location)
    return name


def act_func(op, location):
    name = _ACT_NAMES.get(_op_name(op))
    if name is None:
        fail(f"unsupported activation function {_op_name(op)!r} (supported: "
             f"{', '.join(sorted(set(_ACT_NAMES)))})", location)
    return name


# --- helpers ------------------------------------------------------------------------------


class _Bound(dict):
    """A call's arguments by name, remembering which keyword arguments the call looked at:
    one it never looked at is not a parameter neuronsim takes (a misspelling, or an NKI
    parameter not modelled), and _keywords_checked makes it an error, as Python makes an
    unknown keyword one, rather than a silently ignored argument."""

    __slots__ = ("what", "location", "given", "read")

    def get(self, key, default=None):
        self.read.add(key)
        return dict.get(self, key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key):
        self.read.add(key)
        return dict.__contains__(self, key)


# NKI parameters every call takes and neuronsim has no use for: the instruction's name and
# the Tensor engine's one/zero hints (nc_matmul's page: "hints to the compiler").
_IGNORED_KEYWORDS = frozenset(("name", "is_stationary_onezero", "is_moving_onezero"))
# Per nisa call in progress: the _Bound objects it made, or None when its keywords are
# known to be parameters (_keywords_checked) and its arguments are bound as a plain dict.
_CALLS = []
# (call, positional count, keyword names) of the calls that looked at every keyword they
# were given: a keyword a call reads is one of its parameters whatever the values, so a
# loop's later calls of the same form skip the bookkeeping (a traced kernel makes an nisa
# call per instruction).
_KEYWORDS_READ = set()


def _bind(args, kwargs, names, location, what):
    if len(args) > len(names):
        fail(f"{what}: too many positional arguments", location)
    calls = _CALLS[-1] if _CALLS else None
    if calls is None or not kwargs:
        bound = dict(zip(names, args))
        if kwargs:
            for k in kwargs:
                if k in bound:
                    fail(f"{what}: argument '{k}' given twice", location)
            bound.update(kwargs)
        return bound
    bound = _Bound(zip(names, args))
    bound.what, bound.location, bound.given, bound.read = what, location, tuple(kwargs), set()
    for k, v in kwargs.items():
        if dict.__contains__(bound, k):
            fail(f"{what}: argument '{k}' given twice", location)
        bound[k] = v
    calls.append(bound)
    return bound


def _keywords_checked(fn):
    """Wraps a public nisa call: after it, every keyword argument it was given must have
    been looked at (_Bound), else an NkiError at the kernel's line names the call and the
    keyword. Checked once per form of call (_KEYWORDS_READ)."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not kwargs:
            return fn(*args)
        form = (fn, len(args), *kwargs)
        known = form in _KEYWORDS_READ
        _CALLS.append(None if known else [])
        try:
            result = fn(*args, **kwargs)
        finally:
            made = _CALLS.pop()
        if known:
            return result
        for bound in made:
            unread = [k for k in bound.given if k not in bound.read and k not in _IGNORED_KEYWORDS]
            if unread:
                fail(f"{bound.what}: unexpected keyword argument{'s' if len(unread) > 1 else ''} "
                     f"{', '.join(repr(k) for k in unread)} (not a parameter of its NKI page, "
                     f"or one neuronsim does not take: docs/python.md)", bound.location)
        _KEYWORDS_READ.add(form)
        return result

    return call


def _leading_tensors(args):
    n = 0
    for a in args:
        if not isinstance(a, (Tensor, IndirectRows)):
            break
        n += 1
    return n


def _tile(x, role, location, spaces=("sbuf", "psum")):
    if not isinstance(x, Tensor):
        fail(f"{role} must be a tile, not {type(x).__name__}{operand_hint(x)}", location)
    if x.space not in spaces:
        fail(f"{role} is in {x.space.upper()}; it must be in "
             f"{' or '.join(s.upper() for s in spaces)}" +
             (" (nl.load it first)" if x.space == "hbm" else ""), location)
    return x


def _out(dst, shape, dtype, location, space="sbuf"):
    """The given dst, or a new tile for the returning convention."""
    if dst is not None:
        return _tile(dst, "dst", location)
    name = _core.assigned_name(location)
    t = new_tile(shape, dtype, space, location, name)
    t.returned = True  # a buffer the call chose, not the kernel (see _matmul_operand)
    return t


def _matmul_operand(x, role, location):
    """A Tensor-engine operand in SBUF. A PSUM tile the kernel did not allocate itself (the
    result of a returning call, `nisa.nc_transpose(w)`) is copied to SBUF first, as NKI's
    compiler does for such values (nki-samples' fft1d multiplies nc_transpose results,
    validated on hardware); a PSUM tile the kernel allocated is an error, as on the
    nc_matmul page. One copy per result: later uses read the same SBUF tile."""
    x = _tile(x, role, location)
    if x.space == "sbuf":
        return x
    if not getattr(x, "returned", False):
        fail(f"{role} is in PSUM; the Tensor engine reads SBUF (copy it with "
             f"nisa.tensor_copy or nl.copy first)", location)
    cached = getattr(x, "sbuf_copy", None)
    if cached is not None and cached[0] is x.producer:
        return cached[1]
    copy = new_tile(x.shape, x.dtype, "sbuf", location)
    emit("vector", "tensor_copy", copy, [x], [], location)
    x.sbuf_copy = (x.producer, copy)
    return copy


def _scalar_arg(x, role, location, partitions):
    """An option value: an fp32 immediate (its text) or a [P,1] per-partition tile (its
    view)."""
    if isinstance(x, Tensor):
        _tile(x, role, location)
        if x.partitions() != partitions or x.free_size() != 1:
            fail(f"{role} {list(x.shape)} must be a number or a [{partitions}, 1] tile", location)
        return x.operand()
    try:
        return repr(float(x))
    except (TypeError, ValueError):
        fail(f"{role} must be a number or a [P, 1] tile, not {type(x).__name__}", location)


# The engines that may run each opcode: the C++ opcode table (isa/instruction.hpp), not a copy.
_OPCODE_ENGINES = _cxx.opcode_engines()


def _engine(value, default, opcode, what, location):
    allowed = _OPCODE_ENGINES[opcode]
    e = default if value is None else value
    if e not in allowed:
        fail(f"{what} cannot run on the {e} engine (neuronsim runs it on {', '.join(allowed)})",
             location)
    return e


# Opcodes whose meaning follows the operands' dims, and how many leading operands keep
# them (dst, src): iota and affine_select steps, tensor_reduce's innermost axes.
EXACT_DIMS = {"iota": 1, "affine_select": 2, "tensor_reduce": 2}


def emit(eng, opcode, dst, srcs, options, location, extra_writes=(), queue=None, extra_reads=()):
    tr = _core.trace()
    # One View per operand, shared by the operand list and the reads/writes lists and by
    # the other instructions using the same tensor (Tensor.operand: a view is frozen once
    # made; placement moves it once, for all of them).
    if opcode in EXACT_DIMS:  # views of their own, marked exact
        exact = EXACT_DIMS[opcode]
        tensors = [dst] + [s for s in srcs if s is not None]
        views = [t.new_operand() if k < exact else t.operand() for k, t in enumerate(tensors)]
        for v in views[:exact]:
            v.exact = True
        dv, reads = views[0], views[1:]
    else:
        reads = [s.operand() for s in srcs if s is not None]
        dv = dst.operand()
    writes = [dv] + [w.operand() for w in extra_writes] if extra_writes else [dv]
    operands = [dv] + reads
    instr = Instr(eng, opcode, operands, options, location, writes, reads, queue)
    for key, value in options:
        if isinstance(value, _core.View) and key not in ("reduce", "dst_idx"):  # outputs
            instr.reads.append(value)
    instr.reads += [r.operand() for r in extra_reads]  # read, but not an operand
    _mask.emit(tr, instr)
    dst.producer = instr
    return instr


def _same_shape(a, b, ra, rb, location):
    if a.partitions() != b.partitions() or a.free_size() != b.free_size():
        fail(f"{ra} {list(a.shape)} and {rb} {list(b.shape)} differ in shape", location)


# --- Tensor engine ------------------------------------------------------------------------


def _accumulate(api, a, location):
    """The matmul's accumulate choice: "auto" (NKI's accumulate=None: by PSUM location),
    True or False, from accumulate= or from the current pages' psum_accumulate_flag (the
    Trainium3 guide writes psum_accumulate_flags): bit 0 first of its group, overwriting;
    bit 1 last of its group, accumulating; bit 2 first of its group, accumulating onto what
    dst holds; 0 a middle one (the pages' nc_matmul and nc_matmul_mx, "Memory types").
    neuronsim forms the groups from the PSUM accesses (_lower.assign_matmul_groups), so
    what the flag decides is whether this matmul reads dst: it overwrites only with bit 0."""
    acc = a.get("accumulate")
    flags = [k for k in ("psum_accumulate_flag", "psum_accumulate_flags") if k in a]
    if not flags:
        return "auto" if acc is None else bool(acc)
    if acc is not None or len(flags) > 1:
        fail(f"{api}: give one of accumulate= and psum_accumulate_flag=", location)
    flag = a[flags[0]]
    if isinstance(flag, bool) or not isinstance(flag, int) or not 0 <= flag <= 7:
        fail(f"{api}: {flags[0]} {flag!r} is not a 3-bit flag (bit 0 first and overwrite, "
             f"bit 1 last, bit 2 first and accumulate)", location)
    if flag & 1 and flag & 4:
        fail(f"{api}: {flags[0]} {flag}: bit 0 (overwrite dst) and bit 2 (accumulate onto "
             f"dst) contradict each other", location)
    return not flag & 1


def nc_matmul(*args, **kwargs):
    """dst[M,N] (PSUM, fp32) = stationary[K,M].T @ moving[K,N]. accumulate=None (NKI's
    default) starts an accumulation group with the first matmul into a PSUM tile and adds
    the following matmuls into the same tile until something else touches it."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    names = ["dst", "stationary", "moving"] if new else ["stationary", "moving"]
    a = _bind(args, kwargs, names, location, "nc_matmul")
    st = _matmul_operand(a.get("stationary"), "stationary", location)
    mv = _matmul_operand(a.get("moving"), "moving", location)
    mode = a.get("perf_mode")
    if mode not in _PERF_MODES:
        fail(f"nc_matmul: perf_mode {mode!r} is not a matmul_perf_mode (none, double_row)",
             location)
    mode = _PERF_MODES[mode]
    _pe_tiling("nc_matmul", a, st, location, double_row=mode == "double_row")
    check_mask(a.get("mask"), location)
    if a.get("is_transpose"):
        if mode != "none":
            fail("nc_matmul: perf_mode double_row cannot be combined with is_transpose "
                 "(Trainium2 architecture guide, Double FP8 Matmul Performance)", location)
        return _transpose_mode(a, st, mv, location)
    rows = 1
    if mode == "double_row":
        # Trainium2 architecture guide, "Double FP8 Matmul Performance": stationary
        # [K, 2, M], moving [K, 2, N], "the second dimension (the most major free
        # dimension) of both input tensors must be two"; dst [M, N].
        for role, t in (("stationary", st), ("moving", mv)):
            if len(t.shape) != 3 or t.shape[1] != 2:
                fail(f"nc_matmul: perf_mode double_row needs {role} shaped [K, 2, F] (its most "
                     f"major free dimension two), not {list(t.shape)}", location)
        rows = 2
    dst = _out(a.get("dst"), (st.free_size() // rows, mv.free_size() // rows), FLOAT32,
               location, "psum")
    if dst.space != "psum":
        fail("nc_matmul writes PSUM: dst must be an nl.psum tile", location)
    options = [("perf_mode", "double_row")] if mode == "double_row" else []
    acc = _accumulate("nc_matmul", a, location)
    instr = emit("tensor", "matmul", dst, [st, mv], options, location)
    instr.acc = acc
    return dst


def _transpose_mode(a, st, mv, location):
    """nc_matmul(is_transpose=True): the Tensor engine's transpose mode, stationary [P, F]
    through the array against an identity moving [P, P] (NKI page nc_transpose: "equivalent
    to calling nisa.nc_matmul directly with is_transpose=True"): dst [F, P] = stationary.T,
    bit-accurate, in stationary's dtype or fp32. The moving tile is read (it orders the
    instruction after whatever made it) but its values are taken to be the identity the
    page prescribes: the trace cannot see data."""
    if a.get("accumulate"):
        fail("nc_matmul: is_transpose=True does not accumulate", location)
    p = st.partitions()
    if mv.partitions() != p or mv.free_size() != p:
        fail(f"nc_matmul: is_transpose=True needs moving to be the [{p}, {p}] identity "
             f"(stationary has {p} partitions), not {list(mv.shape)}", location)
    dst = _out(a.get("dst"), (st.free_size(), p), st.dtype, location, "psum")
    if dst.space != "psum":
        fail("nc_matmul writes PSUM: dst must be an nl.psum tile", location)
    emit("tensor", "transpose", dst, [st], [], location, extra_reads=[mv])
    return dst


def nc_transpose(*args, **kwargs):
    """dst[F,P] = data[P,F].T, on the Tensor engine (to PSUM, up to 128x128) by default
    or the Vector engine (up to 32x32, engine=nisa.vector_engine)."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "data", "engine"] if new else ["data", "engine"], location,
              "nc_transpose")
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)  # H2: masks
    eng = _engine(a.get("engine"), "tensor", "transpose", "nc_transpose", location)
    space = "psum" if eng == "tensor" else "sbuf"
    dst = _out(a.get("dst"), (data.free_size(), data.partitions()), data.dtype, location, space)
    emit(eng, "transpose", dst, [data], [], location)
    return dst


# --- Scalar engine ------------------------------------------------------------------------


def activation(*args, **kwargs):
    """dst = op(data * scale + bias), on the Scalar engine; reduce_res (with reduce_op
    nl.add) receives the sum along the free axis of the results."""
    location = user_location()
    new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
    names = (["dst", "op", "data", "bias", "scale", "reduce_op", "reduce_res", "reduce_cmd"] if new
             else ["op", "data", "bias", "scale", "reduce_op", "reduce_res", "reduce_cmd"])
    a = _bind(args, kwargs, names, location, "activation")
    return _activation(a, location)


def activation_reduce(*args, **kwargs):
    """activation with its add-reduction into reduce_res (NKI's older spelling)."""
    location = user_location()
    new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
    names = (["dst", "op", "data", "reduce_op", "reduce_res", "bias", "scale"] if new
             else ["op", "data", "reduce_op", "reduce_res", "bias", "scale"])
    a = _bind(args, kwargs, names, location, "activation_reduce")
    return _activation(a, location)


def _activation(a, location):
    data = _tile(a.get("data"), "data", location)
    func = act_func(a.get("op"), location)
    check_mask(a.get("mask"), location)
    _engine(a.get("engine"), "scalar", "activation", "activation", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), data.shape, dtype, location)
    _same_shape(dst, data, "dst", "data", location)
    options = [("func", func)]
    scale = _scalar_arg(a.get("scale", 1.0), "scale", location, data.partitions())
    if scale != "1.0":
        options.append(("scale", scale))
    bias = a.get("bias")
    if bias is not None:
        if not isinstance(bias, Tensor):
            bias = constant_tile(float(bias), data.partitions(), location)
        bias_view = _scalar_arg(bias, "bias", location, data.partitions())
        options.append(("bias", bias_view))
    extra = []
    res = a.get("reduce_res")
    if res is not None:
        if a.get("reduce_op") is not None and alu_op(a["reduce_op"], location) != "add":
            fail("the Scalar engine's activation reduction only adds (reduce_op=nl.add)", location)
        cmd = a.get("reduce_cmd")
        if cmd not in (None, "idle", "reset_reduce"):
            fail(f"reduce_cmd {cmd} is not supported: neuronsim's activation writes the "
                 "reduction of this instruction alone (reset_reduce)", location)
        res = _tile(res, "reduce_res", location)
        options.append(("reduce", res.operand()))
        extra.append(res)
    emit("scalar", "activation", dst, [data], options, location, extra)
    return dst


def constant_tile(value, partitions, location):
    """A [P,1] fp32 tile holding `value`, made once per kernel by a memset (an activation's
    bias is a per-partition vector in neuronsim)."""
    tr = _core.trace()
    key = (value, partitions)
    if key not in tr.constants:
        t = new_tile((partitions, 1), FLOAT32, "sbuf", location, "const")
        emit("vector", "memset", t, [], [("value", repr(float(value)))], location)
        tr.constants[key] = t
    return tr.constants[key]


def partition_broadcast(src, partitions, location):
    """A new [partitions, free...] SBUF tile with every partition a copy of the
    one-partition tile src: ones[1, P].T @ src through the Tensor engine into PSUM
    (fp32), copied back to SBUF by the Vector engine, 512 elements (one PSUM bank) at a
    time."""
    if src.space != "sbuf":
        fail("only an SBUF tile can broadcast its partition dimension", location)
    if src.strides[1:] != tuple(_row_major(src.shape[1:])):
        fail("a partition broadcast needs a contiguous tile (its free dimensions in order)",
             location)
    if partitions > _core.PARTITIONS:
        fail(f"cannot broadcast to {partitions} partitions (at most {_core.PARTITIONS})", location)
    tr = _core.trace()
    key = ("ones", partitions, src.dtype.asm)
    if key not in tr.constants:
        ones = new_tile((1, partitions), src.dtype, "sbuf", location, "ones")
        emit("vector", "memset", ones, [], [("value", "1.0")], location)
        tr.constants[key] = ones
    ones = tr.constants[key]
    free = src.free_size()
    out = new_tile((partitions,) + src.shape[1:], src.dtype, "sbuf", location,
                   _core.assigned_name(location))
    flat_src = src.reshape((1, free)) if src.ndim != 2 else src
    flat_out = out.reshape((partitions, free)) if out.ndim != 2 else out
    for c in range(0, free, 512):
        n = min(512, free - c)
        acc = new_tile((partitions, n), FLOAT32, "psum", location, "bcast")
        mm = emit("tensor", "matmul", acc, [ones, flat_src[:, c:c + n]], [], location)
        mm.acc = False
        emit("vector", "tensor_copy", flat_out[:, c:c + n], [acc], [], location)
    return out


# --- Vector / GpSimd engines --------------------------------------------------------------


def tensor_tensor(*args, **kwargs):
    """dst = data1 op data2, elementwise; Vector by default, GpSimd with engine=."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    names = ["dst", "data1", "data2", "op", "engine"] if new else ["data1", "data2", "op", "engine"]
    a = _bind(args, kwargs, names, location, "tensor_tensor")
    d1 = _tile(a.get("data1"), "data1", location)
    d2 = _tile(a.get("data2"), "data2", location)
    _same_shape(d1, d2, "data1", "data2", location)
    op = alu_op(a.get("op"), location)
    check_mask(a.get("mask"), location)
    eng = _engine(a.get("engine"), "gpsimd" if op == "pow" else "vector", "tensor_tensor",
                  "tensor_tensor", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else _promote(d1, d2)
    dst = _out(a.get("dst"), d1.shape, dtype, location)
    _same_shape(dst, d1, "dst", "data1", location)
    emit(eng, "tensor_tensor", dst, [d1, d2], [("op", op)], location)
    return dst


def _promote(a, b):
    if a.dtype is FLOAT32 or b.dtype is FLOAT32:
        return FLOAT32
    return a.dtype


def tensor_scalar(*args, **kwargs):
    """dst = (data op0 operand0) op1 operand1, operands numbers or [P,1] tiles; Vector by
    default, Scalar (multiply/add pairs only) or GpSimd with engine=."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    names = ["data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1", "engine"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "tensor_scalar")
    return _tensor_scalar(a, location)


def tensor_scalar_reduce(*args, **kwargs):
    """tensor_scalar with a reduction of the results into reduce_res ([P,1])."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    names = ["data", "op0", "operand0", "reduce_op", "reduce_res", "reverse0"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "tensor_scalar_reduce")
    return _tensor_scalar(a, location)


def _tensor_scalar(a, location):
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)
    eng = _engine(a.get("engine"), "vector", "tensor_scalar", "tensor_scalar", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), data.shape, dtype, location)
    _same_shape(dst, data, "dst", "data", location)
    arg0 = _scalar_arg(a.get("operand0"), "operand0", location, data.partitions())
    options = [("op0", alu_op(a.get("op0"), location)), ("arg0", arg0)]
    if a.get("reverse0"):
        options.append(("reverse0", "true"))
    if a.get("op1") is not None:
        arg1 = _scalar_arg(a.get("operand1"), "operand1", location, data.partitions())
        options += [("op1", alu_op(a["op1"], location)), ("arg1", arg1)]
        if a.get("reverse1"):
            options.append(("reverse1", "true"))
    extra = []
    if a.get("reduce_res") is not None:
        res = _tile(a["reduce_res"], "reduce_res", location)
        options.append(("reduce", res.operand()))
        options.append(("reduce_op", alu_op(a.get("reduce_op", "add"), location)))
        extra.append(res)
    emit(eng, "tensor_scalar", dst, [data], options, location, extra)
    return dst


def scalar_tensor_tensor(*args, **kwargs):
    """dst = (data op0 operand0) op1 operand1; operand0 a number or [P,1] tile, operand1
    a tile of data's shape. Vector engine."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    names = ["data", "op0", "operand0", "op1", "operand1"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "scalar_tensor_tensor")
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)  # H2: masks
    other = _tile(a.get("operand1"), "operand1", location)
    _same_shape(data, other, "data", "operand1", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), data.shape, dtype, location)
    scalar = _scalar_arg(a.get("operand0"), "operand0", location, data.partitions())
    emit("vector", "scalar_tensor_tensor", dst, [data, other],
         [("scalar", scalar), ("op0", alu_op(a.get("op0"), location)),
          ("op1", alu_op(a.get("op1"), location))], location)
    return dst


def tensor_tensor_scan(*args, **kwargs):
    """A scan along the free dims of data0 and data1 (NKI's nisa.tensor_tensor_scan): per
    partition r = (data0[i] op0 r) op1 data1[i] from r = initial (a number or a [P,1]
    tile), dst[i] = r; reverse0 / reverse1 swap the operands of op0 / op1. Vector engine."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    names = ["data0", "data1", "initial", "op0", "op1", "reverse0", "reverse1"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "tensor_tensor_scan")
    d0 = _tile(a.get("data0"), "data0", location)
    d1 = _tile(a.get("data1"), "data1", location)
    _same_shape(d0, d1, "data0", "data1", location)
    check_mask(a.get("mask"), location)
    # NKI: without dtype, the output has the higher-precision dtype of data0 and data1.
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else _promote(d0, d1)
    dst = _out(a.get("dst"), d0.shape, dtype, location)
    _same_shape(dst, d0, "dst", "data0", location)
    initial = _scalar_arg(a.get("initial"), "initial", location, d0.partitions())
    options = [("initial", initial), ("op0", alu_op(a.get("op0"), location)),
               ("op1", alu_op(a.get("op1"), location))]
    for flag in ("reverse0", "reverse1"):
        if a.get(flag):
            options.append((flag, "true"))
    emit("vector", "tensor_tensor_scan", dst, [d0, d1], options, location)
    return dst


def _reduce_axes(data, axis, location):
    if axis is None:
        axis = list(range(1, data.ndim))
    if isinstance(axis, int):
        axis = [axis]
    axis = sorted(int(x) if x >= 0 else int(x) + data.ndim for x in axis)
    nd = data.ndim
    if 0 in axis:
        fail("tensor_reduce reduces free axes only; reduce the partition axis with "
             "nisa.tensor_partition_reduce", location)
    if axis != list(range(nd - len(axis), nd)):
        fail(f"axis {axis} must be the innermost free dimensions of a {nd}-D tile", location)
    return len(axis)


def tensor_reduce(*args, **kwargs):
    """dst = reduce op over the innermost free axes of data; Vector engine."""
    location = user_location()
    new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
    names = ["op", "data", "axis", "negate", "keepdims"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "tensor_reduce")
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)
    op = alu_op(a.get("op"), location)
    axes = _reduce_axes(data, a.get("axis"), location)
    kept = data.shape[:data.ndim - axes]
    shape = kept + (1,) * axes if a.get("keepdims") else (kept if len(kept) > 1 else kept + (1,))
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), shape, dtype, location)
    # The instruction sees src's dims of size > 1 (View.exact): count the reduced ones.
    axes = sum(1 for n in data.shape[data.ndim - axes:] if n != 1)
    eng = _engine(a.get("engine"), "vector", "tensor_reduce", "tensor_reduce", location)
    if axes == 0:
        # Every reduced axis holds one element (a 1x1 pooling window, say): op over one
        # value is the value, and the instruction would find no axis of its own to reduce.
        if a.get("negate"):
            emit(eng, "tensor_scalar", dst, [data],
                 [("op0", alu_op("multiply", location)),
                  ("arg0", _scalar_arg(-1.0, "operand0", location, data.partitions()))], location)
        else:
            emit(eng, "tensor_copy", dst, [data], [], location)
        return dst
    options = [("op", op)]
    if axes != 1:
        options.append(("axes", str(axes)))
    if a.get("negate"):
        options.append(("negate", "true"))
    emit(eng, "tensor_reduce", dst, [data], options, location)
    return dst


def tensor_copy(*args, **kwargs):
    """dst = src (with a dtype cast); Vector by default, Scalar or GpSimd with engine=."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "src", "engine"] if new else ["src", "engine"], location,
              "tensor_copy")
    src = _tile(a.get("src", a.get("data")), "src", location)
    check_mask(a.get("mask"), location)
    eng = _engine(a.get("engine"), "vector", "tensor_copy", "tensor_copy", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else src.dtype
    dst = _out(a.get("dst"), src.shape, dtype, location)
    _same_shape(dst, src, "dst", "src", location)
    emit(eng, "tensor_copy", dst, [src], [], location)
    return dst


def memset(*args, **kwargs):
    """dst = value everywhere; Vector by default, GpSimd with engine=."""
    location = user_location()
    new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
    a = _bind(args, kwargs, ["dst", "value", "engine"] if new else ["shape", "value", "dtype", "engine"],
              location, "memset")
    eng = _engine(a.get("engine"), "vector", "memset", "memset", location)
    check_mask(a.get("mask"), location)  # H2: masks
    if new:
        dst = _tile(a["dst"], "dst", location)
    else:
        dst = _out(None, a["shape"], to_dtype(a.get("dtype", FLOAT32), location), location)
    emit(eng, "memset", dst, [], [("value", repr(float(a.get("value", 0.0))))], location)
    return dst


def _pattern_steps(pattern, dst, location, what):
    """steps=[...] of an NKI pattern [[step, num], ...] (outermost first), checked against
    dst's free dimensions."""
    pattern = [(int(st), int(n)) for st, n in pattern if int(n) != 1]
    free = [n for n in dst.shape[1:] if n != 1]
    if [n for _, n in pattern] != free:
        fail(f"{what}: pattern sizes {[n for _, n in pattern]} do not match dst's free "
             f"dimensions {list(dst.shape[1:])}", location)
    if len(pattern) > 4:
        fail(f"{what}: at most 4 pattern dimensions", location)
    # The instruction sees dst's dims of size > 1 (View.exact), one step each.
    return "[" + ", ".join(str(st) for st, _ in pattern or [(0, 1)]) + "]"


def _expr_steps(expr, shape, location, what):
    """(base, partition_step, steps text) of an affine index expression over a grid of
    `shape` (axis 0 the partitions)."""
    if expr.ndim != len(shape):
        fail(f"{what}: the index expression has {expr.ndim} axes, the tile {len(shape)}", location)
    for a, n in expr.sizes.items():
        if expr.terms.get(a, 0) and n != shape[a]:
            fail(f"{what}: axis {a} of the index expression has {n} values, the tile {shape[a]}",
                 location)
    # The instruction sees the tile's dims of size > 1 (View.exact), one step each.
    steps = [expr.terms.get(i, 0) for i in range(1, expr.ndim) if shape[i] != 1]
    if len(steps) > 4:
        fail(f"{what}: at most 4 free dimensions", location)
    return expr.const, expr.terms.get(0, 0), "[" + ", ".join(str(v) for v in steps or [0]) + "]"


def iota(*args, **kwargs):
    """dst[p, i...] = offset + p * channel_multiplier + sum i_k * step_k, on GpSimd. NKI's
    current form iota(dst, pattern, offset, channel_multiplier) with pattern [[step, num],
    ...]; or NKI's earlier iota(expr, dtype) with an index expression built from
    nl.arange / nl.mgrid."""
    location = user_location()
    if "pattern" in kwargs or (len(args) >= 2 and isinstance(args[0], Tensor) and
                               isinstance(args[1], (list, tuple))):
        a = _bind(args, kwargs, ["dst", "pattern", "offset", "channel_multiplier"], location, "iota")
        dst = _tile(a.get("dst"), "dst", location)
        steps = _pattern_steps(a["pattern"], dst, location, "iota")
        base, pstep = int(a.get("offset", 0)), int(a.get("channel_multiplier", 0))
    else:
        new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
        a = _bind(args, kwargs, ["dst", "expr"] if new else ["expr", "dtype"], location, "iota")
        expr = a.get("expr")
        check_mask(a.get("mask"), location)  # NKI's earlier iota takes mask= (H2: masks)
        if not isinstance(expr, IndexExpr):
            fail("iota takes an index expression built from nl.arange / nl.mgrid", location)
        shape = tuple(expr.sizes.get(i, 1) for i in range(expr.ndim))
        dst = _out(a.get("dst"), shape, to_dtype(a.get("dtype", "int32"), location), location)
        base, pstep, steps = _expr_steps(expr, dst.shape, location, "iota")
    emit("gpsimd", "iota", dst, [], [("base", str(base)), ("partition_step", str(pstep)),
                                     ("steps", steps)], location)
    return dst


def affine_select(*args, **kwargs):
    """dst = on_true_tile where (offset + p * channel_multiplier + sum i_k * step_k) cmp_op 0,
    else on_false_value; on GpSimd (causal masks). NKI's current form affine_select(dst,
    pattern, offset, channel_multiplier, on_true_tile, on_false_value, cmp_op=nl.equal), or
    the earlier affine_select(pred, on_true_tile, on_false_value) with pred one comparison
    of index expressions (e.g. `i_p >= i_f`)."""
    location = user_location()
    if "pred" in kwargs or (args and not isinstance(args[0], Tensor)):
        a = _bind(args, kwargs, ["pred", "on_true_tile", "on_false_value"], location, "affine_select")
        pred = a.get("pred")
        src = _tile(a.get("on_true_tile"), "on_true_tile", location)
        if getattr(pred, "expr", None) is None:
            fail("affine_select: pred must be one comparison of index expressions "
                 "(nl.arange / nl.mgrid), e.g. i_p >= i_f", location)
        dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else src.dtype
        dst = _out(a.get("dst"), src.shape, dtype, location)
        offset, pstep, steps = _expr_steps(pred.expr, src.shape, location, "affine_select")
        cmp = pred.cmp
    else:
        a = _bind(args, kwargs, ["dst", "pattern", "offset", "channel_multiplier", "on_true_tile",
                                 "on_false_value", "cmp_op"], location, "affine_select")
        dst = _tile(a.get("dst"), "dst", location)
        src = _tile(a.get("on_true_tile"), "on_true_tile", location)
        steps = _pattern_steps(a["pattern"], dst, location, "affine_select")
        offset, pstep = int(a.get("offset", 0)), int(a.get("channel_multiplier", 0))
        cmp = alu_op(a.get("cmp_op", "equal"), location)
    _same_shape(dst, src, "dst", "on_true_tile", location)
    emit("gpsimd", "affine_select", dst, [src],
         [("offset", str(offset)), ("partition_step", str(pstep)), ("steps", steps),
          ("cmp", cmp), ("fill", repr(float(a.get("on_false_value", 0.0))))], location)
    return dst


def select(*args, **kwargs):
    """dst = on_true where predicate != 0 else on_false, elementwise, on Vector (NKI's
    nl.where; the on_false number becomes a memset tile)."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    names = ["predicate", "on_true", "on_false"]
    a = _bind(args, kwargs, (["dst"] + names) if new else names, location, "select")
    return _select(a, location)


def _select(a, location):
    check_mask(a.get("mask"), location)  # H2: masks
    pred = _tile(a.get("predicate"), "predicate", location)
    on_true = a.get("on_true")
    on_false = a.get("on_false")
    shaped = on_true if isinstance(on_true, Tensor) else on_false
    if not isinstance(shaped, Tensor):
        fail("select: on_true or on_false must be a tile", location)
    for role in ("on_true", "on_false"):
        v = a.get(role)
        if not isinstance(v, Tensor):
            t = new_tile(shaped.shape, shaped.dtype, "sbuf", location, role)
            emit("vector", "memset", t, [], [("value", repr(float(v)))], location)
            a[role] = t
    on_true, on_false = _tile(a["on_true"], "on_true", location), _tile(a["on_false"], "on_false", location)
    _same_shape(pred, on_true, "predicate", "on_true", location)
    _same_shape(pred, on_false, "predicate", "on_false", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else on_true.dtype
    dst = _out(a.get("dst"), on_true.shape, dtype, location)
    emit("vector", "select", dst, [pred, on_true, on_false], [], location)
    return dst


def tensor_copy_predicated(*args, **kwargs):
    """dst = src where predicate is true (with reverse_pred, where it is false), dst kept
    elsewhere; src a tile or a number; on the Vector engine. Lowered to neuronsim's select
    with dst as the other operand (select is priced as this page's formula,
    docs/cost-model.md), so the profile names it select. NKI's current form
    tensor_copy_predicated(dst, src, predicate, reverse_pred=False) or the earlier keyword
    form (src=, dst=, predicate=).
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.tensor_copy_predicated.html"""
    location = user_location()
    a = _bind(args, kwargs, ["dst", "src", "predicate", "reverse_pred"], location,
              "tensor_copy_predicated")
    dst = _tile(a.get("dst"), "dst", location)
    pred = _tile(a.get("predicate"), "predicate", location)
    check_mask(a.get("mask"), location)
    if pred.dtype.asm not in ("uint8", "uint16", "uint32"):
        fail(f"tensor_copy_predicated: predicate is {pred.dtype!r}; it must be nl.uint8, "
             "nl.uint16 or nl.uint32", location)
    _same_shape(dst, pred, "dst", "predicate", location)
    src = a.get("src")
    if isinstance(src, Tensor):
        src = _tile(src, "src", location)
        _same_shape(dst, src, "dst", "src", location)
        if src.dtype is not dst.dtype:
            fail(f"tensor_copy_predicated: src is {src.dtype!r} and dst {dst.dtype!r}; they must "
                 "share a dtype", location)
        if src.space == "psum" and pred.space == "psum":
            fail("tensor_copy_predicated: src and predicate are both in PSUM; at most one may be",
                 location)
    elif isinstance(src, (int, float)) and not isinstance(src, bool):
        if isinstance(src, float) and not dst.dtype.is_float:
            fail("tensor_copy_predicated: a float src needs a float dst", location)
        t = new_tile(dst.shape, dst.dtype, "sbuf", location, "src")
        emit("vector", "memset", t, [], [("value", repr(float(src)))], location)
        src = t
    else:
        fail(f"tensor_copy_predicated: src must be a tile or a number, not {type(src).__name__}",
             location)
    on_true, on_false = (dst, src) if a.get("reverse_pred") else (src, dst)
    emit("vector", "select", dst, [pred, on_true, on_false], [], location)
    return dst


def bn_stats(*args, **kwargs):
    """Per-partition (count, mean, variance*count) statistics, 6 values; Vector engine."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "data"] if new else ["data"], location, "bn_stats")
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else FLOAT32
    dst = _out(a.get("dst"), (data.partitions(), 6), dtype, location)
    emit("vector", "bn_stats", dst, [data], [], location)
    return dst


def bn_aggr(*args, **kwargs):
    """Aggregates bn_stats triples into (mean, variance) per partition; Vector engine."""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "data"] if new else ["data"], location, "bn_aggr")
    data = _tile(a.get("data"), "data", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else FLOAT32
    dst = _out(a.get("dst"), (data.partitions(), 2), dtype, location)
    emit("vector", "bn_aggr", dst, [data], [], location)
    return dst


def reciprocal(*args, **kwargs):
    """dst = 1 / data elementwise, in fp32, on the Vector engine (its own instruction, so
    the profile names it `reciprocal`). NKI's current form reciprocal(dst, data) or the
    earlier reciprocal(data, dtype=None, mask=None), which returns a new tile.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.reciprocal.html"""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "data"] if new else ["data"], location, "reciprocal")
    data = _tile(a.get("data"), "data", location)
    check_mask(a.get("mask"), location)
    _engine(a.get("engine"), "vector", "reciprocal", "reciprocal", location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), data.shape, dtype, location)
    _same_shape(dst, data, "dst", "data", location)
    emit("vector", "reciprocal", dst, [data], [], location)
    return dst


# NKI/tensor_partition_reduce: "the reduction operator (add, max, bitwise_or, bitwise_and)";
# the current page adds bitwise_xor (and a mean, which neuronsim's ALU does not have).
_PARTITION_REDUCE_OPS = ("add", "max", "bitwise_and", "bitwise_or", "bitwise_xor")


def tensor_partition_reduce(*args, **kwargs):
    """dst[1, F...] = op over the partitions of data[P, F...], on the GpSimd engine.
    NKI's current form tensor_partition_reduce(dst, op, data) or the earlier
    tensor_partition_reduce(op, data, dtype=None, mask=None), which returns a new tile.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.tensor_partition_reduce.html"""
    location = user_location()
    new = "dst" in kwargs or (args and isinstance(args[0], Tensor))
    names = ["dst", "op", "data"] if new else ["op", "data"]
    a = _bind(args, kwargs, names, location, "tensor_partition_reduce")
    # The GpSimd engine cannot reach PSUM (reference section 3).
    data = _tile(a.get("data"), "data", location, ("sbuf",))
    check_mask(a.get("mask"), location)
    name = _op_name(a.get("op"))
    if name in ("mean", "average"):
        fail(f"tensor_partition_reduce: op {name} is not supported by neuronsim; reduce with "
             "nl.add and scale by 1/P (nisa.tensor_scalar with nl.multiply)", location)
    op = alu_op(a.get("op"), location)
    if op not in _PARTITION_REDUCE_OPS:
        fail(f"tensor_partition_reduce: op {name} is not a partition reduction (use nl.add, "
             "nl.max, nl.bitwise_and, nl.bitwise_or or nl.bitwise_xor)", location)
    _engine(a.get("engine"), "gpsimd", "tensor_partition_reduce", "tensor_partition_reduce",
            location)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(a.get("dst"), (1,) + tuple(data.shape[1:]), dtype, location)
    if dst.space != "sbuf":
        fail("tensor_partition_reduce runs on the GpSimd engine, which cannot write PSUM: dst "
             "must be an SBUF tile", location)
    if dst.partitions() != 1 or dst.free_size() != data.free_size():
        fail(f"tensor_partition_reduce: dst {list(dst.shape)} must have 1 partition and data's "
             f"{data.free_size()} elements per partition", location)
    emit("gpsimd", "tensor_partition_reduce", dst, [data], [("op", op)], location)
    return dst


def set_random_seed(seed, location):
    """The generator state of nl.random_seed(seed) (for language.py): the following dropouts
    draw their masks from `seed` and their order since this call, so reseeding with the same
    value repeats the same masks (NKI random_seed: "Using the same seed will generate the
    same sequence of random numbers"). The seed must be known when the kernel is traced.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.language.random_seed.html"""
    if isinstance(seed, Tensor) or not isinstance(seed, (int,)) or isinstance(seed, bool):
        fail("random_seed: neuronsim takes the seed as a Python integer known when the kernel "
             f"is traced, not {type(seed).__name__} (write nl.random_seed(42))", location)
    tr = _core.trace()
    tr.nisa_rng = [int(seed) & 0xFFFFFFFF, 0]


def _next_dropout_seed():
    """The seed field of the next dropout: (user seed, draw number) mixed into 32 bits and
    read as int32 (the instruction's field). Without nl.random_seed the seed is 0."""
    tr = _core.trace()
    state = getattr(tr, "nisa_rng", None)
    if state is None:
        state = tr.nisa_rng = [0, 0]
    seed, k = state
    state[1] += 1
    mixed = (seed * 0x9E3779B1 + k * 0x85EBCA77 + k) & 0xFFFFFFFF
    return mixed - (1 << 32) if mixed >= 1 << 31 else mixed


def dropout(*args, **kwargs):
    """dst = data with each element replaced by zero with probability prob (a number in
    [0, 1] or a [P,1] tile), on the Vector engine; kept elements keep their values (no
    1/(1-prob) rescaling). The random numbers are neuronsim's deterministic generator
    (docs/numerics.md "dropout"), seeded by nl.random_seed. NKI's current form
    dropout(dst, data, prob) or the earlier dropout(data, prob, dtype=None, mask=None).
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.dropout.html"""
    location = user_location()
    # dropout(data, prob_tile) and dropout(dst, data, prob=...) both start with two tiles:
    # the current form has three arguments in all.
    new = "dst" in kwargs or len(args) >= 3 or (len(args) == 2 and "prob" in kwargs)
    a = _bind(args, kwargs, ["dst", "data", "prob"] if new else ["data", "prob"], location,
              "dropout")
    return dropout_tile(a.get("data"), a.get("prob"), location, dst=a.get("dst"),
                        dtype=a.get("dtype"), mask=a.get("mask"), engine=a.get("engine"))


def dropout_tile(data, prob, location, dst=None, dtype=None, mask=None, engine=None):
    """One dropout instruction (nisa.dropout, and nl.dropout(x, rate) for language.py)."""
    data = _tile(data, "data", location)
    check_mask(mask, location)
    _engine(engine, "vector", "dropout", "dropout", location)
    if isinstance(prob, Tensor):
        _tile(prob, "prob", location)
        if not prob.dtype.is_float:
            fail("dropout: prob must be a float tile (a drop probability)", location)
        if not data.dtype.is_float and prob.dtype is not FLOAT32:
            fail("dropout: with integer data, prob must be an fp32 tile", location)
        if prob.free_size() == 1 and prob.partitions() == 1 and data.partitions() != 1:
            prob = partition_broadcast(prob, data.partitions(), location)
    elif isinstance(prob, (int, float)) and not isinstance(prob, bool):
        if not 0.0 <= float(prob) <= 1.0:
            fail(f"dropout: prob {prob} is not a probability in [0, 1]", location)
    else:
        fail(f"dropout: prob must be a number in [0, 1] or a [P, 1] tile, not "
             f"{type(prob).__name__}", location)
    prob_arg = _scalar_arg(prob, "prob", location, data.partitions())
    dtype = to_dtype(dtype, location) if dtype is not None else data.dtype
    if not data.dtype.is_float and dtype is not data.dtype:
        fail("dropout: the output of integer data keeps its dtype", location)
    dst = _out(dst, data.shape, dtype, location)
    _same_shape(dst, data, "dst", "data", location)
    emit("vector", "dropout", dst, [data], [("prob", prob_arg),
                                           ("seed", str(_next_dropout_seed()))], location)
    return dst


def max8(*args, **kwargs):
    """dst[P, 8] = the 8 largest values of each partition of src, descending, on the Vector
    engine (computed in fp32). NKI's max8(dst, src) or the earlier max8(src=, dtype=).
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.max8.html"""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    a = _bind(args, kwargs, ["dst", "src"] if new else ["src"], location, "max8")
    src = _tile(a.get("src"), "src", location)
    check_mask(a.get("mask"), location)
    _top8_size(src, "max8: src", location, at_least_eight=True)
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else src.dtype
    dst = _out(a.get("dst"), (src.partitions(), 8), dtype, location)
    _eight(dst, "max8: dst", src.partitions(), location)
    emit("vector", "max8", dst, [src], [], location)
    return dst


def nc_find_index8(*args, **kwargs):
    """dst[P, 8] (uint32 by default, or uint16) = the index of the first element of each
    partition of data equal to each of its 8 vals, on the Vector engine; all ones when a
    value is absent. NKI's nc_find_index8(dst, data, vals) or the earlier
    nc_find_index8(data=, vals=, dtype=).
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.nc_find_index8.html"""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    a = _bind(args, kwargs, ["dst", "data", "vals"] if new else ["data", "vals"], location,
              "nc_find_index8")
    data = _tile(a.get("data"), "data", location)
    vals = _tile(a.get("vals"), "vals", location)
    check_mask(a.get("mask"), location)
    _top8_size(data, "nc_find_index8: data", location, at_least_eight=True)
    _eight(vals, "nc_find_index8: vals", data.partitions(), location)
    dtype = to_dtype(a.get("dtype") or "uint32", location)
    dst = _out(a.get("dst"), (data.partitions(), 8), dtype, location)
    if dst.dtype.asm not in ("uint16", "uint32"):
        fail(f"nc_find_index8: dst is {dst.dtype!r}; indices are nl.uint16 or nl.uint32", location)
    _eight(dst, "nc_find_index8: dst", data.partitions(), location)
    emit("vector", "find_index8", dst, [data, vals], [], location)
    return dst


def nc_match_replace8(*args, **kwargs):
    """dst = data with the first occurrence of each of the 8 vals of a partition replaced by
    imm (vals in order; repeated values take successive occurrences), on the Vector engine;
    dst_idx[P, 8] receives the indices. NKI's nc_match_replace8(dst, data, vals, imm,
    dst_idx=None), or the earlier nc_match_replace8(data=, vals=, imm=, dtype=), which
    modifies data in place and returns it.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.nc_match_replace8.html"""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 3
    names = ["dst", "data", "vals", "imm", "dst_idx"] if new else ["data", "vals", "imm"]
    a = _bind(args, kwargs, names, location, "nc_match_replace8")
    data = _tile(a.get("data"), "data", location)
    vals = _tile(a.get("vals"), "vals", location)
    check_mask(a.get("mask"), location)
    _top8_size(data, "nc_match_replace8: data", location, at_least_eight=False)
    _eight(vals, "nc_match_replace8: vals", data.partitions(), location)
    try:
        imm = float(a.get("imm"))
    except (TypeError, ValueError):
        fail("nc_match_replace8: imm must be a number (the fp32 constant that replaces the "
             "matched values)", location)
    dst = a.get("dst")
    if dst is None and (a.get("dtype") is None or to_dtype(a["dtype"], location) is data.dtype):
        dst = data  # the earlier form: "an in-place modification of the data tensor"
    dtype = to_dtype(a["dtype"], location) if a.get("dtype") is not None else data.dtype
    dst = _out(dst, data.shape, dtype, location)
    _same_shape(dst, data, "dst", "data", location)
    options = [("imm", repr(imm))]
    extra = []
    idx = a.get("dst_idx")
    if idx is not None:
        idx = _tile(idx, "dst_idx", location)
        _eight(idx, "nc_match_replace8: dst_idx", data.partitions(), location)
        if idx.dtype.asm not in ("uint16", "uint32"):
            fail(f"nc_match_replace8: dst_idx is {idx.dtype!r}; indices are nl.uint16 or "
                 "nl.uint32", location)
        options.append(("dst_idx", idx.operand()))
        extra.append(idx)
    emit("vector", "match_replace8", dst, [data, vals], options, location, extra)
    return dst


def _top8_size(t, what, location, at_least_eight):
    """The pages' bound on the data of max8 / nc_find_index8 / nc_match_replace8."""
    n = t.free_size()
    if n > 16384 or (at_least_eight and n < 8):
        fail(f"{what} has {n} elements per partition; "
             f"{'between 8 and 16384' if at_least_eight else 'at most 16384'} are allowed",
             location)


def _eight(t, what, partitions, location):
    if t.partitions() != partitions or t.free_size() != 8:
        fail(f"{what} {list(t.shape)} must be [{partitions}, 8]", location)


class nc_version(enum.IntEnum):
    """NKI's NeuronCore versions (nki.isa.nc_version): gen2 Trn1/Inf2, gen3 Trn2, gen4 Trn3.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.nc_version.html"""

    gen2 = 2
    gen3 = 3
    gen4 = 4


# neuronsim's targets by generation (docs/config.md: trn1 NeuronCore-v2, trn2 v3, trn3 v4).
_NC_VERSION_OF_TARGET = {"trn1": nc_version.gen2, "trn2": nc_version.gen3,
                         "trn3": nc_version.gen4}


def get_nc_version():
    """The nc_version of the target being traced ("Returns the nc_version of the current
    target context").
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.get_nc_version.html"""
    location = user_location()
    target = _core.trace().target
    version = _NC_VERSION_OF_TARGET.get(target)
    if version is None:
        fail(f"get_nc_version: target {target!r} has no NKI nc_version", location)
    return version


# --- DMA ----------------------------------------------------------------------------------


# NKI's DGE pages: https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.dge_mode.html
# and the DGE reference https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/deep-dives/nki-dge.html
_DGE_NAMES = ", ".join(f"nisa.dge_mode.{m.name}" for m in dge_mode)
_ALL_DGE_MODES = tuple(dge_mode)  # made once: iterating an Enum per dma_copy call is slow


def _dge_mode(mode, allowed, location, what, why):
    """The dge_mode a DMA call was given (None: unknown, the pages' default), checked: a
    nisa.dge_mode member, one of `allowed` for this call (`why` says which page rule), and
    hwdge only on NeuronCore-v3 or newer ("Hardware based DGE is only supported for
    NeuronCore-v3 or newer", the dma_copy and dma_transpose pages)."""
    if mode is None:
        return dge_mode.unknown
    if not isinstance(mode, dge_mode):
        fail(f"{what}: dge_mode {mode!r} is not a nisa.dge_mode (one of {_DGE_NAMES})", location)
    if mode not in allowed:
        fail(f"{what}: dge_mode {mode!r} is not allowed here ({why}): use "
             f"{' or '.join(repr(m) for m in allowed)}", location)
    if mode is dge_mode.hwdge:
        target = _core.trace().target
        version = _NC_VERSION_OF_TARGET.get(target)
        if version is None or version < nc_version.gen3:
            fail(f"{what}: dge_mode nisa.dge_mode.hwdge needs NeuronCore-v3 or newer (trn2, "
                 f"trn3: \"Hardware based DGE is only supported for NeuronCore-v3 or newer\"); "
                 f"target {target} has no hardware DGE: leave dge_mode unknown", location)
    return mode


# Who issues a direct DMA, by dge_mode (the dma_copy page): "swdge: Gpsimd Engine generates
# DMA descriptors as part of the nisa.dma_copy instruction", so GpSimd runs it (and spends
# the target's dma.swdge_descriptor_ns on it); "hwdge: Sync Engine or Scalar Engine
# sequencers invoke DGE hardware block", engine= picking which (Sync when unknown); none and
# unknown (the compiler's choice, which neuronsim makes as the Sync engine) go to Sync. An
# indirect copy is software DGE, so GpSimd (indirect_dma). The DMA model takes the
# descriptors' source from the issuer (engines/dma_descriptors.hpp), and the lowering lets
# any engine's DMA finish after the instructions its engine runs next
# (_core.nki_plan). none marks the copy prebuilt_descriptors, so no DGE is timed for it.
def _dma_issuer(mode, eng):
    if mode is dge_mode.swdge:
        return "gpsimd"
    if mode is dge_mode.hwdge and eng == engine.scalar:
        return "scalar"
    return "sync"


def dma_copy(*args, **kwargs):
    """dst = src by DMA (HBM <-> SBUF, SBUF <-> SBUF), issued by the engine its dge_mode
    names (_dma_issuer); dst_rmw_op=nl.add adds src into dst. dge_mode= (nisa.dge_mode) is
    checked against the pages' rules: hwdge only on NeuronCore-v3+, engine=
    (nisa.engine.sync or .scalar) only with hwdge, an indirect copy (a gather or scatter,
    issued by GpSimd: software DGE) only with unknown or swdge, priority= not with none.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.dma_copy.html
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/deep-dives/nki-dge.html"""
    location = user_location()
    a = _bind(args, kwargs, ["dst", "src", "dst_rmw_op"], location, "dma_copy")
    dst, src = a.get("dst"), a.get("src")
    if "oob_mode" in a and "mode" in a:
        fail("dma_copy: oob_mode given twice (oob_mode= and the earlier page's mode=)", location)
    # NKI/dma_copy: out-of-bound checking applies to the dynamic (DGE) modes; a direct
    # transfer's pattern is checked here, at trace time, so its oob_mode changes nothing.
    skip = _oob_skip(a.get("oob_mode", a.get("mode")), location, "dma_copy")
    indirect = isinstance(dst, IndirectRows) or isinstance(src, IndirectRows)
    if indirect:
        # The DGE reference: swdge "is the only mode that supports indirect (gather/scatter)
        # operations"; hwdge "does not support indirect"; none "cannot handle dynamic
        # (runtime-computed) addresses or indices"; .ap() with vector_offset: unknown or swdge.
        mode = _dge_mode(a.get("dge_mode"), (dge_mode.unknown, dge_mode.swdge), location,
                         "dma_copy", "an indirect gather or scatter is software DGE only, the "
                         "DGE reference")
    else:
        mode = _dge_mode(a.get("dge_mode"), _ALL_DGE_MODES, location, "dma_copy", "")
    _dma_copy_engine(a.get("engine"), mode, location)
    _dma_priority(a.get("priority"), mode, location)
    if indirect:
        check_mask(a.get("mask"), location)
        return indirect_dma(dst, src, location, a.get("dst_rmw_op"), skip)
    for role, t in (("dst", dst), ("src", src)):
        if not isinstance(t, Tensor):
            fail(f"dma_copy: {role} must be a tensor{operand_hint(t)}", location)
        if t.space == "psum":
            fail(f"dma_copy: {role} is in PSUM, which DMA cannot reach (tensor_copy it to SBUF)",
                 location)
    check_mask(a.get("mask"), location)
    if dst.free_size() * dst.partitions() != src.free_size() * src.partitions():
        fail(f"dma_copy: dst {list(dst.shape)} and src {list(src.shape)} differ in size", location)
    return _dma(dst, src, location, a.get("dst_rmw_op"), _dma_issuer(mode, a.get("engine")),
                prebuilt=mode is dge_mode.none)


def _dma_copy_engine(eng, mode, location):
    """dma_copy's engine=: "the engine to use for HWDGE descriptor generation:
    nki.isa.engine.sync or nki.isa.engine.scalar. Only valid when
    dge_mode=nisa.dge_mode.hwdge" (the dma_copy page). Checked here; _dma_issuer uses it."""
    if eng is None:
        return
    if mode is not dge_mode.hwdge:
        fail(f"dma_copy: engine={eng!r} is only valid with dge_mode=nisa.dge_mode.hwdge (it picks "
             f"the sequencer that triggers the hardware DGE; the dma_copy page); dge_mode is "
             f"{mode!r}: drop engine= or pass dge_mode=nisa.dge_mode.hwdge", location)
    if eng not in (engine.sync, engine.scalar):
        fail(f"dma_copy: with dge_mode=nisa.dge_mode.hwdge, engine= is nisa.engine.sync or "
             f"nisa.engine.scalar (the sequencers that trigger the hardware DGE), not {eng!r}",
             location)


def _dma_priority(priority, mode, location):
    """dma_copy's priority=: "DMA quality-of-service priority level 0-3 where lower is
    higher priority (NeuronCore-v4+ only). Currently not supported when DGE is turned off
    (dge_mode=nki.isa.dge_mode.none)" (the dma_copy page). Checked; neuronsim's DMA queues
    have no QoS levels, so a valid priority changes nothing."""
    if priority is None:
        return
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 3:
        fail(f"dma_copy: priority {priority!r} is not a level 0-3", location)
    if mode is dge_mode.none:
        fail("dma_copy: priority= is not supported with dge_mode=nisa.dge_mode.none (the dma_copy "
             "page); drop one of them", location)
    target = _core.trace().target
    version = _NC_VERSION_OF_TARGET.get(target)
    if version is None or version < nc_version.gen4:
        fail(f"dma_copy: priority= needs NeuronCore-v4 or newer (trn3; the dma_copy page); "
             f"target {target} has none", location)


def _dma(dst, src, location, rmw=None, issuer="sync", prebuilt=False):
    queue = "_load" if src.space == "hbm" and dst.space != "hbm" else (
        "_store" if dst.space == "hbm" and src.space != "hbm" else "_copy")
    options = [("queue", queue)]
    if rmw is not None:
        if alu_op(rmw, location) != "add":
            fail("dma_copy: dst_rmw_op must be nl.add (neuronsim's DMA accumulates by adding)",
                 location)
        options.append(("accumulate", "true"))
    if prebuilt:  # dge_mode none: the host's descriptors, no DGE at run time
        options.append(("prebuilt_descriptors", "true"))
    instr = emit(issuer, "dma_copy", dst, [src], options, location, queue=queue)
    if rmw is not None:
        instr.reads.append(dst.operand())
    return dst


def indirect_dma(dst, src, location, rmw=None, skip=False):
    """A gather (src an IndirectRows, t[idx, ...]) or scatter (dst one) as one dma_copy
    with src_index / dst_index, issued by GpSimd: NKI/dma_copy, "When sw_dge is selected,
    nisa.dma_copy can also perform a gather or scatter operation, using a list of dynamic
    indices from SBUF" (software DGE runs on GpSimd). The indices are read when the
    transfer runs, so the DMA waits for the instruction that wrote them (it is one of the
    transfer's reads); an index outside the tensor's rows fails the launch, or with skip
    (oob_mode.skip) moves nothing for its row."""
    gather = isinstance(src, IndirectRows)
    if gather and isinstance(dst, IndirectRows):
        fail("dma_copy: dst and src are both indexed by a runtime index; index one side",
             location)
    rows, tile = (src, dst) if gather else (dst, src)
    if rows.copy_error:
        fail(f"dma_copy: {rows.copy_error}", location)
    if not isinstance(tile, Tensor) or tile.space != "sbuf":
        fail(f"dma_copy: an indirect {'gather' if gather else 'scatter'} moves rows "
             f"{'into' if gather else 'from'} an SBUF tile", location)
    if tile.partitions() != rows.partitions() or tile.free_size() != rows.free_size():
        fail(f"dma_copy: {'dst' if gather else 'src'} {list(tile.shape)} is not the "
             f"{list(rows.shape)} of the indexed rows (one row per index)", location)
    options = [("queue", "_load" if gather else "_store")]
    if rmw is not None:
        if alu_op(rmw, location) != "add":
            fail("dma_copy: dst_rmw_op must be nl.add (neuronsim's DMA accumulates by adding)",
                 location)
        options.append(("accumulate", "true"))
    if skip:
        if rmw is not None:
            # NKI/dma_copy: "If dst_rmw_op is specified, only oob_mode=oob_mode.error is
            # allowed."
            fail("dma_copy: with dst_rmw_op only oob_mode=nisa.oob_mode.error is allowed "
                 "(the dma_copy page)", location)
        options.append(("oob_skip", "true"))
    options.append(("src_index" if gather else "dst_index", rows.index.operand()))
    if gather:
        instr = emit("gpsimd", "dma_copy", tile, [rows.table], options, location,
                     queue=options[0][1])
    else:
        instr = emit("gpsimd", "dma_copy", rows.table, [tile], options, location,
                     queue=options[0][1])
        if rmw is not None:
            instr.reads.append(rows.table.operand())
    return tile if gather else rows.table


# NKI/dma_transpose: "For 2-d input tile, the permutation will be [1, 0]; for 3-d ... [2, 1,
# 0]; for 4-d ... [3, 1, 2, 0]"; axes may name the same permutation.
_DMA_TRANSPOSE_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


def dma_transpose(*args, **kwargs):
    """dst = src transposed (axes (1, 0), (2, 1, 0) or (3, 1, 2, 0)) by DMA, issued by the
    Sync engine. NKI's current form dma_transpose(dst, src, axes=None, dge_mode=...) or the
    earlier dma_transpose(src, axes=None, dtype=None, mask=None), which returns a new SBUF
    tile. dge_mode is nisa.dge_mode.unknown (the default) or hwdge, whose rules are
    enforced (_hwdge_transpose_rules); both lower the same way here. A 2-D transpose of a
    2-byte dtype without a cast, on a target whose DMA engines transpose (trn2, trn3), is
    one dma_copy with transpose=true: the hardware's DMA
    transpose (from HBM or SBUF into SBUF). Anything else lowers to plain dma_copy: from
    HBM one DMA whose source pattern walks src in the transposed order (element-sized
    runs, so the DMA model's small-row efficiency prices it); from SBUF (2-D) a store to an
    HBM scratch tensor, then that DMA.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.dma_transpose.html"""
    location = user_location()
    new = "dst" in kwargs or _leading_tensors(args) >= 2
    names = ["dst", "src", "axes", "dge_mode"] if new else ["src", "axes"]
    a = _bind(args, kwargs, names, location, "dma_transpose")
    check_mask(a.get("mask"), location)
    src = a.get("src")
    if isinstance(a.get("dst"), IndirectRows):
        fail("dma_transpose: dst is indexed by a runtime index; the indirect transpose gathers "
             "(index src, the page's vector_offset on src) and a scatter does not transpose: "
             "transpose into an SBUF tile, then scatter it with nisa.dma_copy", location)
    if isinstance(src, IndirectRows):
        # "DMA Indirect Transpose Constraints: The only valid dge_modes are unknown and swdge."
        _dge_mode(a.get("dge_mode"), (dge_mode.unknown, dge_mode.swdge), location,
                  "dma_transpose", "an indirect transpose takes unknown or swdge, the "
                  "dma_transpose page; hwdge is its direct form")
        skip = _oob_skip(a.get("oob_mode"), location, "dma_transpose")
        return indirect_transpose(src, location, dst=a.get("dst"), axes=a.get("axes"),
                                  dtype=a.get("dtype"), skip=skip)
    _oob_skip(a.get("oob_mode"), location, "dma_transpose")  # a direct transfer: no effect
    # "DMA Direct Transpose Constraints: The only valid dge_modes are unknown and hwdge."
    mode = _dge_mode(a.get("dge_mode"), (dge_mode.unknown, dge_mode.hwdge), location,
                     "dma_transpose", "a direct transpose takes unknown or hwdge, the "
                     "dma_transpose page; swdge is its indirect form")
    if mode is dge_mode.hwdge:
        _hwdge_transpose_rules(src, location)
    return dma_transpose_tile(src, location, dst=a.get("dst"), axes=a.get("axes"),
                              dtype=a.get("dtype"))


def _check_transpose_axes(axes, perm, location):
    """axes=, if given, is the permutation NKI's rules give a tile of len(perm) dims."""
    if axes is None:
        return
    try:
        given = tuple(int(x) for x in axes)
    except (TypeError, ValueError):
        given = None
    if given != perm:
        fail(f"dma_transpose: axes {axes!r} is not the permutation of a {len(perm)}-D tile "
             f"({perm}; NKI supports (1, 0), (2, 1, 0) and (3, 1, 2, 0))", location)


_INDIRECT_TRANSPOSE_PAGE = "the dma_transpose page's DMA Indirect Transpose Constraints"


def indirect_transpose(rows, location, dst=None, axes=None, dtype=None, skip=False):
    """nisa.dma_transpose of rows picked by an SBUF index tile (src = data[idx_tile, :] or
    data.ap(pattern, vector_offset=idx_tile, indirect_dim=0)): the page's "DMA Indirect
    Transpose" (dma_gather_transpose, software DGE), which "effectively performs
    flat_indices = indices.T.flatten()[:src.shape[0]]; gathered = src[flat_indices, :];
    dst = gathered.T". Each of the page's twelve constraints is checked here, in its order
    (12, the target, first). Lowered to one GpSimd-issued dma_copy with src_index and
    transpose=true per index column (at most 128 rows each) and per slice of a 3-/4-D
    src's middle dimensions: a gather whose rows land as dst's columns, priced by the DMA
    model as a transposing transfer (its transpose efficiency) with software DGE's
    descriptors. oob_mode.skip skips rows whose index is out of range (dst's column keeps
    what it held). https://awsdocs-neuron.readthedocs-hosted.com/en/v2.30.0/nki/api/generated/nki.isa.dma_transpose.html"""
    what = "dma_transpose: an indirect transpose (dma_gather_transpose)"
    page = _INDIRECT_TRANSPOSE_PAGE
    target = _core.trace().target
    version = _NC_VERSION_OF_TARGET.get(target)
    if version is None or version < nc_version.gen3:  # 12
        fail(f"{what} is TRN2+ only (rule 12 of {page}); target {target} is not: gather the "
             f"rows with nisa.dma_copy(dst=tile, src=data[idx_tile, :]), then transpose the "
             f"tile with nisa.nc_transpose", location)
    table, idx = rows.table, rows.index
    shape = list(rows.shape)
    n = shape[0]
    perm = _DMA_TRANSPOSE_AXES.get(rows.ndim)
    if perm is None:
        fail(f"{what}: src has {rows.ndim} dimensions; NKI transposes 2-, 3- and 4-D tiles",
             location)
    _check_transpose_axes(axes, perm, location)
    if rows.ndim == 4 and shape[1] != 1 and shape[2] != 1:  # 1
        fail(f"{what}: when src is 4D, src.shape[1] or src.shape[2] must be 1 (rule 1 of "
             f"{page}); src is {shape}: index one of them with an int", location)
    if shape[-1] > 128:  # 2
        fail(f"{what} needs src.shape[-1] <= 128 (rule 2 of {page}; the row lands on "
             f"partitions); src is {shape}: transpose its last dimension 128 at a time", location)
    if rows.dtype.size != 2:  # 3
        fail(f"{what} needs a 2-byte src dtype (rule 3 of {page}), e.g. bfloat16 or float16; src "
             f"is {rows.dtype!r}", location)
    if table.space != "hbm":  # 4 (an on-chip src is refused where it is indexed)
        fail(f"{what} needs src on HBM (rule 4 of {page})", location)
    if idx.ndim != 2:  # 5
        fail(f"{what} needs 2-d indices (rule 5 of {page}); they are {list(idx.shape)}", location)
    parts, cols = idx.shape
    if parts * cols < n:  # 6
        fail(f"{what} needs indices.shape[0] * indices.shape[1] >= src.shape[0] (rule 6 of "
             f"{page}); indices {list(idx.shape)} hold {parts * cols} for {n} rows", location)
    if n % 16 != 0:  # 7
        fail(f"{what} needs src.shape[0] divisible by 16 (rule 7 of {page}); src is {shape}: "
             f"gather a multiple of 16 rows", location)
    if not (16 <= parts <= 128 and parts % 16 == 0):  # 8
        fail(f"{what} needs indices.shape[0] in [16, 128] and divisible by 16 (rule 8 of "
             f"{page}); indices are {list(idx.shape)}", location)
    if cols > 1 and parts != 128:  # 9
        fail(f"{what}: when indices.shape[1] > 1, indices.shape[0] must be exactly 128 (rule 9 "
             f"of {page}); indices are {list(idx.shape)}", location)
    if idx.dtype.asm != "uint32":  # 10
        fail(f"{what} needs uint32 indices (rule 10 of {page}: np.uint32); they are "
             f"{idx.dtype!r}: load them with dtype=nl.uint32", location)
    if idx.space != "sbuf":  # 11 (IndirectRows already insists on it)
        fail(f"{what} needs the indices on SBUF (rule 11 of {page})", location)
    out_shape = tuple(shape[i] for i in perm)
    if dtype is not None and to_dtype(dtype, location).asm != rows.dtype.asm:
        fail(f"{what} does not cast (a DMA transpose moves the bits): dtype must be src's "
             f"{rows.dtype!r}", location)
    dst = _out(dst, out_shape, rows.dtype, location)
    if dst.space != "sbuf":
        fail("dma_transpose: dst must be an SBUF tile (DMA cannot reach PSUM)", location)
    if tuple(dst.shape) != out_shape:
        fail(f"dma_transpose: dst {list(dst.shape)} is not src {shape} transposed "
             f"({list(out_shape)})", location)
    if dst.dtype.asm != rows.dtype.asm:
        fail(f"{what} does not cast: dst is {dst.dtype!r} but src is {rows.dtype!r}", location)
    # The middle dimensions of a 3-/4-D src ([N, M, F] -> [F, M, N]; [N, a, b, F] ->
    # [F, a, b, N]): one transfer per slice, its rows [N, F] landing as dst[:, m, :].
    middle = shape[1:-1]
    options = [("queue", "_load"), ("transpose", "true")]
    if skip:
        options.append(("oob_skip", "true"))
    for where in itertools.product(*(range(m) for m in middle)):
        base = table.offset + sum(i * st for i, st in zip(where, table.strides[1:-1]))
        src2d = table._derive([table.shape[0], shape[-1]], [table.strides[0], table.strides[-1]],
                              base)
        for c in range(0, (n + 127) // 128):  # index column c names rows 128c .. 128c + 127
            count = min(128, n - 128 * c)
            column = idx[0:count, c:c + 1]
            part = dst[(slice(None),) + where + (slice(128 * c, 128 * c + count),)]
            emit("gpsimd", "dma_copy", part, [src2d], options + [("src_index", column.operand())],
                 location, queue="_load")
    return dst


def _hwdge_transpose_rules(src, location):
    """The dma_transpose page: "If hwdge, this instruction will be lowered to a Hardware DGE
    transpose. This has additional restrictions: 1. src.shape[0] == 16 2. src.shape[-1] % 128
    == 0 3. src.dtype is 2 bytes" (the DGE reference repeats them)."""
    if not isinstance(src, Tensor):
        return  # dma_transpose_tile says what src must be
    what = "dma_transpose: dge_mode=nisa.dge_mode.hwdge (a hardware DGE transpose)"
    shape = list(src.shape)
    if src.shape[0] != 16:
        fail(f"{what} needs src.shape[0] == 16; src is {shape}: transpose it 16 rows at a time "
             f"(src[16 * i:16 * (i + 1), ...]) or leave dge_mode unknown", location)
    if src.shape[-1] % 128 != 0:
        fail(f"{what} needs src.shape[-1] % 128 == 0; src is {shape}: pad or split its last "
             f"dimension into multiples of 128, or leave dge_mode unknown", location)
    if src.dtype.size != 2:
        fail(f"{what} needs a 2-byte src dtype (e.g. bfloat16, float16); src is {src.dtype!r}: load "
             f"it as nl.bfloat16 or nl.float16 first, or leave dge_mode unknown", location)


def dma_transpose_tile(src, location, dst=None, axes=None, dtype=None):
    """One transposing DMA from HBM into SBUF: nisa.dma_transpose, and what
    nl.load_transpose2d(src, dtype) needs (a 2-D src, axes (1, 0)); returns dst (a new SBUF
    tile when dst is None)."""
    if not isinstance(src, Tensor):
        fail(f"dma_transpose: src must be a tensor, not {type(src).__name__}"
             f"{operand_hint(src)}", location)
    if src.space == "psum":
        fail("dma_transpose: src is in PSUM, which DMA cannot reach (tensor_copy it to SBUF, or "
             "transpose it with nisa.nc_transpose)", location)
    if src.space == "sbuf" and src.ndim != 2:
        fail(f"dma_transpose: an SBUF src must be 2-D (it is {src.ndim}-D); transpose 3- and "
             "4-D tiles while loading them from HBM", location)
    perm = _DMA_TRANSPOSE_AXES.get(src.ndim)
    if perm is None:
        fail(f"dma_transpose: src has {src.ndim} dimensions; NKI transposes 2-, 3- and 4-D "
             "tiles", location)
    _check_transpose_axes(axes, perm, location)
    shape = tuple(src.shape[i] for i in perm)
    dtype = to_dtype(dtype, location) if dtype is not None else src.dtype
    dst = _out(dst, shape, dtype, location)
    if dst.space != "sbuf":
        fail("dma_transpose: dst must be an SBUF tile (DMA cannot reach PSUM)", location)
    if tuple(dst.shape) != shape:
        fail(f"dma_transpose: dst {list(dst.shape)} is not src {list(src.shape)} transposed "
             f"({list(shape)})", location)
    if (src.ndim == 2 and src.dtype.size == 2 and dst.dtype.asm == src.dtype.asm
            and _core.TARGETS[_core.trace().target]["dma_transpose"]):
        # The DMA engine's transpose (nki-arch-v3): src [P, F] lands as dst [F, P].
        queue = "_load" if src.space == "hbm" else "_copy"
        emit("sync", "dma_copy", dst, [src], [("queue", queue), ("transpose", "true")], location,
             queue=queue)
        return dst
    if src.space == "sbuf":
        # An SBUF pattern steps partitions in its outer dim only (and a slice of a few
        # partitions must start on a 32-partition boundary, reference section 2), so the
        # SBUF tile goes out to an HBM scratch tensor first and transposes on the way back.
        from .. import language  # language imports this module
        scratch = language.ndarray(src.shape, dtype=src.dtype, buffer=language.private_hbm,
                                   name="dma_transpose_scratch")
        _dma(scratch, src, location)
        src = scratch
    # One DMA: HBM is addressed by element, so the source pattern can walk src in the
    # transposed order (partition dim = src's last dim).
    view = src._derive(shape, tuple(src.strides[i] for i in perm), src.offset)
    return _dma(dst, view, location)



# --- MX (microscaling), NeuronCore-v4+ ----------------------------------------------------
# Validation (validate/opcode.cpp) checks every rule of the two pages against the target:
# trn1 and trn2 refuse both instructions ("Available only on NeuronCore-v4 and newer").


def quantize_mx(*args, **kwargs):
    """dst [P, F/4] (float8_e5m2_x4 or float8_e4m3fn_x4) and dst_scale (uint8 or
    float8_e8m0fnu, one scale per group of 8 partitions x 4 elements, 4 rows at the start of
    each 32-partition quadrant) = src [P, F] (bf16/fp16) quantized on the Vector engine.
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.quantize_mx.html"""
    location = user_location()
    a = _bind(args, kwargs, ["dst", "src", "dst_scale", "name"], location, "quantize_mx")
    src = _tile(a.get("src"), "src", location, ("sbuf",))
    dst = _tile(a.get("dst"), "dst", location, ("sbuf",))
    scale = _tile(a.get("dst_scale"), "dst_scale", location, ("sbuf",))
    instr = emit("vector", "quantize_mx", dst, [src], [], location, extra_writes=[scale])
    instr.operands.append(instr.writes[1])  # the third positional operand: dst, src, dst_scale
    return dst


def _pe_tiling(api, a, stationary, location, columns=True, double_row=False):
    """The PE array's tiling mode of nc_matmul and nc_matmul_mx (their pages, "Tiling
    mode"): tile_size (row_size, column_size) slices the 128 PE rows (and, for nc_matmul,
    columns) into 2x 64 tiles (NeuronCore-v2 or newer) or 4x 32 (NeuronCore-v3 or newer);
    tile_position (start_row, start_column) picks one, each start a multiple of its size
    below 128; both or neither; the stationary [K, M] fits the tile (K <= row_size, M <=
    column_size); double_row does not combine with column tiling; nc_matmul_mx tiles rows
    only (column_size 128, start_column 0). Checked, not timed: neuronsim runs every matmul
    on the whole array, one at a time, so matmuls on disjoint tiles do not overlap in time
    as the hardware's do (docs/python.md, "Differences from NKI")."""
    pos, size = a.get("tile_position"), a.get("tile_size")
    if pos in (None, ()) and size in (None, ()):
        return
    if pos in (None, ()) or size in (None, ()):
        fail(f"{api}: tile_position and tile_size must both be set to enable tiling mode",
             location)
    try:
        (row, col), (rows, cols) = (int(pos[0]), int(pos[1])), (int(size[0]), int(size[1]))
    except (TypeError, ValueError, IndexError):
        fail(f"{api}: tile_position and tile_size are (row, column) pairs of integers",
             location)
    if not columns:
        if rows not in (128, 64, 32) or cols != 128:
            fail(f"{api}: tile_size {tuple(size)}: row_size must be 128, 64 or 32 and "
                 f"column_size 128 ({api} supports only row tiling)", location)
        if col != 0 or row % rows != 0 or row >= 128:
            fail(f"{api}: tile_position {tuple(pos)}: start_row must be a multiple of "
                 f"row_size {rows} below 128 and start_column 0", location)
    else:
        if rows not in (128, 64, 32) or cols not in (128, 64, 32):
            fail(f"{api}: tile_size {tuple(size)}: row_size and column_size must each be "
                 f"128, 64 or 32", location)
        if _core.trace().target == "trn1" and 32 in (rows, cols):
            fail(f"{api}: tile_size {tuple(size)}: 32-wide tiles need NeuronCore-v3 or newer "
                 f"(trn1 is NeuronCore-v2: 2x 64 tiles at most)", location)
        if row % rows != 0 or row >= 128 or col % cols != 0 or col >= 128:
            fail(f"{api}: tile_position {tuple(pos)}: start_row must be a multiple of row_size "
                 f"{rows} and start_column of column_size {cols}, each below 128", location)
        if double_row and cols != 128:
            fail(f"{api}: perf_mode double_row cannot be combined with column tiling "
                 f"(tile_size {tuple(size)})", location)
    if stationary.partitions() > rows:
        fail(f"{api}: stationary {list(stationary.shape)} exceeds the row tile "
             f"{tuple(size)}", location)
    m = stationary.free_size() // (2 if double_row else 1)
    if columns and m > cols:
        fail(f"{api}: stationary {list(stationary.shape)} exceeds the column tile "
             f"{tuple(size)}", location)


def nc_matmul_mx(*args, **kwargs):
    """dst [M, N] (PSUM, fp32 or bf16) = the MX matmul of stationary [K, M] and moving
    [K, N] (packed x4 fp8, K partitions of 4 contraction rows each) dequantized with their
    scales, on the Tensor engine; accumulate as nc_matmul's (None: by PSUM location).
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.nc_matmul_mx.html"""
    location = user_location()
    names = ["dst", "stationary", "moving", "stationary_scale", "moving_scale", "tile_position",
             "tile_size", "psum_accumulate_flag", "name"]
    a = _bind(args, kwargs, names, location, "nc_matmul_mx")
    st = _tile(a.get("stationary"), "stationary", location, ("sbuf",))
    mv = _tile(a.get("moving"), "moving", location, ("sbuf",))
    st_scale = _tile(a.get("stationary_scale"), "stationary_scale", location, ("sbuf",))
    mv_scale = _tile(a.get("moving_scale"), "moving_scale", location, ("sbuf",))
    dst = _tile(a.get("dst"), "dst", location, ("psum",))
    _pe_tiling("nc_matmul_mx", a, st, location, columns=False)
    acc = _accumulate("nc_matmul_mx", a, location)
    instr = emit("tensor", "matmul_mx", dst, [st, mv, st_scale, mv_scale], [], location)
    instr.acc = acc
    return dst


# Every public call that binds its arguments by name refuses keywords it does not read.
for _name, _fn in list(globals().items()):
    if (not _name.startswith("_") and callable(_fn) and getattr(_fn, "__module__", None) == __name__
            and "_bind" in getattr(getattr(_fn, "__code__", None), "co_names", ())):
        globals()[_name] = _keywords_checked(_fn)
del _name, _fn
