#pragma once
// Running a launch sequence (sequence/launch_sequence.hpp) in this process, in one simulation:
// one HBM and one NeuronCore, the launches queued on the core in order. Program tensors
// live in device HBM, below the core's window, for the whole program: each launch binds
// its inputs and outputs to them by address, so what one launch writes the next one
// reads. The host model (sequence/host_model.hpp) places the launches on the host timeline;
// `profile_dir` receives the sequence profile (host.json + launch_NNN/), all or nothing.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "neuronsim/run.hpp"
#include "sequence/host_model.hpp"
#include "sequence/launch_sequence.hpp"

namespace neuronsim::sequence {

struct SequenceRunOptions {
  TensorBytes inputs;  // program inputs by name (checked against the program's tensors)
  bool timing_only = false;
  bool fill_uninitialised = false;
  std::string profile_dir;  // empty: no profile
  // An observer of launch i's events (e.g. a progress line), or null; may be empty.
  std::function<engines::Observer*(std::size_t launch)> launch_observer;
};

// What a launch did.
struct LaunchRun {
  std::uint64_t total_ps = 0;
  std::uint64_t neuroncore_cycle_count = 0;
  LaunchStats stats;  // every module's statistics (<neuronsim/statistics.hpp>)
  std::uint64_t trace_bytes = 0, trace_instructions = 0;
};

struct SequenceResult {
  std::vector<LaunchRun> launches;
  profile::HostTimeline timeline;
  TensorBytes tensors;  // every program output after the last launch (empty: timing only)
};

// Every launch's NEFF read and checked against the hash launch.json records, and the
// bindings checked (what run_sequence does before anything runs). Throws neuronsim::Error
// naming the launch and the reason.
struct SequenceKernels {
  std::vector<std::vector<std::uint8_t>> neff_bytes;  // as read
  std::vector<isa::Kernel> kernels;                   // in launch order
};
SequenceKernels load_sequence_kernels(const LaunchSequence& seq);

// Checks every NEFF and binding first (nothing runs if one is wrong), then runs the
// launches in order. Throws neuronsim::Error naming the launch and the reason.
SequenceResult run_sequence(const LaunchSequence& seq, const config::TargetConfig& config,
                            const SequenceRunOptions& options);

}  // namespace neuronsim::sequence
