// forge_trace MODE IN.ntff OUT.ntff: a well-formed NTFF (right checksum and counts) that
// lies, for tests/hostile/hostile.sh. Modes:
//   total-max  the trailer's total time is 2^64-1 ps
//   bytes-max  every byte count and FLOP count is 2^64-1, so totals must saturate
//   late       every record is moved to end at 2^64-2 ps
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>

#include "base/error.hpp"
#include "traces/ntff.hpp"

using namespace neuronsim::traces;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: forge_trace total-max|bytes-max|late IN.ntff OUT.ntff\n";
    return 1;
  }
  const std::string mode = argv[1];
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  try {
    TraceData t = read_ntff(argv[2]);
    std::uint64_t total = t.info.total_ps;
    if (mode == "total-max") {
      total = kMax;
    } else if (mode == "bytes-max") {
      for (auto& r : t.instructions) {
        for (int m = 0; m < 3; ++m)
          r.bytes.read[m] = r.bytes.written[m] = kMax;
        r.flops = kMax;
      }
      for (auto& r : t.dmas)
        r.bytes = kMax;
    } else if (mode == "late") {
      const std::uint64_t shift = kMax - 1 - total;
      for (auto& r : t.instructions)
        r.ready_ps += shift, r.start_ps += shift, r.end_ps += shift;
      for (auto& r : t.dmas)
        r.issue_ps += shift, r.start_ps += shift, r.end_ps += shift;
      for (auto& r : t.semaphores)
        r.time_ps += shift;
      total = kMax - 1;
    } else {
      std::cerr << "forge_trace: unknown mode " << mode << "\n";
      return 1;
    }
    NtffWriter w(argv[3], t.info);
    for (const auto& r : t.instructions)
      w.add(r);
    for (const auto& r : t.dmas)
      w.add(r);
    for (const auto& r : t.semaphores)
      w.add(r);
    w.close(total);
  } catch (const neuronsim::Error& e) {
    std::cerr << "forge_trace: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
