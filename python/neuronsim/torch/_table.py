"""key_averages() and its table, in torch.profiler's shape (torch 1.13's
torch/autograd/profiler_util.py: the same columns, widths, time format and footer), with
the NeuronCore's device columns where PyTorch puts a device's (docs/torch.md, "The
profiler").

Times are microseconds, as PyTorch keeps them. A row is an aten op (host time: the host
model's framework dispatch + runtime call; device time: its launches' simulated time), a
kernel (device time only: the device-side event, as PyTorch lists each CUDA kernel), or
"ProfilerStep*" (the schedule's steps). Device % and the device total count kernels only,
so no launch is counted twice.
"""
from torch.autograd.profiler_util import _format_time, _format_time_share

from .. import Error

DEVICE = "NeuronCore"  # the device columns' name (PyTorch: "CUDA", or the PrivateUse1 name)

# sort_by keys: PyTorch's names for the CPU columns, its two names for the device columns
# (PyTorch 2's generic `device` and the PrivateUse1 backend's), and the launch count.
_SORT_KEYS = {
    "self_cpu_time_total": "self_cpu_time_total",
    "cpu_time_total": "cpu_time_total",
    "cpu_time": "cpu_time",
    "count": "count",
    "self_device_time_total": "self_device_time_total",
    "device_time_total": "device_time_total",
    "device_time": "device_time",
    "self_privateuse1_time_total": "self_device_time_total",
    "privateuse1_time_total": "device_time_total",
    "privateuse1_time": "device_time",
    "launches": "launches",
    "hbm_bytes": "hbm_bytes",
}


class EventAverage:
    """One row of key_averages(): every occurrence of one name (and, grouped by input
    shape, one shape list), summed."""

    def __init__(self, key, kind, input_shapes=None):
        self.key = key
        self.kind = kind  # "op" (host side), "kernel" (device side) or "step"
        self.input_shapes = input_shapes
        self.count = 0
        self.self_cpu_time_total = 0.0
        self.cpu_time_total = 0.0
        self.self_device_time_total = 0.0
        self.device_time_total = 0.0
        self.launches = 0
        self.hbm_bytes = 0
        self.fallbacks = 0  # calls that ran on the CPU (fallback=True)

    def add(self, event):
        self.count += 1
        self.self_cpu_time_total += event.self_cpu_us
        self.cpu_time_total += event.cpu_us
        self.self_device_time_total += event.self_device_us
        self.device_time_total += event.device_us
        self.launches += event.launches
        self.hbm_bytes += event.hbm_bytes
        self.fallbacks += event.fallback

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    # PyTorch 2's PrivateUse1 names for the same numbers.
    self_privateuse1_time_total = property(lambda self: self.self_device_time_total)
    privateuse1_time_total = property(lambda self: self.device_time_total)
    privateuse1_time = property(lambda self: self.device_time)

    def __repr__(self):
        return ("<EventAverage %s: count=%d self_cpu=%.3fus cpu_total=%.3fus "
                "self_device=%.3fus device_total=%.3fus launches=%d>" % (
                    self.key, self.count, self.self_cpu_time_total, self.cpu_time_total,
                    self.self_device_time_total, self.device_time_total, self.launches))


class KeyAverages(list):
    """What profile.key_averages() returns: a list of EventAverage rows, in first-seen
    order, with table()."""

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55,
              max_shapes_column_width=80, header=None):
        return build_table(self, sort_by, row_limit, max_name_column_width,
                           max_shapes_column_width, header)

    def __str__(self):
        return self.table()


def average(events, group_by_input_shape=False):
    """KeyAverages of events (objects with key, kind, input_shapes and the *_us times)."""
    rows = {}
    for e in events:
        shapes = str(e.input_shapes) if group_by_input_shape else None
        k = (e.key, shapes)
        if k not in rows:
            rows[k] = EventAverage(e.key, e.kind, e.input_shapes if group_by_input_shape else None)
        rows[k].add(e)
    return KeyAverages(rows.values())


def sort_attribute(sort_by):
    if sort_by not in _SORT_KEYS:
        raise Error("key_averages().table: unknown sort_by %r; known: %s"
                    % (sort_by, ", ".join(sorted(_SORT_KEYS))))
    return _SORT_KEYS[sort_by]


def build_table(rows, sort_by, row_limit, max_name_column_width, max_shapes_column_width,
                header):
    if not rows:
        return ""
    if sort_by is not None:
        attr = sort_attribute(sort_by)
        rows = sorted(rows, key=lambda r: getattr(r, attr), reverse=True)  # stable: ties keep order
    has_device = any(r.device_time_total > 0 for r in rows)
    has_shapes = any(r.input_shapes for r in rows)
    spacing = 2
    width = 12  # PyTorch's DEFAULT_COLUMN_WIDTH
    name_width = min(max(len(r.key) for r in rows) + 4, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_device:
        headers += ["Self %s" % DEVICE, "Self %s %%" % DEVICE, "%s total" % DEVICE,
                    "%s time avg" % DEVICE, "# of Launches"]
    headers.append("# of Calls")
    widths = [name_width] + [max(width, len(h)) for h in headers[1:]]
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(min(max(len(str(r.input_shapes)) for r in rows) + 4,
                          max_shapes_column_width))
    row_format = "".join("{: >%d}%s" % (w, " " * spacing) for w in widths)
    separator = "".join("-" * w + " " * spacing for w in widths)
    line_length = sum(w + spacing for w in widths) - spacing

    self_cpu_total = sum(r.self_cpu_time_total for r in rows)
    # Kernels are the device's events: their sum is the device's time, once.
    self_device_total = sum(r.self_device_time_total for r in rows if r.kind == "kernel")
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    out += [separator, row_format.format(*headers), separator]
    for r in rows[:row_limit]:
        name = r.key
        if len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        values = [name,
                  _format_time_share(r.self_cpu_time_total, self_cpu_total),
                  _format_time(r.self_cpu_time_total),
                  _format_time_share(r.cpu_time_total, self_cpu_total),
                  _format_time(r.cpu_time_total),
                  _format_time(r.cpu_time)]
        if has_device:
            values += [_format_time(r.self_device_time_total),
                       _format_time_share(r.self_device_time_total, self_device_total),
                       _format_time(r.device_time_total),
                       _format_time(r.device_time),
                       r.launches]
        values.append(r.count)
        if has_shapes:
            values.append(str(r.input_shapes)[:widths[-1]])
        out.append(row_format.format(*values))
    out.append(separator)
    out.append("Self CPU time total: %s" % _format_time(self_cpu_total))
    if has_device:
        out.append("Self %s time total: %s" % (DEVICE, _format_time(self_device_total)))
    return "".join(line + "\n" for line in out)
