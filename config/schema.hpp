#pragma once
// The parameters a target config has: one table, in the order of the preset files, giving
// each parameter's JSON section and key, its unit, what values it accepts and which
// runtime field(s) it fills. The presets must hold exactly these parameters; the units and
// docs are in the JSON presets (config/targets/*.json), the source of truth for the numbers.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/target_config.hpp"

namespace neuronsim::config::schema {

// What values a parameter accepts. Integers are stored as JSON unsigned numbers, reals as
// doubles, flags as booleans.
enum class Kind {
  positive_int,   // integer >= 1
  counter_int,    // integer >= 0
  positive_real,  // number > 0
  latency_real,   // number >= 0
  fraction,       // number in (0, 1]
  flag,           // true / false
};

struct Param {
  std::string_view section;
  std::string_view key;
  std::string_view unit;  // the unit the runtime conversion assumes; presets must agree
  Kind kind;
  std::uint64_t max_int;  // for integer kinds: the largest value the runtime field holds
  void (*apply)(TargetConfig& target, const nlohmann::json& value);  // value already checked
};

const std::vector<Param>& params();
const Param* find(std::string_view section, std::string_view key);
bool is_section(std::string_view section);
std::vector<std::string> section_names();  // in table order
std::vector<std::string> keys_of(std::string_view section);

// The range a real-valued parameter must lie in, by its unit (integers have max_int).
struct RealRange {
  double lo, hi;
  const char* why;
};
RealRange real_range(const Param& p);

// Checks `value` against the parameter's kind and returns it normalised (8.0 -> 8 for
// integers). On a bad value returns nothing and sets `reason`.
bool check_value(const Param& p, const nlohmann::json& value, nlohmann::json& normalised,
                 std::string& reason);

}  // namespace neuronsim::config::schema
