"""neuronsim.torch.profile: torch.profiler.profile's shape over the simulated NeuronCore
(docs/torch.md, "The profiler").

    with neuronsim.torch.device("trn2"):
        with neuronsim.torch.profile(output_dir="prof",
                                     schedule=neuronsim.torch.schedule(wait=1, warmup=1, active=2)) as prof:
            for _ in range(4):
                y = f(x)
                neuronsim.torch.synchronize()
                prof.step()
    print(prof.key_averages().table(sort_by="self_privateuse1_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")       # ui.perfetto.dev
    # neuronsim view prof / report prof / compare prof other

The profiler listens to the neuronsim.torch runtime (_runtime.py): every launch and every
host-only aten op, with their host-model times. The schedule is PyTorch's own
(torch.profiler.schedule and its ProfilerAction); times are the simulated host timeline,
never this process's wall clock.

Options, after NeuronConfig's (Neuron docs, "Capture PyTorch profiles with Neuron
Explorer") where it has one:
- output_dir: where the last saved window is written as a sequence profile directory
  (host.json + launch_NNN/, what `neuronsim view/report/compare` open); None: none.
  (NeuronConfig's profile_output_dir.)
- record_device: record each launch's device profile (NEFF + NTFF; NeuronConfig's
  ProfileMode.DEVICE). Needed for output_dir and the trace's engine lanes; without it
  only the host-model times are kept (key_averages still has device time).
- record_engines: None (every engine and DMA lane) or the lane names to keep in the
  exported trace ("tensor", "vector", "scalar", "gpsimd", "sync", "dma"), as NeuronConfig's
  capture filters narrow a device trace.
- correlate_device_time: put each launch's device time beside the aten op that made it
  (NeuronConfig's correlate_device_time); False: CPU columns only.
- record_shapes: torch's; key_averages(group_by_input_shape=True) then splits by shape.
"""
import os
import shutil
import tempfile
import weakref

from torch.profiler import ProfilerAction, schedule

from .. import Error
from . import _chrome, _profile_dir, _runtime, _table
from ._profiler_window import Step, Window

__all__ = ["profile", "schedule", "ProfilerAction"]

_ENGINE_LANES = ("tensor", "vector", "scalar", "gpsimd", "sync", "dma")


def _always_record(step):
    return ProfilerAction.RECORD


