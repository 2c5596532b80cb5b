#pragma once
// `neuronsim run`, one file per mode: cmd_run.cpp parses the options and picks the mode;
// run_kernel.cpp runs one NEFF on one core, run_cores.cpp one NEFF on N cores of a
// device at once (--cores), run_sequence.cpp a launch sequence (launch.json) on one core;
// run_io.cpp holds what they share: inputs from the command line, saved inputs, outputs
// and the statistics file.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/target_config.hpp"
#include "isa/kernel.hpp"
#include "neff/neff.hpp"
#include "neuronsim/run.hpp"
#include "sequence/launch_sequence.hpp"
#include "traces/format.hpp"

namespace neuronsim::cli {

struct RunArgs {
  std::string neff_path;
  std::string target;  // empty: the kernel's own target
  std::vector<std::string> configs;
  std::vector<std::string> inputs;
  std::uint64_t seed = 0;
  std::string out_dir;
  bool raw_bits = false;
  bool timing_only = false;
  bool fill_uninit = false;
  std::string stats_json;   // "-": standard output
  std::string save_inputs;  // write the inputs here as NAME.npy
  std::string profile_dir;
  unsigned cores = 0;                // 0: one core, no device
  bool quiet = false;                // no progress line
  bool allow_outside_files = false;  // a launch.json may name NEFFs outside its directory
};

// Numbers in run's tables: three decimals unless said.
inline std::string fixed(double v, int decimals = 3) {
  return traces::fixed(v, decimals);
}
inline std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// run_io.cpp
// The bytes of every input the command line names (--input NAME=SPEC, or an .npz archive
// of NAME.npy members), checked against the kernel's or the program's input tensors.
TensorBytes kernel_inputs(const isa::Kernel& k, const RunArgs& args);
TensorBytes program_inputs(const sequence::LaunchSequence& seq, const RunArgs& args);
// --save-inputs: the inputs as the kernel reads them (generated ones included).
void save_inputs(const RunArgs& args, const std::vector<isa::HbmTensor>& tensors,
                 const TensorBytes& bytes);
// --stats-json's opening keys, the same in every mode: what ran (`what`: "kernel" or, for a
// launch sequence, "program"; `name` its name), the target and whether timing only.
nlohmann::ordered_json stats_document(const char* what, const std::string& name,
                                      const config::TargetConfig& cfg, const RunArgs& args);
// --stats-json: the file, said so, or stdout alone ("-").
void write_stats(const std::string& path, const nlohmann::ordered_json& doc);
// --out-dir: every output tensor of the kernel as NAME.npy.
void write_outputs(const isa::Kernel& k, const RunResult& r, const RunArgs& args,
                   std::ostream& out);

// A NEFF read for a run, with its target and inputs (cmd_run.cpp makes it).
struct KernelRun {
  std::vector<std::uint8_t> neff_bytes;
  std::shared_ptr<const neff::Neff> file;  // decoded once: a profile shares it
  config::TargetConfig cfg;
  TensorBytes inputs;
  RunOptions options;
  const isa::Kernel& kernel() const { return file->kernel; }
};

void run_kernel_mode(const RunArgs& args, const KernelRun& run);  // run_kernel.cpp
void run_cores_mode(const RunArgs& args, const KernelRun& run);   // run_cores.cpp
void run_sequence_mode(const RunArgs& args);                      // run_sequence.cpp

}  // namespace neuronsim::cli
