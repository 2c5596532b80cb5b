#pragma once
// A target config as the JSON document `neuronsim config` prints: every field with its
// value, unit and doc. Internal (the program and the Python module print it); the public
// API has load_target and TargetConfig (config/target_config.hpp), which hold no JSON.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::config {

// `name_or_path` and `overrides` as load_target takes them.
nlohmann::json dump_target(const std::string& name_or_path,
                           const std::vector<std::string>& overrides = {});

}  // namespace neuronsim::config