class profile:
    """A profiler over neuronsim.torch's runtime, used as torch.profiler.profile."""

    def __init__(self, output_dir=None, schedule=None, on_trace_ready=None, record_device=True,
                 record_engines=None, correlate_device_time=True, record_shapes=False):
        if record_engines is not None:
            record_engines = tuple(record_engines)
            unknown = [e for e in record_engines if e not in _ENGINE_LANES]
            if unknown:
                raise Error("neuronsim.torch.profile: record_engines: unknown lane %r; known: %s"
                            % (unknown[0], ", ".join(_ENGINE_LANES)))
        if output_dir is not None and not record_device:
            raise Error("neuronsim.torch.profile: output_dir needs record_device=True (a "
                        "profile directory holds each launch's device profile)")
        self.output_dir = None if output_dir is None else os.fspath(output_dir)
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_device = bool(record_device)
        self.record_engines = record_engines
        self.correlate_device_time = bool(correlate_device_time)
        self.record_shapes = bool(record_shapes)
        self.step_num = 0
        self.current_action = None
        self._window = None     # being recorded
        self._saved = None      # the last finished window (what key_averages reads)
        self._runtime = None
        self._recording_dir = None  # the runtime writes launch profiles here
        self._saved_dir = None      # the saved window's profile directory (output_dir or a temp)

    # --- torch.profiler.profile's life cycle ---
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()

    def start(self):
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        _runtime.add_watcher(self._attach)
        if _runtime.current_runtime() is not None:
            self._attach(_runtime.current_runtime())
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_window()

    def step(self):
        """Ends the current step and begins the next, moving along the schedule."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if self._window is not None:
            self._end_step()
        if previous == ProfilerAction.RECORD_AND_SAVE or (
                previous in recording and self.current_action not in recording):
            self._stop_window()
        if self.current_action in recording:
            if self._window is None:
                self._start_window()
            else:
                self._begin_step()

    def stop(self):
        try:
            if self._window is not None:
                self._end_step()
                self._stop_window()
        finally:  # detached even when saving the window failed
            _runtime.remove_watcher(self._attach)
            if self._runtime is not None:
                self._runtime.remove_listener(self._listen)
                self._runtime.set_profile_recording(None)
            self._runtime = None  # a later start() attaches afresh
            self.current_action = None

    # --- results ---
    def key_averages(self, group_by_input_shape=False):
        """The saved window's rows (torch's key_averages), each with table()."""
        window = self._finished("key_averages")
        if group_by_input_shape and not self.record_shapes:
            raise Error("key_averages(group_by_input_shape=True) needs record_shapes=True")
        return _table.average(window.events(self.correlate_device_time), group_by_input_shape)

    def export_chrome_trace(self, path):
        """The saved window as a Chrome trace (Perfetto loads it): the host's framework
        dispatch, runtime call, device execution and sync lanes, the aten ops that ran no
        kernel, the profiler steps, and the NeuronCore's engine and DMA lanes."""
        window = self._finished("export_chrome_trace")
        if not self.record_device:
            raise Error("export_chrome_trace: the engine lanes come from each launch's device "
                        "profile: profile with record_device=True")
        _chrome.export(window, self._profile_directory(window), os.fspath(path),
                       self.record_engines)
        return os.fspath(path)

    def totals(self):
        """The saved window in the numbers of `neuronsim compare`: {"end_to_end_ns" (window
        start to end on the host timeline), "device_ns", "host_ns", "launches",
        "hbm_bytes", "in_flight" (launches whose device work the window misses),
        "fallback_ops" (aten ops run on the CPU)}."""
        window = self._finished("totals")
        launches = window.launches()
        ops = [e for e in window.events(True) if e.kind == "op"]
        return {"end_to_end_ns": window.end_ns - window.start_ns,
                "device_ns": sum(r.device_end_ns - r.device_start_ns for r in launches),
                "host_ns": sum(e.self_cpu_us for e in ops) * 1000.0,
                "launches": len(launches),
                "hbm_bytes": sum(r.hbm_bytes for r in launches),
                "in_flight": len(window.in_flight()),
                "fallback_ops": sum(e.fallback for e in ops)}

    @property
    def profile_dir(self):
        """The saved window's profile directory (output_dir, written when the window ended)."""
        return self._saved_dir if self.output_dir is not None else None

    # --- the runtime ---
    def _attach(self, rt):
        if self._runtime is rt:
            return
        if self._runtime is not None:
            raise Error("neuronsim.torch.profile: the profiled code ran on a second runtime "
                        "(%s after %s); profile one neuronsim.torch.device or compiled "
                        "function's runtime at a time" % (rt.target, self._runtime.target))
        self._runtime = rt
        rt.add_listener(self._listen)
        if self._window is not None:
            self._window.start_ns = rt.host_now_ns()
            for s in self._window.steps:
                s.start_ns = self._window.start_ns
            self._record_launch_profiles()

    def _listen(self, record):
        if self._window is not None:
            self._window.records.append(record)

    def _now(self):
        return self._runtime.host_now_ns() if self._runtime is not None else 0.0

    # --- windows and steps ---
    def _start_window(self):
        self._window = Window(start_ns=self._now())
        if self.record_steps:
            self._window.steps.append(Step(self.step_num, self._window.start_ns))
        self._record_launch_profiles()

    def _record_launch_profiles(self):
        if not self.record_device or self._runtime is None:
            return
        if self._recording_dir is None:
            parent = os.path.dirname(os.path.abspath(self.output_dir)) if self.output_dir else None
            try:
                if parent:
                    os.makedirs(parent, exist_ok=True)
                self._recording_dir = tempfile.mkdtemp(prefix=".neuronsim-torch-profile-",
                                                       dir=parent)
            except OSError as e:
                raise Error("neuronsim.torch.profile: %s: cannot record there: %s"
                            % (self.output_dir or tempfile.gettempdir(), e.strerror)) from None
            weakref.finalize(self, shutil.rmtree, self._recording_dir, True)
        self._runtime.set_profile_recording(self._recording_dir)

    def _begin_step(self):
        if self.record_steps:
            self._window.steps.append(Step(self.step_num, self._now()))

    def _end_step(self):
        if self._window.steps and self._window.steps[-1].end_ns is None:
            self._window.steps[-1].end_ns = self._now()

    def _stop_window(self):
        window, self._window = self._window, None
        window.end_ns = self._now()
        window.runtime = self._runtime
        if self._runtime is not None:
            self._runtime.set_profile_recording(None)
        self._saved, self._saved_dir = window, None
        if self.output_dir is not None:
            self._profile_directory(window)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _finished(self, what):
        if self._saved is None:
            raise Error("neuronsim.torch.profile.%s: no window has finished recording yet "
                        "(the schedule's active steps end at prof.step(), or at the end of "
                        "the with block)" % what)
        return self._saved

    def _profile_directory(self, window):
        """The window's sequence profile directory, written once."""
        if self._saved_dir is None:
            _profile_dir.check_writable(window, self.output_dir or "export_chrome_trace")
            if self.output_dir is not None:
                out = self.output_dir
            else:
                out = os.path.join(tempfile.mkdtemp(prefix=".neuronsim-torch-trace-"), "p")
                weakref.finalize(self, shutil.rmtree, os.path.dirname(out), True)
            self._saved_dir = _profile_dir.write(window, out, window.runtime.host_params)
        return self._saved_dir
