"""Lowering a trace to neuronsim assembly (docs/assembly.md).

1. Matmul accumulation groups: accumulate=None matmuls into one PSUM tile form a group
   (first ... middle ... last, or single) that closes when another instruction touches
   the tile.
2. Dependencies: in program order, every read depends on the last overlapping writes
   (RAW), every write on the overlapping reads and writes since (WAR, WAW). Regions are
   physical bounding boxes: SBUF/PSUM partitions x bytes, HBM bytes of one tensor.
3. Stream order: each engine runs its stream in order and an instruction waits for its
   semaphores, so program order would, e.g., hold the Sync engine's load of tile t+1
   behind its store of tile t. A list schedule with rough durations orders every stream
   (plan), keeping every dependency ahead of its dependants.
4. Semaphores: compute engines finish in stream order, so one counting semaphore per
   engine says "the first n signalling instructions are done". DMAs of one queue can
   finish out of order (they split over DMA engines by partition), so each DMA that is
   waited on signals one semaphore of a pool, and reusing a pool semaphore first waits
   for its previous DMA (which has long finished in practice). A DMA a compute engine
   issues (GpSimd's gathers and scatters) finishes after the instructions that engine
   runs next, so it is not counted by the engine's semaphore: it signals a pool of its
   engine's own, and its dependants wait for it even on its engine.
5. Text: one SBUF and one PSUM allocation (`_sbuf`, `_psum`, uint8) that every tile
   views by offset; each instruction line ends with a comment naming its Python line,
   and a line map turns assembler/validator errors into Python file:line errors. The
   kernel is built alongside the lines, as the assembler would make it of them, without
   parsing them (python/core/nki_kernel.cpp).
"""
from __future__ import annotations

import gc
import re

from .. import _core as _cxx
from ._alloc import place_tiles
from ._core import NkiError, View
from ._sources import SourceTable

ENGINE_ORDER = ("tensor", "vector", "scalar", "gpsimd", "sync")  # Sync last (_core.nki_plan)
DMA_SEM_POOL = 48  # of the target's 64 semaphores (config sync.semaphores), 4 are per-engine
# The DMAs a compute engine issues (GpSimd's indirect ones: software DGE) signal a pool of
# that engine's own: 4 + 48 + 8 = 60 of the 64 with GpSimd's.
ENGINE_DMA_SEM_POOL = 8
ENGINE_GHZ = {"tensor": 2.4, "vector": 0.96, "scalar": 1.2, "gpsimd": 1.2}  # estimate only


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


def _contains(outer, inner):
    return outer[0] <= inner[0] and inner[1] <= outer[1]


# The opcodes that accumulate into PSUM with an acc flag (nc_matmul, nc_matmul_mx).
_ACCUMULATING = ("matmul", "matmul_mx")


def assign_matmul_groups(instrs):
    open_groups = {}  # dst region -> [instr, ...]

    def close(key):
        # The group's last matmul closes it: a lone `first` is `single`, else `last`.
        last = open_groups.pop(key)[-1]
        last.acc_flag = "single" if last.acc_flag == "first" else "last"

    for ins in instrs:
        if ins.opcode in _ACCUMULATING:
            key = ins.writes[0].region()
            if ins.acc == "auto" and key in open_groups:
                ins.acc_flag = "middle"
                open_groups[key].append(ins)
                continue
            if ins.acc is True:
                ins.acc_flag = "middle"
                if key in open_groups:
                    open_groups[key].append(ins)
                    continue
            else:
                ins.acc_flag = "first"
            for k in [k for k in open_groups if k[0] == key[0] and _overlap(k[1], key[1])
                      and _overlap(k[2], key[2])]:
                close(k)
            open_groups[key] = [ins]
            continue
        if not open_groups:
            continue
        # Only accesses to the memory the groups are in (PSUM) can close one.
        spaces = {k[0][0] for k in open_groups}
        touched = [v.region() for v in ins.reads + ins.writes if v.space in spaces]
        if not touched:
            continue
        for k in list(open_groups):
            if any(r[0] == k[0] and _overlap(r[1], k[1]) and _overlap(r[2], k[2]) for r in touched):
                close(k)
    for k in list(open_groups):
        close(k)
    for ins in instrs:
        if ins.opcode in _ACCUMULATING:
            if ins.acc_flag != "single":
                ins.options = [("acc", ins.acc_flag)] + [o for o in ins.options if o[0] != "acc"]
            if ins.acc_flag in ("middle", "last"):
                ins.reads.append(ins.writes[0])


# The engines' positions in _core.nki_plan: the compute engines, then the Sync engine.
_ENGINE_INDEX = {e: k for k, e in enumerate(ENGINE_ORDER)}
# The rough durations that order the streams (_core.nki_plan; the simulator times the
# kernel): a DMA costs DMA_FIXED_NS plus its bytes at DMA_BYTES_PER_NS, a compute
# instruction its largest operand's free elements (at least 64) at its engine's clock. A
# DMA issued by a compute engine (swdge on GpSimd, hwdge on Scalar) holds that engine only
# for the 64-element minimum: its transfer runs on the DMA engines. Estimates only, like
# ENGINE_GHZ.
DMA_FIXED_NS = 2000.0
DMA_BYTES_PER_NS = 300.0


def find_dependencies(instrs):
    """deps[i] = set of instruction positions i must wait for: every read on the live
    overlapping writes (RAW), every write on the live overlapping reads and writes (WAR,
    WAW); a write retires the accesses it covers. Reads of a memory nothing writes (a
    kernel's inputs) order nothing. Computed by _core.nki_dependencies
    (python/core/nki_lowering.cpp), which keeps, per memory, the accesses that can still
    order later ones in buckets by position, so that a lookup visits the accesses near
    it (linear in the instruction count). Lowering itself runs the same code inside
    _core.nki_plan; this form is for the tests."""
    return _cxx.nki_dependencies(list(instrs), _ENGINE_INDEX)


