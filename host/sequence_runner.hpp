#pragma once
// Running a launch sequence (host/launch_sequence.hpp). SystemC allows one simulation per
// process, so each launch runs in a forked child process: the child simulates the NEFF
// (sim::run_kernel, or run_profiled into the launch's profile folder), sends its outputs
// and a summary of the run back over a pipe and _exits; the parent never starts SystemC.
// A failure in a child reaches the parent as the same neuronsim::Error text.
// Program tensors live in a host-side map: each launch's inputs come from it and its
// outputs go back into it. The host model (host/host_model.hpp) places the launches on the
// host timeline; `profile_dir` receives the sequence profile (host.json + launch_NNN/),
// all or nothing.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/host_model.hpp"
#include "host/launch_sequence.hpp"
#include "sim/run.hpp"

namespace neuronsim::sim {

struct SequenceRunOptions {
  TensorBytes inputs;  // program inputs by name (checked against the program's tensors)
  bool timing_only = false;
  bool fill_uninitialised = false;
  std::string profile_dir;  // empty: no profile
};

// What a child sends back about its launch.
struct LaunchRun {
  std::uint64_t total_ps = 0;
  std::uint64_t neuroncore_cycle_count = 0;
  std::array<EngineSummary, isa::kEngineCount> engines;
  nlohmann::json stats;  // Stats::to_json()
  std::uint64_t trace_bytes = 0, trace_instructions = 0;
};

struct SequenceResult {
  std::vector<LaunchRun> launches;
  HostTimeline timeline;
  TensorBytes tensors;  // every program tensor after the last launch (empty: timing only)
};

// Checks every NEFF and binding first (nothing runs if one is wrong), then runs the
// launches in order. Throws neuronsim::Error naming the launch and the reason.
SequenceResult run_sequence(const LaunchSequence& seq, const TargetConfig& config,
                            const SequenceRunOptions& options);

// Runs `body` in a forked child and returns what it wrote to the pipe; an Error thrown in
// the child is rethrown here with the same text. `what` names the child in messages.
std::vector<std::uint8_t> run_in_child(const std::string& what,
                                       const std::function<std::vector<std::uint8_t>()>& body);

}  // namespace neuronsim::sim
