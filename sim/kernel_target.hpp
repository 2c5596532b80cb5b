#pragma once
// Whether a kernel was built for the target of the core that runs it. A kernel names its
// target (isa::Kernel::target: "trn1", a preset, or the name of an override file's target);
// a core knows its TargetConfig. Same target: no name, the core's own name, or a preset of
// the core's NeuronCore generation (an override file of trn2 runs trn2 kernels).
#include <string>

#include "config/target_config.hpp"

namespace neuronsim::sim {

// Empty when `kernel_target` is `config`'s target; else why not, as "built for trn1
// (NeuronCore-v2); this core is trn2 (NeuronCore-v3)".
std::string other_target_reason(const std::string& kernel_target,
                                const config::TargetConfig& config);

}  // namespace neuronsim::sim
