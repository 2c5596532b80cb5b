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

import gc
import re

from ._alloc import place_tiles
from ._core import NkiError, rows_meet
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
        if ins.opcode == "matmul":
            if ins.acc_flag != "single":
                ins.options = [("acc", ins.acc_flag)]
            if ins.acc_flag in ("middle", "last"):
                ins.reads.append(ins.writes[0])


class _Access:
    """One recorded read or write: instruction index, partition (HBM: row) range, byte
    (HBM: column) range; `alive` until a later write covers it."""

    __slots__ = ("index", "p0", "p1", "step", "b0", "b1", "alive")

    def __init__(self, index, pr, br):
        self.index, self.alive = index, True
        self.p0, self.p1 = pr
        self.step = getattr(pr, "step", 1)  # HBM rows every `step` (_core.SteppedRows)
        self.b0, self.b1 = br


class _Memory:
    """The reads and the writes of one memory that can still order later accesses, each
    in buckets by position, so that a lookup visits the accesses near it, not every older
    one (tracing time linear in the instruction count). On-chip memories bucket by byte
    range (all partitions in one bucket); HBM tensors by blocks of rows and columns. An
    access spanning more than WIDE buckets lives in a list that every lookup visits."""

    WIDE = 256
    _ROW_KEY = 1 << 32  # bucket key = row block * _ROW_KEY + column block

    def __init__(self, key):
        # Bucket sizes: HBM in elements of one tensor (a typical tile, 128 rows x 512
        # columns, spans 2-4 buckets); on-chip in bytes per partition.
        # On-chip buckets of 4096 bytes hold a few tiles each: fewer, longer lists than
        # tile-sized ones, which measured faster (bench/nki_trace.py, the examples).
        self.rows, self.cols = (64, 512) if key[0] == "hbm" else (1 << 40, 4096)
        self.reads, self.writes = {}, {}  # bucket key -> [_Access]
        self.wide_reads, self.wide_writes = [], []

    def span(self, pr, br):
        """The bucket keys a box covers, or None when it covers more than WIDE."""
        c0, c1 = br[0] // self.cols, (br[1] - 1) // self.cols
        r0, r1 = pr[0] // self.rows, (pr[1] - 1) // self.rows
        if r0 == r1:
            if c0 == c1:
                return (r0 * self._ROW_KEY + c0,)
            if c1 - c0 < self.WIDE:
                base = r0 * self._ROW_KEY
                return range(base + c0, base + c1 + 1)
            return None
        if (r1 - r0 + 1) * (c1 - c0 + 1) > self.WIDE:
            return None
        return [r * self._ROW_KEY + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]

    @staticmethod
    def add(buckets, wide, span, access):
        if span is None:
            wide.append(access)
            return
        for b in span:
            lst = buckets.get(b)
            if lst is None:
                buckets[b] = [access]
            else:
                lst.append(access)

    @staticmethod
    def overlapping(buckets, wide, span, pr, br, out):
        """Adds to `out` the instruction index of every live access overlapping the box."""
        p0, p1 = pr
        b0, b1 = br
        step = getattr(pr, "step", 1)
        if span is None:
            lists = list(buckets.values())
        else:
            get = buckets.get
            lists = [lst for lst in map(get, span) if lst is not None]
        if wide:
            lists.append(wide)
        add = out.add
        for lst in lists:
            for a in lst:
                if a.b0 < b1 and b0 < a.b1 and a.p0 < p1 and p0 < a.p1 and a.alive and \
                        (step == 1 == a.step or rows_meet(a.p0, a.p1, a.step, p0, p1, step)):
                    add(a.index)

    @staticmethod
    def prune(buckets, wide, span, pr, br):
        """Retires every access inside the box (a write covering it orders everything
        after it) and drops it from its buckets, which all lie inside the box's.
        Returns the wide list without the retired ones."""
        p0, p1 = pr
        b0, b1 = br
        step = getattr(pr, "step", 1)
        if step != 1:  # a write to every step-th row covers only accesses on those rows
            def covered(a):
                return (b0 <= a.b0 and a.b1 <= b1 and p0 <= a.p0 and a.p1 <= p1 and
                        (a.p1 - a.p0 == 1 or a.step == step) and (a.p0 - p0) % step == 0)
        else:
            covered = None  # the common case, inline below (the hot loop of tracing)
        for b in (list(buckets) if span is None else span):
            lst = buckets.get(b)
            if lst is None:
                continue
            kept = []
            for a in lst:
                if a.alive:
                    if (b0 <= a.b0 and a.b1 <= b1 and p0 <= a.p0 and a.p1 <= p1
                            if covered is None else covered(a)):
                        a.alive = False
                    else:
                        kept.append(a)
            if not kept:
                del buckets[b]
            elif len(kept) != len(lst):
                buckets[b] = kept
        if wide:
            for a in wide:
                if a.alive and (b0 <= a.b0 and a.b1 <= b1 and p0 <= a.p0 and a.p1 <= p1
                                if covered is None else covered(a)):
                    a.alive = False
            wide = [a for a in wide if a.alive]
        return wide


