#pragma once
// A launch sequence (outdir/launch.json, written by `neuronsim compile`): the program's
// tensors and the NEFFs to run in order. Each NEFF's HBM tensors with role input/output
// bind by name to the program tensors of the same name (same dtype and shape); constants
// stay inside the NEFF; intermediates live in host-modelled HBM between launches.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::sequence {

struct ProgramTensor {
  enum class Role { input, output, intermediate };
  std::string name;
  isa::DType dtype = isa::DType::fp32;
  std::vector<std::uint64_t> shape;
  Role role = Role::input;
  isa::HbmTensor as_hbm_tensor() const;  // for input generation and .npy output
};

// One launch as launch.json lists it: a NEFF file to run and the op it stands for (not
// the core's neuronsim::Launch, the handle of a launch in flight).
struct SequenceLaunch {
  std::string name;
  std::string neff;       // as written in launch.json (relative to it)
  std::string neff_path;  // resolved against launch.json's folder
  std::string op;
  std::vector<std::string> nodes;
  std::string neff_sha256;  // the manifest's hash of the NEFF's payload; empty: not given
};

struct LaunchSequence {
  std::string path;  // launch.json, for messages
  std::string program, mode;
  std::vector<ProgramTensor> tensors;
  std::vector<SequenceLaunch> launches;
  const ProgramTensor* find(const std::string& name) const;  // nullptr if none
};

// Reads and checks the file's structure; throws neuronsim::Error naming the file, the
// field (e.g. "launches[1].neff") and the reason.
// Every launch's NEFF must resolve (symlinks followed) to a file inside the launch.json's
// own directory unless `allow_outside_files` (run --allow-outside-files): a sequence
// from someone else may not make the simulator read /etc/passwd or ../../anything.
LaunchSequence read_launch_sequence(const std::string& path, bool allow_outside_files = false);
bool looks_like_launch_sequence(const std::string& path);  // a .json file

// Checks each launch's kernel against the program: every input/output tensor of the
// kernel names a program tensor of the same dtype and shape; a launch reads only program
// inputs and tensors an earlier launch wrote; no launch writes a program input; every
// program output is written. `kernels[i]` is launch i's.
void check_bindings(const LaunchSequence& seq, const std::vector<isa::Kernel>& kernels);

}  // namespace neuronsim::sequence
