#pragma once
// One kernel run that records its profile directory (reference section 7):
// dir/neff_<N>.neff beside dir/<N>_instid_0_vnc_0.ntff, all or nothing: if the run fails,
// neither file is left behind (a file already there from an earlier run of the same NEFF
// is kept as it was).
#include <cstdint>
#include <string>
#include <vector>

#include "neff/neff.hpp"
#include "sim/run.hpp"

namespace neuronsim::sim {

struct ProfiledRun {
  RunResult result;
  std::string neff_path, ntff_path;
  std::uint64_t trace_bytes = 0;         // size of the .ntff
  std::uint64_t trace_instructions = 0;  // instruction records written
  std::uint64_t trace_records = 0;       // instruction, DMA and semaphore records
};

// `neff_bytes`: the NEFF file as read (copied into the profile); `source` names it in
// errors. Refuses a `dir` that already holds another kernel's profile or a sequence
// profile (host.json). Calls run_kernel, so it is the one simulation of the process.
ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes, const TargetConfig& config,
                         const TensorBytes& inputs, RunOptions options, const std::string& source,
                         const std::string& dir);

}  // namespace neuronsim::sim
