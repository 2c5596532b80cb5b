"""neuronsim.torch: PyTorch programs on the simulated NeuronCore (docs/torch.md).

    import torch, neuronsim.torch as nt
    with nt.device("trn2"):                    # eager: one launch per aten op
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        z = nt.rms_norm(x, w)                  # the fused op: one launch
    f = nt.compile(fn, target="trn2")          # compiled: the captured graph, fused
    y = f(x, w)
    with nt.profile(output_dir="prof") as prof:  # torch.profiler's shape (profiler.py)
        y = f(x, w); nt.synchronize()
    print(prof.key_averages().table(sort_by="self_privateuse1_time_total"))

Tensors stay ordinary CPU tensors; results carry the device's numerics."""
from ._compiled import Compiled, compile
from ._eager import device
from ._rms_norm import rms_norm
from .profiler import ProfilerAction, profile, schedule
from ._runtime import HostOpRecord, LaunchRecord, Runtime, current_runtime

__all__ = ["device", "compile", "Compiled", "rms_norm", "synchronize", "current_runtime",
           "Runtime", "LaunchRecord", "HostOpRecord", "profile", "schedule", "ProfilerAction"]


def synchronize():
    """The host waits for all device work of the active runtime (as torch.cuda.synchronize);
    returns the new host time in ns, or None outside any neuronsim.torch runtime."""
    rt = current_runtime()
    return None if rt is None else rt.synchronize()
