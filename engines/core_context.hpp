#pragma once
// What every engine of one NeuronCore shares: the kernel, the cost parameters, memory
// (absent when timing only), ports, semaphores, the DMA subsystem, observers and the
// failure sink. Owned by sim::NeuronCore, which outlives the engines' use of it.
#include "engines/dma_subsystem.hpp"
#include "engines/failure.hpp"
#include "engines/observer.hpp"
#include "engines/semaphores.hpp"
#include "engines/write_watch.hpp"
#include "isa/cost_params.hpp"
#include "isa/kernel.hpp"
#include "memory/memory_image.hpp"
#include "memory/port_map.hpp"

namespace neuronsim::engines {

struct CoreContext {
  const isa::Kernel& kernel;
  const isa::CostParams& cost;
  memory::MemoryImage* memory;  // null: timing only, isa::execute is skipped
  memory::PortMap& ports;
  Semaphores& semaphores;
  DmaSubsystem& dma;
  const Observers& observers;
  FailureSink& failure;
  WriteWatch& written;  // tells the Tensor engine when its loaded stationary changes
};

}  // namespace neuronsim::engines
