#pragma once
// Statistics of a run, registered in one place (name, unit, description, value) and
// dumped as JSON from one place. collect_stats() (sim/launch_stats.hpp) is the only code
// that knows which statistics exist. Part of the public API (<neuronsim/statistics.hpp>),
// so plain types only: the JSON document itself is sim/stats_json.hpp's, for the
// program's own writers.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace neuronsim::sim {

struct Statistic {
  std::string name;
  std::string unit;  // "ns", "cycles", "bytes", "count", "percent"
  std::string description;
  // A count (instructions, cycles, bytes) or a measure (ns, percent); JSON writes the
  // first as an integer, the second as a number with a fraction.
  std::variant<std::uint64_t, double> value;
  double number() const;
};

class Stats {
 public:
  // Throws neuronsim::Error if `name` is registered already.
  void add(const std::string& name, const std::string& unit, const std::string& description,
           std::variant<std::uint64_t, double> value);
  const std::vector<Statistic>& all() const { return stats_; }
  const Statistic* find(const std::string& name) const;
  double number(const std::string& name) const;  // throws neuronsim::Error if unknown
  // {"<name>": {"value": v, "unit": u, "description": d}, ...} in registration order, as
  // JSON text (indent < 0: on one line; else that many spaces per level).
  std::string json_text(int indent = -1) const;

 private:
  std::vector<Statistic> stats_;
};

}  // namespace neuronsim::sim
