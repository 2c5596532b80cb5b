"""The runtime every neuronsim.torch mode runs on (docs/torch.md): launches kernels on the
live simulated core of one target, places each on the host timeline of the target's host
model (sequence/host_model.hpp through _core.HostScheduler, the one definition that
`neuronsim run launch.json` uses), and reports every launch and every host-only aten op
to its listeners (the profiler) in order.

Times are ns from the runtime's origin (host time 0 = the runtime was made)."""
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .. import Error, _core, _with_overrides
from .. import run as _run


@dataclass
class LaunchRecord:
    """One kernel launch (or, with fallback=True, one aten op run on the CPU instead)."""
    index: int
    op: str  # "aten::mul", "neuronsim::rms_norm", "neuronsim::compiled:<graph name>"
    kernel: str
    python_line: str  # "file.py:LINE" of the user's call
    input_shapes: list
    dtypes: list
    dispatch_start_ns: float
    dispatch_end_ns: float
    runtime_start_ns: Optional[float]
    runtime_end_ns: Optional[float]
    device_start_ns: Optional[float]
    device_end_ns: Optional[float]
    hbm_bytes: int  # read + written by the kernel
    instructions: int
    engines: dict = field(default_factory=dict)  # RunResult.engines
    profile_dir: Optional[str] = None
    fallback: bool = False
    target: str = ""
    # The op call that made the launch (Runtime.new_call): the launches of one compiled call
    # or of one eager op that runs several kernels (a bmm) share it, and key_averages
    # counts them as one call. None for a CPU fallback.
    call: Optional[int] = None


@dataclass
class HostOpRecord:
    """An aten op that runs no kernel (a view, a metadata op): framework dispatch only."""
    op: str
    python_line: str
    start_ns: float
    end_ns: float


_stack = []  # the active runtimes, innermost last


def current_runtime():
    """The active Runtime (inside neuronsim.torch.device(...) or a compiled call), or None."""
    return _stack[-1] if _stack else None


_watchers = []  # fn(runtime) at every push: a profiler attaches to runtimes entered inside it


def add_watcher(fn):
    _watchers.append(fn)


def remove_watcher(fn):
    _watchers.remove(fn)


def push_runtime(rt):
    # The watchers first: one that refuses the runtime (a profiler already attached to
    # another) leaves the stack as it was.
    for fn in list(_watchers):
        fn(rt)
    _stack.append(rt)


def pop_runtime(rt):
    if not _stack or _stack[-1] is not rt:
        raise Error("neuronsim.torch: runtimes left out of order")
    _stack.pop()


