// The public Hbm's constructor from a target config: the config's params/ structs handed to
// the model (memory/hbm.cpp), which never sees the config itself.
#include "config/target_config.hpp"
#include "neuronsim/hbm.hpp"

namespace neuronsim {

Hbm::Hbm(sc_core::sc_module_name name, const TargetConfig& config)
    : Hbm(name, config.name, config.generation, config.hbm, config.dma) {}

}  // namespace neuronsim
