#include "base/statistics.hpp"

#include <utility>

#include "base/error.hpp"

namespace neuronsim {

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::ns:
      return "ns";
    case Unit::cycles:
      return "cycles";
    case Unit::bytes:
      return "bytes";
    case Unit::count:
      return "count";
    case Unit::percent:
      return "percent";
  }
  throw Error("unit_name: not a Unit");
}

double Statistic::number() const {
  return std::visit([](auto v) { return static_cast<double>(v); }, value);
}

void StatisticList::add(std::string name, Unit unit, std::string description,
                        std::variant<std::uint64_t, double> value) {
  for (const Statistic& s : items_)
    if (s.name == name) throw Error("statistic '" + name + "' listed twice");
  items_.push_back({std::move(name), unit, std::move(description), value});
}

}  // namespace neuronsim