def find_dependencies(instrs):
    """deps[i] = set of instruction indices i must wait for: every read on the live
    overlapping writes (RAW), every write on the live overlapping reads and writes (WAR,
    WAW); a write retires the accesses it covers."""
    memories = {}  # memory key -> _Memory
    # Reads of a memory nothing writes (a kernel's inputs) can order nothing: not kept.
    written = {v.region()[0] for ins in instrs for v in ins.writes}
    overlapping, prune, add = _Memory.overlapping, _Memory.prune, _Memory.add
    deps = []
    for ins in instrs:
        d = set()
        reads, writes = [], []
        for v in ins.reads:
            key, pr, br = v.region()
            if key not in written:
                continue
            m = memories.get(key)
            if m is None:
                m = memories[key] = _Memory(key)
            span = m.span(pr, br)
            overlapping(m.writes, m.wide_writes, span, pr, br, d)
            reads.append((m, span, pr, br))
        for v in ins.writes:
            key, pr, br = v.region()
            m = memories.get(key)
            if m is None:
                m = memories[key] = _Memory(key)
            span = m.span(pr, br)
            overlapping(m.reads, m.wide_reads, span, pr, br, d)
            overlapping(m.writes, m.wide_writes, span, pr, br, d)
            writes.append((m, span, pr, br))
        index = ins.index
        d.discard(index)
        deps.append(d)
        for m, span, pr, br in writes:
            m.wide_reads = prune(m.reads, m.wide_reads, span, pr, br)
            m.wide_writes = prune(m.writes, m.wide_writes, span, pr, br)
        for m, span, pr, br in reads:
            add(m.reads, m.wide_reads, span, _Access(index, pr, br))
        for m, span, pr, br in writes:
            add(m.writes, m.wide_writes, span, _Access(index, pr, br))
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
        d = deps[ins.index]
        if d:
            engine = ins.engine
            for j in d:
                dep_engine = instrs[j].engine
                if dep_engine == "sync" or dep_engine != engine:
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
    # An instruction waits on its semaphores engines first, then DMA pool, each by name.
    rank = {s: k for k, s in enumerate(sorted(sems, key=lambda s: (s.startswith("_dma"), s)))}
    by_rank = rank.__getitem__
    for eng in ENGINE_ORDER:
        known = {}
        for ins in streams[eng]:
            want = {}
            d = deps[ins.index]
            if d:
                for j in d:
                    dep_engine = instrs[j].engine
                    if dep_engine == eng and eng != "sync":
                        continue
                    s, v = sem_of[j]
                    if want.get(s, 0) < v:
                        want[s] = v
            if ins.index in guards:
                s, v = guards[ins.index]
                want[s] = max(want.get(s, 0), v)
            if not want:
                continue
            order = want if len(want) == 1 else sorted(want, key=by_rank)
            for s in order:
                if known.get(s, 0) < want[s]:
                    ins.waits.append((s, want[s]))
                    known[s] = want[s]
    return sems


def lower(tr, name, inputs, outputs, schedule="list"):
    """(assembly text, {asm line: (file, line)}) of a finished trace. Python's cyclic
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
    deps = find_dependencies(instrs)
    streams = order_streams(instrs, deps, schedule)
    sems = assign_semaphores(instrs, deps, streams)

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
