#pragma once
// neuronsim's target configuration, as the public API sees it: the validated runtime
// struct of a preset (trn1, trn2, trn3) or a JSON file of overrides (docs/config.md).
#include "config/target_config.hpp"

namespace neuronsim {

using sim::load_target;
using sim::target_names;
using sim::TargetConfig;

}  // namespace neuronsim
