#pragma once
// The what-if analysis (docs/whatif.md): the kernel simulated timing only as it is (the
// baseline, traced in memory), then once per relief (whatif/reliefs.hpp) and once per
// semaphore wait of the baseline's critical path, longest first, with that one wait
// taken out (whatif/kernel_edits.hpp); the reliefs ranked by the kernel's time with each.
// All of it in one simulation (whatif/bench.hpp): this needs a process, or a SystemC
// context, that has not started simulating.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "whatif/insights.hpp"
#include "whatif/reliefs.hpp"
#include "whatif/subject.hpp"

namespace neuronsim::whatif {

struct Options {
  std::string target;                  // preset or target file; empty: the kernel's own
  std::vector<std::string> overrides;  // override files, applied in order
  std::size_t max_waits = 8;           // critical-path waits tried, the longest first
};

struct Row {
  ResourceKind kind = ResourceKind::engine;
  std::string resource;  // "tensor engine", "HBM", "semaphore q_done", ...
  std::string relief;    // "cost halved", "wait removed", ...
  std::string change;    // the parameters set, or the wait taken out
  std::string where;     // semaphore waits: launch, instruction and source line
  double time_ns = 0;    // the kernel's time with the relief (error: none)
  double speedup = 0;    // baseline / time_ns
  // What the resource does in the baseline: the share of the device time it is busy
  // (-1: not a busy resource), the waits it causes (ns) and a line saying so.
  double busy_share = -1;
  double waits_caused_ns = 0;
  std::string role;
  std::string error;   // the relief broke the kernel (e.g. a deadlock); not ranked
  std::string unused;  // not simulated: why it cannot change anything (time: the baseline's)
};

struct Result {
  std::string source, target;
  bool sequence = false;
  std::size_t launches = 0;
  double baseline_ns = 0;  // device time of a NEFF; end to end (host model) of a sequence
  double device_ns = 0;    // device time, all launches
  std::size_t simulated_launches = 0;
  std::vector<Row> ranking;       // fastest first (ties in relief order); failed reliefs last
  std::vector<Insight> insights;  // by measured speedup, the largest first
};

Result analyse(const Subject& subject, const Options& options);

// The insights of a profile directory (whatif/subject.hpp, profile_subject) on the target
// its trace recorded, analysed in a fresh simulation context of its own (sim/fresh_context.hpp)
// so that a program may ask for several: `neuronsim view --insights`, `report --insights`.
std::vector<Insight> profile_insights(const std::string& dir);

}  // namespace neuronsim::whatif
