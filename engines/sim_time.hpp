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
// A time counted in picoseconds (traces::EngineTime, the statistics groups) as SystemC
// time, exactly: to_ps(from_ps(to_ps(t))) == to_ps(t) and to_ns(from_ps(to_ps(t))) ==
// to_ns(t) at SystemC's default resolution, 1 ps, and at any coarser one (a time counted
// is a whole number of its steps); a finer one is rounded to the picosecond.
inline sc_core::sc_time from_ps(std::uint64_t ps) {
  const std::uint64_t step = to_ps(sc_core::sc_get_time_resolution());
  return step >= 1 ? sc_core::sc_time::from_value(ps / step)
                   : sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}
inline double ps_to_ns(std::uint64_t ps) {
  return to_ns(from_ps(ps));
}
// A time as the statistics report it: in ns, rounded to the picosecond so the JSON is
// short and stable.
inline double statistic_ns(std::uint64_t ps) {
  return std::round(ps_to_ns(ps) * 1000.0) / 1000.0;
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
