"""The records of one profiling window (one active span of a profile's schedule) and the
events key_averages() averages (docs/torch.md, "The profiler").

A window runs from the host time its recording started to the host time it stopped. A
launch belongs to it when the runtime reported it while recording. Its device part counts
only when the device had finished it by the window's end: work still in flight when the
profiler stops is missing, as on the hardware, unless neuronsim.torch.synchronize() was
called before (the host then waited for it, so the window ends after it).
"""
from dataclasses import dataclass, field

from ._runtime import HostOpRecord, LaunchRecord


@dataclass
class Step:
    """One step of the schedule while recording: "ProfilerStep#<number>"."""
    number: int
    start_ns: float
    end_ns: float = None


@dataclass
class Event:
    """One occurrence in a window, in the units key_averages keeps (us)."""
    key: str
    kind: str  # "op", "kernel" or "step"
    input_shapes: list = None
    self_cpu_us: float = 0.0
    cpu_us: float = 0.0
    self_device_us: float = 0.0
    device_us: float = 0.0
    launches: int = 0
    hbm_bytes: int = 0
    fallback: bool = False


def host_ns(record):
    """Host work of a record: framework dispatch + runtime call of a launch (waiting for a
    full queue is not host work, docs/host-model.md), the span of a host op."""
    if isinstance(record, HostOpRecord):
        return record.end_ns - record.start_ns
    total = 0.0
    for start, end in ((record.dispatch_start_ns, record.dispatch_end_ns),
                       (record.runtime_start_ns, record.runtime_end_ns)):
        if start is not None and end is not None:
            total += end - start
    return total


def host_span(record):
    """(start, end) of a record on the host."""
    if isinstance(record, HostOpRecord):
        return record.start_ns, record.end_ns
    ends = [t for t in (record.runtime_end_ns, record.dispatch_end_ns) if t is not None]
    return record.dispatch_start_ns, (ends[0] if ends else record.dispatch_start_ns)


@dataclass
class Window:
    """The records, steps and host-time bounds of one recording."""
    start_ns: float
    end_ns: float = None
    records: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    runtime: object = None  # the runtime recorded (its target, overrides), set at the end

    def completed(self, record):
        """A launch whose device execution had ended by the window's end."""
        return (isinstance(record, LaunchRecord) and not record.fallback
                and record.device_end_ns is not None and record.device_end_ns <= self.end_ns)

    def launches(self):
        """The launches whose device work the window holds, in order."""
        return [r for r in self.records if self.completed(r)]

    def in_flight(self):
        """Launches dispatched in the window whose device work it misses."""
        return [r for r in self.records if isinstance(r, LaunchRecord) and not r.fallback
                and not self.completed(r)]

    def events(self, correlate_device_time):
        """Op, kernel and step events. Without correlate_device_time the device columns are
        left empty (host times only, as a CPU-only torch.profiler). The launches of one op
        call (LaunchRecord.call: a compiled call, an eager bmm's launch per batch entry) are
        one op event, as torch.profiler counts one call of the op, with a kernel event per
        launch."""
        events = []
        ops = []  # (first record, op event) per call, in order
        for r in self.records:
            cpu = host_ns(r) / 1000.0
            call = getattr(r, "call", None)
            same_call = (isinstance(r, LaunchRecord) and call is not None and ops and
                         getattr(ops[-1][0], "call", None) == call)
            if same_call:
                e = ops[-1][1]
                e.self_cpu_us += cpu
                e.cpu_us += cpu
            else:
                e = Event(key=r.op, kind="op", input_shapes=getattr(r, "input_shapes", None),
                          self_cpu_us=cpu, cpu_us=cpu)
                ops.append((r, e))
                events.append(e)
            if isinstance(r, LaunchRecord):
                e.fallback = bool(r.fallback)
                if correlate_device_time and self.completed(r):
                    device = (r.device_end_ns - r.device_start_ns) / 1000.0
                    e.self_device_us += device
                    e.device_us += device
                    e.launches += 1
                    e.hbm_bytes += r.hbm_bytes
                    events.append(Event(key=r.kernel, kind="kernel", input_shapes=r.input_shapes,
                                        self_device_us=device, device_us=device, launches=1,
                                        hbm_bytes=r.hbm_bytes))
        for s in self.steps:
            inside = [e for r, e in ops if s.start_ns <= host_span(r)[0] < s.end_ns]
            span = (s.end_ns - s.start_ns) / 1000.0
            children = sum(e.cpu_us for e in inside)
            device = sum(e.device_us for e in inside)
            events.append(Event(key="ProfilerStep*", kind="step", input_shapes=[],
                                self_cpu_us=max(span - children, 0.0), cpu_us=span,
                                device_us=device, launches=sum(e.launches for e in inside),
                                hbm_bytes=sum(e.hbm_bytes for e in inside)))
        return events
