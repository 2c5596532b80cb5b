#include "report/html_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace neuronsim::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string px(double value) {
  char buf[32];
  const double rounded = std::round(value * 10.0) / 10.0;
  std::snprintf(buf, sizeof buf, "%.1f", rounded == 0 ? 0.0 : rounded);
  std::string s(buf);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::vector<Tick> time_ticks(std::uint64_t total_ps, int target_count) {
  std::vector<Tick> ticks;
  if (total_ps == 0 || target_count < 1) return ticks;
  const double raw = static_cast<double>(total_ps) / target_count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  // Clamped below 2^63: llround of a larger double is undefined.
  const auto step_ps = static_cast<std::uint64_t>(std::llround(std::clamp(step, 1.0, 9.0e18)));
  struct Unit {
    double ps;
    const char* name;
  };
  static const Unit units[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}, {1, "ps"}};
  Unit unit = units[4];
  for (const Unit& u : units)
    if (static_cast<double>(step_ps) >= u.ps) {
      unit = u;
      break;
    }
  const double in_unit = static_cast<double>(step_ps) / unit.ps;
  const int decimals = in_unit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(in_unit) - 1e-9));
  // Counted, not stepped to total_ps: t += step_ps would wrap past 2^64 - 1 on a forged
  // trace's total and never end. step_ps >= total_ps / target_count, so at most
  // target_count + 1 ticks (+ 1 for rounding of the step).
  const std::uint64_t count = std::min<std::uint64_t>(total_ps / step_ps, target_count + 1);
  for (std::uint64_t i = 0; i <= count; ++i) {
    const std::uint64_t t = i * step_ps;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(t) / unit.ps,
                  unit.name);
    ticks.push_back({t, buf});
  }
  return ticks;
}

}  // namespace neuronsim::report
