#pragma once
// The kernel a core runs: isa::Kernel (per-engine instruction streams, semaphores, DMA
// queues, HBM tensors and SBUF/PSUM allocations; docs/assembly.md), made with the builder
// (<neuronsim/builder.hpp>) or read from a NEFF file (docs/neff.md).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim {

using isa::Kernel;

// Reads and checks a NEFF file or its bytes; throws neuronsim::Error naming the file.
std::shared_ptr<const Kernel> load_neff(const std::string& path);
std::shared_ptr<const Kernel> load_neff(const std::vector<std::uint8_t>& bytes,
                                        const std::string& name);

}  // namespace neuronsim
