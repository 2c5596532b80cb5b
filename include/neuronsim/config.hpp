#pragma once
// neuronsim's target configuration, as the public API sees it: the validated runtime
// struct of a preset (trn1, trn2, trn3) or a JSON file of overrides (docs/config.md).
#include "config/target_config.hpp"

namespace neuronsim {

using config::load_target;
using config::load_target_with;
using config::target_names;
using config::TargetConfig;

}  // namespace neuronsim
