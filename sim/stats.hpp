#pragma once
// Statistics of a run, registered in one place (name, unit, description, value) and
// dumped as JSON from one place. collect_stats() (sim/launch_stats.hpp) is the only code
// that knows which statistics exist.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::sim {

struct Statistic {
  std::string name;
  std::string unit;  // "ns", "cycles", "bytes", "count", "percent"
  std::string description;
  nlohmann::json value;  // a number
};

class Stats {
 public:
  // Throws neuronsim::Error if `name` is registered already.
  void add(const std::string& name, const std::string& unit, const std::string& description,
           nlohmann::json value);
  const std::vector<Statistic>& all() const { return stats_; }
  const Statistic* find(const std::string& name) const;
  double number(const std::string& name) const;  // throws neuronsim::Error if unknown
  // {"<name>": {"value": v, "unit": u, "description": d}, ...} in registration order.
  nlohmann::ordered_json to_json() const;

 private:
  std::vector<Statistic> stats_;
};

}  // namespace neuronsim::sim
