#pragma once
// The JSON layer of a target config: a preset with override files applied in order, each
// parameter with its value, unit, doc and the file that last set it, checked value by value
// and then for consistency. config.cpp turns it into the runtime TargetConfig.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/target_config.hpp"

namespace neuronsim::config {

struct ResolvedParam {
  nlohmann::json value;  // normalised: integers unsigned, reals double, flags bool
  std::string unit;
  std::string doc;
  std::string source;  // the file that set the value, e.g. "over.json"
};

struct ResolvedTarget {
  std::string base;  // the preset it derives from
  std::string name, generation, description;
  std::map<std::string, std::map<std::string, ResolvedParam>> sections;  // section -> key

  const ResolvedParam& at(const std::string& section, const std::string& key) const;
};

// Overrides given in memory: what an override file holds ({"section": {"key": value}}),
// `source` naming them in messages and as the values' source (a what-if relief).
struct Patch {
  std::string source;
  nlohmann::json values;
};

// Throws neuronsim::Error naming the file, the key (section.key), the value and the reason.
// `patches` apply after the override files, in order.
ResolvedTarget resolve_target(const std::string& name_or_path,
                              const std::vector<std::string>& overrides,
                              const std::vector<Patch>& patches = {});

// The runtime struct of a resolved target (load_target is resolve_target then this).
TargetConfig to_target_config(const ResolvedTarget& r);

std::vector<std::string> preset_names();  // sorted

}  // namespace neuronsim::config
