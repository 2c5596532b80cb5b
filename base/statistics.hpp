#pragma once
// Statistics as typed objects (docs/simulation.md, "Statistics"): every module that counts
// something keeps its counts in a statistics group of its own, a plain struct of typed
// members (engines/engine_stats.hpp, engines/dma_stats.hpp, sim/stats.hpp's CoreStats), and
// describes each member once, in the group's list(): its name, unit and description beside
// its value. Everything that shows statistics as a list (the --stats-json document, the
// Python module's `stats`, the tests that check every statistic) is generated from those
// lists; code that needs one value reads the typed member (`result.stats.dma.transfers`),
// never a name. Part of the public API (<neuronsim/statistics.hpp>): plain types only.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace neuronsim {

enum class Unit : std::uint8_t { ns, cycles, bytes, count, percent };
// "ns", "cycles", "bytes", "count", "percent": the unit as the JSON writes it.
std::string_view unit_name(Unit unit);

// One statistic as a group lists it.
struct Statistic {
  std::string name;
  Unit unit = Unit::count;
  std::string description;
  // A count (instructions, cycles, bytes) or a measure (ns, percent); JSON writes the
  // first as an integer, the second as a number with a fraction.
  std::variant<std::uint64_t, double> value;
  double number() const;
};

// The statistics of one or more groups, in the order they were listed.
class StatisticList {
 public:
  // Throws neuronsim::Error if `name` is listed already.
  void add(std::string name, Unit unit, std::string description,
           std::variant<std::uint64_t, double> value);
  const std::vector<Statistic>& all() const { return items_; }

 private:
  std::vector<Statistic> items_;
};

}  // namespace neuronsim
