#pragma once
// Conversions between SystemC time and the ns / cycle figures the engines report.
#include <cmath>
#include <cstdint>

#include <systemc>

namespace neuronsim::engines {

inline double to_ns(const sc_core::sc_time& t) {
  return t.to_seconds() * 1e9;
}
inline std::uint64_t to_ps(const sc_core::sc_time& t) {
  return static_cast<std::uint64_t>(std::llround(t.to_seconds() * 1e12));
}
inline sc_core::sc_time from_ns(double ns) {
  return sc_core::sc_time(ns, sc_core::SC_NS);
}
// Cycles of a clock of `ghz` elapsed in `t` (rounded to the nearest cycle).
inline std::uint64_t to_cycles(const sc_core::sc_time& t, double ghz) {
  return static_cast<std::uint64_t>(std::llround(to_ns(t) * ghz));
}
inline sc_core::sc_time cycles_time(std::uint64_t cycles, double ghz) {
  return from_ns(static_cast<double>(cycles) / ghz);
}

}  // namespace neuronsim::engines