class Runtime:
    """Launches on one target's live core, with its host model.

    records: every LaunchRecord and HostOpRecord so far; timing_only: no numerics (outputs
    are zeros of the right shape and dtype); fallback: unsupported aten ops run on the CPU
    (counted in fallback_ops) instead of failing."""

    def __init__(self, target="trn2", fallback=False, timing_only=False, overrides=None):
        self.target = os.fspath(target)
        self.fallback = bool(fallback)
        self.timing_only = bool(timing_only)
        self.overrides = overrides
        self._scheduler = _with_overrides(
            overrides, lambda paths: _core.HostScheduler(self.target, paths))
        self.host_params = _with_overrides(
            overrides, lambda paths: dict(_core.host_params(self.target, paths)))
        self.records = []
        self.fallback_ops = {}  # aten op -> times it ran on the CPU
        self._listeners = []
        self._profile_root = None
        self._launches = 0
        self._calls = 0

    # --- listeners (the profiler) ---
    def add_listener(self, fn):
        self._listeners.append(fn)

    def remove_listener(self, fn):
        self._listeners.remove(fn)

    def _emit(self, record):
        self.records.append(record)
        for fn in list(self._listeners):
            fn(record)

    # --- the host timeline ---
    def host_now_ns(self):
        return self._scheduler.host_now_ns()

    def synchronize(self):
        """The host waits for all device work, then pays host.sync_ns; the new host time."""
        return self._scheduler.synchronize()

    def end_to_end_ns(self):
        """Host time at which the last launch so far was seen finished (0 with none)."""
        return self._scheduler.total_ns()

    def set_profile_recording(self, directory):
        """With a directory, each launch writes its profile to directory/<index>_<kernel>/
        (neuronsim.Profile and `neuronsim view` open it); None stops recording."""
        self._profile_root = None if directory is None else os.fspath(directory)

    # --- work ---
    def host_op(self, op, python_line):
        i = self._scheduler.host_op()
        self._emit(HostOpRecord(op, python_line, i["start_ns"], i["end_ns"]))

    def new_call(self):
        """A fresh op call id for LaunchRecord.call (the launches of one call share it)."""
        self._calls += 1
        return self._calls

    def launch(self, kernel, inputs, op, python_line, input_shapes, dtypes, call):
        """Runs `kernel` (a neuronsim.Kernel) on {name: float32 ndarray} inputs and places it
        on the host timeline. Returns the outputs ({name: ndarray}; zeros when timing only).
        A failed run raises Error naming op and line and leaves the timeline unchanged."""
        index = self._launches
        profile_dir = None
        if self._profile_root is not None:
            profile_dir = os.path.join(self._profile_root, "%d_%s" % (index, kernel.name))
        try:
            r = _run(kernel, None if self.timing_only else inputs, target=self.target,
                     timing_only=self.timing_only, profile_dir=profile_dir,
                     overrides=self.overrides)
        except Error as e:
            raise Error("%s: %s: the launch of kernel '%s' failed: %s"
                        % (python_line, op, kernel.name, e)) from None
        self._launches += 1
        t = self._scheduler.launch(r.total_ns)
        stats = r.stats
        self._emit(LaunchRecord(
            index=index, op=op, kernel=kernel.name, python_line=python_line,
            input_shapes=[list(s) for s in input_shapes], dtypes=list(dtypes),
            dispatch_start_ns=t["framework_dispatch"]["start_ns"],
            dispatch_end_ns=t["framework_dispatch"]["end_ns"],
            runtime_start_ns=t["runtime_call"]["start_ns"],
            runtime_end_ns=t["runtime_call"]["end_ns"],
            device_start_ns=t["device"]["start_ns"], device_end_ns=t["device"]["end_ns"],
            hbm_bytes=int(stats["hbm_read_bytes"] + stats["hbm_write_bytes"]),
            instructions=int(sum(e["instructions"] for e in r.engines.values())),
            engines=r.engines, profile_dir=profile_dir, fallback=False, target=r.target,
            call=call))
        if self.timing_only:
            return {t["name"]: np.zeros(t["shape"], np.float32) for t in kernel.outputs}
        return r.outputs

    def fallback_op(self, op, python_line, input_shapes, dtypes):
        """An aten op the device cannot run, run on the CPU by the caller: the host first
        waits for the device (the CPU needs its results), then dispatches the op; its CPU
        time is not modelled. Counted in fallback_ops."""
        self._scheduler.synchronize()
        i = self._scheduler.host_op()
        self.fallback_ops[op] = self.fallback_ops.get(op, 0) + 1
        self._emit(LaunchRecord(
            index=-1, op=op, kernel="", python_line=python_line,
            input_shapes=[list(s) for s in input_shapes], dtypes=list(dtypes),
            dispatch_start_ns=i["start_ns"], dispatch_end_ns=i["end_ns"],
            runtime_start_ns=None, runtime_end_ns=None, device_start_ns=None,
            device_end_ns=None, hbm_bytes=0, instructions=0, engines={}, profile_dir=None,
            fallback=True, target=self.target))

    def fallback_report(self):
        """"aten::op: N" lines of the ops that ran on the CPU ("" when none did)."""
        return "\n".join("%s: %d" % kv for kv in sorted(self.fallback_ops.items()))
