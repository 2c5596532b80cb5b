#pragma once
// What `neuronsim whatif` relieves, one at a time (docs/whatif.md). Every relief of a
// resource is a change of target parameters the models read (config/schema.hpp): a
// compute engine's cost halved and removed (<engine>.cost_percent), the DMA engines'
// bandwidth doubled, the DMA fixed costs removed, the HBM bandwidth doubled, each port
// sharing the target has turned off, and, for a launch sequence, the host's costs removed.
// The semaphore waits of the critical path are kernel edits (whatif/kernel_edits.hpp).
#include <string>
#include <vector>

#include "config/resolve.hpp"
#include "isa/engine.hpp"

namespace neuronsim::whatif {

enum class ResourceKind { engine, dma, hbm, port, host, semaphore };

struct Relief {
  ResourceKind kind = ResourceKind::engine;
  std::string resource;  // which engine, port, queue or memory ("tensor engine", "HBM")
  std::string relief;    // what is changed about it ("cost halved")
  config::Patch patch;   // the parameters set, on top of the analysed target
  isa::Engine engine = isa::Engine::tensor;  // kind engine: which
  bool host_only = false;                    // changes only the host model: the device times stay
};

// The reliefs of the resources of `base` (a launch sequence also gets the host's).
std::vector<Relief> config_reliefs(const config::ResolvedTarget& base, bool sequence);

// "tensor.cost_percent = 50, ...": the parameters a patch sets.
std::string change_text(const config::Patch& patch);

}  // namespace neuronsim::whatif
