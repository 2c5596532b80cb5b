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
   (order_streams), keeping every dependency ahead of its dependants.
4. Semaphores: compute engines finish in stream order, so one counting semaphore per
   engine says "the first n signalling instructions are done". DMAs of one queue can
   finish out of order (they split over DMA engines by partition), so each DMA that is
   waited on signals one semaphore of a pool, and reusing a pool semaphore first waits
   for its previous DMA (which has long finished in practice).
5. Text: one SBUF and one PSUM allocation (`_sbuf`, `_psum`, uint8) that every tile
   views by offset; each instruction line ends with a comment naming its Python line,
   and a line map turns assembler/validator errors into Python file:line errors.
"""
from __future__ import annotations

import re

from ._core import NkiError
from ._sources import SourceTable

ENGINE_ORDER = ("tensor", "vector", "scalar", "gpsimd", "sync")
DMA_SEM_POOL = 48  # of the target's 64 semaphores (config sync.semaphores), 4 are per-engine
ENGINE_GHZ = {"tensor": 2.4, "vector": 0.96, "scalar": 1.2, "gpsimd": 1.2}  # estimate only


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


def _contains(outer, inner):
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def assign_matmul_groups(instrs):
    open_groups = {}  # dst region -> [instr, ...]

    def close(key):
        # The group's last matmul closes it: a lone `first` is `single`, else `last`.
        last = open_groups.pop(key)[-1]
        last.acc_flag = "single" if last.acc_flag == "first" else "last"

    for ins in instrs:
        if ins.opcode == "matmul":
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
        touched = [v.region() for v in ins.reads + ins.writes]
        for k in list(open_groups):
            if any(r[0] == k[0] and _overlap(r[1], k[1]) and _overlap(r[2], k[2]) for r in touched):
                close(k)
    for k in list(open_groups):
        close(k)
    for ins in instrs:
        if ins.opcode == "matmul":
            if ins.acc_flag != "single":
                ins.options = [("acc", ins.acc_flag)]
            if ins.acc_flag in ("middle", "last"):
                ins.reads.append(ins.writes[0])


def find_dependencies(instrs):
    """deps[i] = set of instruction indices i must wait for."""
    records = {}  # memory key -> list of (index, prange, brange, is_write)
    deps = []
    for ins in instrs:
        d = set()
        reads = [v.region() for v in ins.reads]
        writes = [v.region() for v in ins.writes]
        for key, pr, br in reads:
            for j, p2, b2, w in records.get(key, ()):
                if w and _overlap(pr, p2) and _overlap(br, b2):
                    d.add(j)
        for key, pr, br in writes:
            for j, p2, b2, w in records.get(key, ()):
                if _overlap(pr, p2) and _overlap(br, b2):
                    d.add(j)
        d.discard(ins.index)
        deps.append(d)
        for key, pr, br in writes:
            lst = records.setdefault(key, [])
            lst[:] = [r for r in lst if not (_contains(pr, r[1]) and _contains(br, r[2]))]
        for key, pr, br in reads:
            records.setdefault(key, []).append((ins.index, pr, br, False))
        for key, pr, br in writes:
            records.setdefault(key, []).append((ins.index, pr, br, True))
    return deps


def _duration_ns(ins):
    """A rough duration, only to order the DMA issue stream (the simulator times it)."""
    if ins.opcode == "dma_copy":
        v = ins.operands[0]
        nbytes = v.partitions * v.free_elems() * v.dtype.size
        return 2000.0 + nbytes / 300.0
    n = max(v.free_elems() for v in ins.operands)
    return max(64, n) / ENGINE_GHZ.get(ins.engine, 1.0)


def order_streams(instrs, deps, schedule="list"):
    """Each engine's stream. schedule="program": compute engines in program order, the
    Sync stream by estimated ready time. schedule="list": a list schedule with the rough
    durations: repeatedly the instruction that can start soonest (its dependencies done,
    its engine free; DMAs issue without waiting for each other) goes next on its engine,
    ties in program order. Either way an instruction follows everything it depends on
    in its stream, so the semaphores cannot deadlock."""
    import heapq

    if schedule == "program":
        finish = [0.0] * len(instrs)
        ready = [0.0] * len(instrs)
        engine_free = {}
        for ins in instrs:
            r = max((finish[j] for j in deps[ins.index]), default=0.0)
            if ins.engine != "sync":
                r = max(r, engine_free.get(ins.engine, 0.0))
            ready[ins.index] = r
            finish[ins.index] = r + _duration_ns(ins)
            if ins.engine != "sync":
                engine_free[ins.engine] = finish[ins.index]
        streams = {e: [] for e in ENGINE_ORDER}
        for ins in instrs:
            streams[ins.engine].append(ins)
        streams["sync"].sort(key=lambda i: (ready[i.index], i.index))
    else:
        n = len(instrs)
        waiting = [len(d) for d in deps]
        users = [[] for _ in range(n)]
        for i, d in enumerate(deps):
            for j in d:
                users[j].append(i)
        data_ready = [0.0] * n
        engine_free = {}
        heap = [(0.0, i) for i in range(n) if waiting[i] == 0]
        heapq.heapify(heap)
        streams = {e: [] for e in ENGINE_ORDER}
        while heap:
            t, i = heapq.heappop(heap)
            ins = instrs[i]
            start = max(t, engine_free.get(ins.engine, 0.0)) if ins.engine != "sync" else t
            if start > t:  # its engine is busy: try again when it is free
                heapq.heappush(heap, (start, i))
                continue
            finish = start + _duration_ns(ins)
            if ins.engine != "sync":
                engine_free[ins.engine] = finish
            streams[ins.engine].append(ins)
            for u in users[i]:
                data_ready[u] = max(data_ready[u], finish)
                waiting[u] -= 1
                if waiting[u] == 0:
                    heapq.heappush(heap, (data_ready[u], u))
        if sum(len(v) for v in streams.values()) != n:
            raise NkiError("internal: the list schedule lost instructions")
    # Safety net: nothing precedes an instruction it depends on in its own stream.
    for stream in streams.values():
        pos = {ins.index: k for k, ins in enumerate(stream)}
        for ins in stream:
            for j in deps[ins.index]:
                if j in pos and pos[j] > pos[ins.index]:
                    raise NkiError("internal: the stream order broke a dependency")
    return streams


def assign_semaphores(instrs, deps, streams):
    needs_signal = set()
    for ins in instrs:
        for j in deps[ins.index]:
            dep = instrs[j]
            if dep.engine == "sync" or dep.engine != ins.engine:
                needs_signal.add(j)
    sem_of = {}  # instr index -> (sem name, value)
    sems = []
    for eng in ENGINE_ORDER[:4]:
        count = 0
        name = f"_done_{eng}"
        for ins in streams[eng]:
            if ins.index in needs_signal:
                count += 1
                sem_of[ins.index] = (name, count)
                ins.signals.append(name)
        if count:
            sems.append(name)
    guards = {}
    pool_last = {}  # pool slot -> (value)
    k = 0
    for ins in streams["sync"]:
        if ins.index not in needs_signal:
            continue
        slot = k % DMA_SEM_POOL
        k += 1
        name = f"_dma{slot}"
        prev = pool_last.get(slot, 0)
        if prev:
            guards[ins.index] = (name, prev)
        pool_last[slot] = prev + 1
        sem_of[ins.index] = (name, prev + 1)
        ins.signals.append(name)
    sems += [f"_dma{s}" for s in sorted(pool_last)]
    for eng in ENGINE_ORDER:
        known = {}
        for ins in streams[eng]:
            want = {}
            for j in deps[ins.index]:
                dep = instrs[j]
                if dep.engine == ins.engine and dep.engine != "sync":
                    continue
                s, v = sem_of[j]
                want[s] = max(want.get(s, 0), v)
            if ins.index in guards:
                s, v = guards[ins.index]
                want[s] = max(want.get(s, 0), v)
            for s in sorted(want, key=lambda s: (s.startswith("_dma"), s)):
                if known.get(s, 0) < want[s]:
                    ins.waits.append((s, want[s]))
                    known[s] = want[s]
    return sems


def lower(tr, name, inputs, outputs, schedule="list"):
    """(assembly text, {asm line: (file, line)}) of a finished trace."""
    instrs = tr.instrs
    for ins in instrs:
        ins.waits, ins.signals = [], []
    assign_matmul_groups(instrs)
    deps = find_dependencies(instrs)
    streams = order_streams(instrs, deps, schedule)
    sems = assign_semaphores(instrs, deps, streams)

    lines = ["# Traced by neuronsim.nki from Python; each instruction names its source line.",
             f"kernel {name} target={tr.target}", ""]
    line_map = {}
    roles = {h.name: "scratch" for h in tr.hbm.values()}
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
    for eng in ENGINE_ORDER:
        if not streams[eng]:
            continue
        lines += ["", f"{eng}:"]
        for ins in streams[eng]:
            lines.append(f"    {ins.asm()}  {sources.at(ins.location)}")
            line_map[len(lines)] = ins.location
    # The Python files, declared after the kernel line (before the first use).
    declared = sources.declarations()
    lines[3:3] = declared + ([""] if declared else [])
    line_map = {n + len(declared) + (1 if declared else 0) if n > 3 else n: loc
                for n, loc in line_map.items()}
    return "\n".join(lines) + "\n", line_map


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
