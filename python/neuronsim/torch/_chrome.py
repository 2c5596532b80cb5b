"""export_chrome_trace: the window's sequence profile as `neuronsim export --perfetto`
writes it (sequence/sequence_perfetto.hpp: the Host process with its framework dispatch,
runtime calls, device execution and sync lanes, an arrow from each runtime call to its
execution, then the NeuronCore process with every launch's engine and DMA lanes), plus
two host lanes only the profiler knows: the aten ops that ran no kernel on the device
(views, CPU fallbacks, and launches still in flight when the profiler stopped) and the
schedule's steps. Written all or nothing."""
import json
import os
import tempfile

from .. import Error, _core
from ._profiler_window import host_span

_HOST_PID = 1000  # sequence/sequence_perfetto.cpp's host process
_NO_LAUNCH_TID, _STEP_TID = 5, 6  # after its four lanes (tids 1-4)


def _us(ns):
    return round(ns / 1000.0, 6)  # microseconds with six decimals: whole picoseconds


def _lane(thread_name):
    """The record_engines name of a NeuronCore track ("DMA q_in / dma 3" -> "dma")."""
    return "dma" if thread_name.startswith("DMA") else thread_name.split()[0]


def _keep_engines(events, engines):
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    dropped = {k for k, name in names.items() if k[0] != _HOST_PID and _lane(name) not in engines}
    flows = {e["id"] for e in events if e.get("ph") in ("s", "f") and (e["pid"], e["tid"]) in dropped}
    return [e for e in events if (e["pid"], e["tid"]) not in dropped
            and not (e.get("ph") in ("s", "f") and e["id"] in flows)]


def _host_lanes(window):
    origin = window.start_ns
    events = [
        {"ph": "M", "pid": _HOST_PID, "tid": _NO_LAUNCH_TID, "name": "thread_name",
         "args": {"name": "aten ops without a device record"}},
        {"ph": "M", "pid": _HOST_PID, "tid": _NO_LAUNCH_TID, "name": "thread_sort_index",
         "args": {"sort_index": 4}},
        {"ph": "M", "pid": _HOST_PID, "tid": _STEP_TID, "name": "thread_name",
         "args": {"name": "profiler steps"}},
        {"ph": "M", "pid": _HOST_PID, "tid": _STEP_TID, "name": "thread_sort_index",
         "args": {"sort_index": 5}},
    ]
    completed = {id(r) for r in window.launches()}
    for r in window.records:
        if id(r) in completed:
            continue
        start, end = host_span(r)
        why = ("ran on the CPU (fallback)" if getattr(r, "fallback", False)
               else "runs no kernel" if not hasattr(r, "kernel")
               else "device work in flight when the profiler stopped")
        events.append({"ph": "X", "pid": _HOST_PID, "tid": _NO_LAUNCH_TID, "name": r.op,
                       "cat": "cpu_op", "ts": _us(start - origin), "dur": _us(end - start),
                       "args": {"python_line": r.python_line, "device": why}})
    for s in window.steps:
        events.append({"ph": "X", "pid": _HOST_PID, "tid": _STEP_TID,
                       "name": "ProfilerStep#%d" % s.number, "cat": "step",
                       "ts": _us(s.start_ns - origin), "dur": _us(s.end_ns - s.start_ns),
                       "args": {}})
    return events


def export(window, profile_dir, path, engines):
    doc = json.loads(_core.sequence_perfetto(profile_dir))
    events = doc["traceEvents"]
    if engines is not None:
        events = _keep_engines(events, engines)
    doc["traceEvents"] = events + _host_lanes(window)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".%s.tmp-" % os.path.basename(path), dir=directory)
    except OSError as e:
        raise Error("export_chrome_trace: %s: cannot write: %s" % (path, e.strerror)) from None
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f)
        os.replace(temp, path)
    except OSError as e:
        os.unlink(temp)
        raise Error("export_chrome_trace: %s: cannot write: %s" % (path, e.strerror)) from None
    except BaseException:
        os.unlink(temp)
        raise
