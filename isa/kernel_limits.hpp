#pragma once
// A kernel against the process's resource limits (base/limits.hpp): the one check every
// reader of kernels (the assembler, the NEFF reader, `neuronsim run`) makes before it
// allocates anything for a kernel.
#include <cstdint>
#include <string>

#include "isa/kernel.hpp"

namespace neuronsim {

// A kernel's declared HBM tensors against the limits: each within tensor_bytes, all
// together within kernel_tensor_bytes and, when `hbm_capacity_bytes` is not 0, within the
// target's HBM (hbm.capacity_bytes, each tensor placed on a 4 KiB boundary as the core
// places them); instructions within the instructions limit. Called before anything is
// allocated for the kernel.
void check_kernel_resources(const isa::Kernel& k, const std::string& source,
                            std::uint64_t hbm_capacity_bytes = 0);

}  // namespace neuronsim
