"""A profiling window written as the sequence profile directory that `neuronsim run
launch.json --profile-dir P` writes (docs/profiling.md, "Sequences"), so that `neuronsim
view`, `export`, `report` and `compare` open it:

    P/host.json       the host timeline: the target's host model, one entry per launch
    P/launch_000/     launch 0's profile (neff_<N>.neff + <N>_instid_0_vnc_0.ntff)

Times are ns from the window's start. Only launches the device finished inside the window
are listed (the rest were in flight when the profiler stopped). Each launch entry also has
"python_line", the user's line that made it (an extra field the readers ignore). Written
whole into a temporary directory beside P, then renamed: all or nothing.
"""
import json
import os
import shutil
import tempfile

from .. import Error

COMPILED_OP_PREFIX = "neuronsim::compiled:"  # a compiled graph's launch (_runtime.LaunchRecord.op)


def _mode(launches):
    compiled = [r.op.startswith(COMPILED_OP_PREFIX) for r in launches]
    return "compiled" if all(compiled) else "eager" if not any(compiled) else "mixed"


def _interval(start, end, origin):
    return {"start_ns": start - origin, "end_ns": end - origin}


def host_trace(window, launch_dirs, host_model):
    launches = window.launches()
    origin = window.start_ns
    entries = []
    for i, (r, folder) in enumerate(zip(launches, launch_dirs)):
        device_ns = r.device_end_ns - r.device_start_ns
        entries.append({
            "index": i, "name": r.kernel, "op": r.op, "nodes": [], "profile": folder,
            "framework_dispatch": _interval(r.dispatch_start_ns, r.dispatch_end_ns, origin),
            "runtime_call": _interval(r.runtime_start_ns, r.runtime_end_ns, origin),
            "device": _interval(r.device_start_ns, r.device_end_ns, origin),
            "host_ns": (r.dispatch_end_ns - r.dispatch_start_ns)
                       + (r.runtime_end_ns - r.runtime_start_ns),
            "device_ns": device_ns, "python_line": r.python_line})
    return {"format": "neuronsim-host-trace", "version": 1, "program": "neuronsim.torch",
            "mode": _mode(launches), "target": launches[0].target, "host_model": host_model,
            "total_ns": window.end_ns - origin,
            "device_ns": sum(e["device_ns"] for e in entries), "launches": entries}


def check_writable(window, what):
    """The window's launches, refused with the reason when they cannot make a profile."""
    launches = window.launches()
    if not launches:
        raise Error("%s: no launch finished on the device inside the profiled window "
                    "(call neuronsim.torch.synchronize() before the profiler stops to wait "
                    "for work in flight)" % what)
    targets = sorted({r.target for r in launches})
    if len(targets) > 1:
        raise Error("%s: the window ran on several targets (%s); a profile directory holds "
                    "one target's launches" % (what, ", ".join(targets)))
    missing = [r for r in launches if not r.profile_dir]
    if missing:
        raise Error("%s: launch %d (%s, %s) has no device profile: profile with "
                    "record_device=True" % (what, missing[0].index, missing[0].op,
                                            missing[0].python_line))
    return launches


def _replaceable(path):
    if not os.path.lexists(path):
        return False
    if not os.path.isdir(path) or os.path.islink(path):
        raise Error("%s: exists and is not a directory; choose another output_dir" % path)
    if os.listdir(path) and not os.path.isfile(os.path.join(path, "host.json")):
        raise Error("%s: holds something other than a profile; choose another output_dir" % path)
    return True


def write(window, out_dir, host_model):
    """Writes the window as a sequence profile at out_dir (replacing an earlier profile
    there), moving each launch's recorded profile into it."""
    launches = check_writable(window, out_dir)
    given, out_dir = out_dir, os.path.abspath(out_dir)
    replace = _replaceable(out_dir)
    parent = os.path.dirname(out_dir)
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".%s.tmp-" % os.path.basename(out_dir), dir=parent)
    except OSError as e:
        raise Error("%s: cannot write the profile: %s" % (given, e.strerror)) from None
    try:
        folders = []
        for i, r in enumerate(launches):
            folder = "launch_%03d" % i
            shutil.copytree(r.profile_dir, os.path.join(staging, folder))
            folders.append(folder)
        trace = host_trace(window, folders, host_model)
        with open(os.path.join(staging, "host.json"), "w") as f:
            json.dump(trace, f, indent=1)
            f.write("\n")
        if replace:
            old = tempfile.mkdtemp(prefix=".%s.old-" % os.path.basename(out_dir), dir=parent)
            os.rename(out_dir, os.path.join(old, "p"))
            os.rename(staging, out_dir)
            shutil.rmtree(old)
        else:
            os.rename(staging, out_dir)
    except OSError as e:
        shutil.rmtree(staging, ignore_errors=True)
        raise Error("%s: cannot write the profile: %s" % (given, e.strerror)) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out_dir
