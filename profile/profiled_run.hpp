#pragma once
// Recording one kernel launch into a profile directory (reference section 7):
// dir/neff_<N>.neff beside dir/<N>_instid_0_vnc_0.ntff, all or nothing: if the launch
// fails, neither file is left behind (a file already there from an earlier run of the
// same NEFF is kept as it was).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "neff/neff.hpp"
#include "neuronsim/run.hpp"
#include "profile/trace_recorder.hpp"

namespace neuronsim::profile {

// One launch's profile: made before the launch (checks the directory, writes the NEFF,
// opens the trace), its observer attached to the launch, then finish() or abandon().
class LaunchProfile {
 public:
  // `neff_bytes`: the NEFF file as read (copied into the profile); `source` names it in
  // errors. Refuses a `dir` that already holds another kernel's profile or a sequence
  // profile (host.json).
  LaunchProfile(const std::vector<std::uint8_t>& neff_bytes, const config::TargetConfig& config,
                const std::string& source, const std::string& dir);
  // The same for `neff_bytes` decoded already (`decoded`): a NEFF is decoded once per run.
  LaunchProfile(const std::vector<std::uint8_t>& neff_bytes,
                std::shared_ptr<const neff::Neff> decoded, const config::TargetConfig& config,
                const std::string& dir);
  ~LaunchProfile();  // abandons an unfinished profile
  LaunchProfile(const LaunchProfile&) = delete;
  LaunchProfile& operator=(const LaunchProfile&) = delete;

  const isa::Kernel& kernel() const { return neff_->kernel; }
  Observer* observer() { return recorder_.get(); }
  void finish(const LaunchResult& result);  // the launch succeeded
  void abandon();                           // it failed: remove what this profile made

  std::string neff_path, ntff_path;
  std::uint64_t trace_bytes = 0;         // size of the .ntff
  std::uint64_t trace_instructions = 0;  // instruction records written
  std::uint64_t trace_records = 0;       // instruction, DMA and semaphore records

 private:
  std::shared_ptr<const neff::Neff> neff_;
  std::string dir_;
  bool dir_existed_ = false, neff_existed_ = false, done_ = false;
  std::unique_ptr<TraceRecorder> recorder_;
};

struct ProfiledRun {
  RunResult result;
  std::string neff_path, ntff_path;
  std::uint64_t trace_bytes = 0, trace_instructions = 0, trace_records = 0;
};

// run_kernel with a LaunchProfile attached: the one simulation of the process.
ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes,
                         const config::TargetConfig& config, const TensorBytes& inputs,
                         RunOptions options, const std::string& source, const std::string& dir);
// The same for `neff_bytes` decoded already (`decoded`), so that it is not decoded again.
ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes,
                         std::shared_ptr<const neff::Neff> decoded,
                         const config::TargetConfig& config, const TensorBytes& inputs,
                         RunOptions options, const std::string& source, const std::string& dir);

}  // namespace neuronsim::profile