def plan(instrs, schedule="list"):
    """Steps 2-4 of lowering on the placed instructions, in C++ (_core.nki_plan,
    python/core/nki_lowering.cpp): the dependencies; each engine's stream (schedule="list":
    a list schedule with the rough durations: repeatedly the instruction that can start
    soonest (its dependencies done, its engine free; DMAs issue without waiting for each
    other) goes next on its engine, ties in program order; schedule="program": compute
    engines in program order, the Sync stream by estimated ready time; either way an
    instruction follows everything it depends on in its stream, so the semaphores cannot
    deadlock); and the semaphores: one counting semaphore `_done_<engine>` per compute
    engine, DMA_SEM_POOL `_dma<k>` for the Sync engine's DMAs that are waited on and
    ENGINE_DMA_SEM_POOL `_<engine>_dma<k>` for a compute engine's, each reused in turn in
    its stream after waiting for its previous DMA. Sets every instruction's waits (engine semaphores
    first, then the pool, each by name) and signals; returns ({engine: stream}, the
    semaphores in declaration order)."""
    try:
        return _cxx.nki_plan(instrs, list(ENGINE_ORDER),
                             [ENGINE_GHZ.get(e, 1.0) for e in ENGINE_ORDER], DMA_FIXED_NS,
                             DMA_BYTES_PER_NS, DMA_SEM_POOL, ENGINE_DMA_SEM_POOL,
                             schedule == "list")
    except ValueError as e:  # the passes' internal consistency checks
        raise NkiError(str(e)) from None


def lower(tr, name, inputs, outputs, schedule="list"):
    """(assembly text, {asm line: (file, line)}, the _core.NkiKernelBuilder holding the
    kernel built from the same lines, or None when it could not be: then the text is
    assembled) of a finished trace. Python's cyclic
    garbage collector is paused meanwhile (as while tracing, _core.Trace.active):
    lowering makes objects by the million and no cycles."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lower(tr, name, inputs, outputs, schedule)
    finally:
        if collecting:
            gc.enable()


def _lower(tr, name, inputs, outputs, schedule):
    instrs = tr.instrs  # (each Instr starts with empty waits and signals)
    assign_matmul_groups(instrs)
    instrs = place_tiles(tr)
    streams, sems = plan(instrs, schedule)

    lines = ["# Traced by neuronsim.nki from Python; each instruction names its source line.",
             f"kernel {name} target={tr.target}", ""]
    line_map = {}
    roles = {h.name: "scratch" if h.role != "constant" else f"constant = {h.value}"
             for h in tr.hbm.values()}  # nl.shared_constant: its values in the kernel
    for h in inputs:
        roles[h.name] = "input"
    for h in outputs:
        roles[h.name] = "output"
    ordered = list(inputs) + list(outputs) + [h for h in tr.hbm.values()
                                              if h not in inputs and h not in outputs]
    for h in ordered:
        shape = ", ".join(str(s) for s in h.shape)
        lines.append(f"tensor {h.name} {h.dtype.asm}[{shape}] {roles[h.name]}")
    lines.append("")
    if tr.sbuf.high_water:
        lines.append(f"sbuf _sbuf uint8[128, {tr.sbuf.high_water}] offset=0  "
                     f"# every SBUF tile is a view of this pool")
    if tr.psum.high_water:
        lines.append(f"psum _psum uint8[128, {tr.psum.high_water}] offset=0")
    lines.append("")
    for s in sems:
        lines.append(f"sem {s} = 0")
    queues = sorted({ins.queue for ins in instrs if ins.queue})
    for q in queues:
        lines.append(f"queue {q} first_engine=0 engines=16")
    sources = SourceTable(list(roles) + list(sems) + queues + ["_sbuf", "_psum"])
    # The declarations so far are assembled from their text; each instruction's line is
    # written and, from the same reading, the instruction built (_core.NkiKernelBuilder).
    builder = _cxx.NkiKernelBuilder("\n".join(lines) + "\n", name)
    for eng in ENGINE_ORDER:
        if not streams[eng]:
            continue
        lines += ["", f"{eng}:"]
        # One line per instruction: its text (Instr.asm), then its source suffix.
        builder.add_section(eng, streams[eng], View, sources.at, lines, line_map)
    # The Python files, declared after the kernel line (before the first use).
    declared = sources.declarations()
    shift = len(declared) + (1 if declared else 0)
    lines[3:3] = declared + ([""] if declared else [])
    line_map = {n + shift if n > 3 else n: loc for n, loc in line_map.items()}
    built = builder.finish(sources.files(), shift)
    return "\n".join(lines) + "\n", line_map, builder if built else None


def _short(path):
    return path.rsplit("/", 1)[-1]


def python_error(message, name, line_map):
    """An assembler/validator message with every assembly line it names (`name:LINE` or
    `(line LINE)`) replaced by the Python file:line of the instruction on that line, and
    the first such location in front: "kernel.py:42: ...". """
    found = []

    def where(n):
        if n in line_map:
            file, line = line_map[n]
            found.append(f"{file}:{line}")
            return f"{file}:{line}"
        return None

    def sub_colon(m):
        return where(int(m.group(1))) or m.group(0)

    def sub_paren(m):
        w = where(int(m.group(1)))
        return f"({w})" if w else m.group(0)

    text = re.sub(re.escape(name) + r"(?:\.nasm)?:(\d+)", sub_colon, message)
    text = re.sub(r"\(line (\d+)\)", sub_paren, text)
    return f"{found[0]}: {text}" if found else text
