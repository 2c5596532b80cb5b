#pragma once
// The parts of neuronsim._core that module.cpp registers from files of their own.
#include <pybind11/pybind11.h>

namespace neuronsim::python {

// _core.HostScheduler and _core.host_params (host_scheduler.cpp): the host model of
// sequence/host_model.hpp one launch at a time, for python/neuronsim/torch/'s runtime.
void bind_host_scheduler(pybind11::module_& m);
// _core.rmsnorm_kernel (example_kernels.cpp): the hand-fused RMSNorm of examples/, as
// `neuronsim example rmsnorm` makes it.
void bind_example_kernels(pybind11::module_& m);
// _core.nki_dependencies, nki_plan and nki_rows_meet (nki_lowering.cpp): the lowering
// passes of neuronsim.nki (python/neuronsim/nki/_lower.py) over a placed trace.
void bind_nki_lowering(pybind11::module_& m);
// _core.nki_place_tiles (nki_placement.cpp): neuronsim.nki's tile placement by live range
// (python/neuronsim/nki/_alloc.py).
void bind_nki_placement(pybind11::module_& m);
// _core.nki_view_box (nki_region.cpp): a traced view's bounding box, View.region's numbers.
void bind_nki_region(pybind11::module_& m);
// _core.nki_view_text, nki_instr_text and nki_instr_lines (nki_text.cpp): the assembly
// text of neuronsim.nki's traced instructions.
void bind_nki_text(pybind11::module_& m);
// _core.NkiKernelBuilder and nki_kernel_difference (nki_kernel.cpp): a traced kernel's
// instruction lines and its Kernel, built without assembling them.
void bind_nki_kernel(pybind11::module_& m);

}  // namespace neuronsim::python
