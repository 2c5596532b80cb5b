#include "sequence/sequence_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "memory/memory_image.hpp"
#include "neff/neff.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"
#include "profile/host_trace.hpp"
#include "profile/profiled_run.hpp"

namespace neuronsim::sequence {

namespace fs = std::filesystem;

namespace {

// The staging folder a sequence profile is built in, renamed to `dir` when complete: a
// new directory under an unpredictable name (mkdtemp), so nothing planted is written into.
std::string staging_dir(const std::string& dir) {
  const fs::path parent = fs::path(dir).parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw Error(dir + ": cannot create the profile directory: " + ec.message());
  return create_temp_dir_beside(dir);
}

void check_profile_target(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": exists and is not a directory");
  if (!fs::is_empty(dir, ec))
    throw Error(dir +
                ": the profile directory exists and is not empty; remove it or choose another");
}

}  // namespace

namespace {

// Program tensors at the bottom of device HBM, each on a page of its own; the core's
// window for the launches' constants and scratch tensors starts above them.
constexpr std::uint64_t kPage = 4096;

std::uint64_t page_up(std::uint64_t v) {
  return (v + kPage - 1) / kPage * kPage;
}

LaunchRun summary(const LaunchResult& r, const profile::LaunchProfile* profile) {
  LaunchRun l;
  l.total_ps = r.total_ps;
  l.neuroncore_cycle_count = r.neuroncore_cycle_count;
  l.stats = r.stats;
  if (profile) {
    l.trace_bytes = profile->trace_bytes;
    l.trace_instructions = profile->trace_instructions;
  }
  return l;
}

void simulate(const LaunchSequence& seq, const config::TargetConfig& config,
              const SequenceRunOptions& options, const std::vector<isa::Kernel>& kernels,
              const std::vector<std::vector<std::uint8_t>>& neff_bytes, const std::string& staging,
              SequenceResult& result) {
  require_elaboration(seq.path);
  std::map<std::string, std::uint64_t> addresses;  // program tensors
  std::uint64_t top = 0;
  for (const auto& t : seq.tensors) {
    // A tensor that fits in one of the Hbm's chunks starts at the next one rather than
    // cross a boundary: one DMI pointer then serves it and the core never stages it.
    const std::uint64_t bytes = t.as_hbm_tensor().bytes(), chunk = Hbm::kChunkBytes;
    if (bytes <= chunk && top / chunk != (top + bytes - 1) / chunk) top = (top / chunk + 1) * chunk;
    addresses[t.name] = top;
    top = page_up(top + bytes);
  }
  Hbm hbm("hbm", config);
  if (top >= hbm.size())
    throw Error(seq.path + ": the program's tensors (" + std::to_string(top) +
                " bytes) do not fit in the target's HBM");
  CoreOptions core_options;
  core_options.hbm_window_base = top;
  NeuronCore core("core", config, core_options);
  core.hbm.bind(hbm.socket);
  if (!options.timing_only) {
    // Inputs go into HBM straight from the caller's bytes. Every other tensor starts
    // uninitialised: zero needs no writing (the Hbm was just made, and its untouched pages
    // read as zero); a poison fill is written a chunk at a time.
    std::vector<std::uint8_t> chunk;
    for (const auto& t : seq.tensors) {
      const std::uint64_t address = addresses.at(t.name);
      if (auto given = options.inputs.find(t.name); given != options.inputs.end()) {
        hbm.write(address, given->second.data(), given->second.size());
        continue;
      }
      if (!options.fill_uninitialised) continue;
      const isa::HbmTensor h = t.as_hbm_tensor();
      constexpr std::uint64_t kChunkBytes = 1 << 20;  // a whole number of elements of any dtype
      chunk.resize(static_cast<std::size_t>(std::min(kChunkBytes, h.bytes())));
      memory::fill_uninitialised(chunk.data(), chunk.size(), h.dtype, memory::UninitFill::poison,
                                 config.uninitialised_int_fill);
      for (std::uint64_t at = 0; at < h.bytes(); at += chunk.size())
        hbm.write(address + at, chunk.data(),
                  std::min<std::uint64_t>(chunk.size(), h.bytes() - at));
    }
  }

  std::vector<std::unique_ptr<profile::LaunchProfile>> profiles;
  std::vector<LaunchRequest> requests;
  for (std::size_t i = 0; i < seq.launches.size(); ++i) {
    const SequenceLaunch& l = seq.launches[i];
    LaunchRequest r;
    r.kernel = std::shared_ptr<const isa::Kernel>(&kernels[i], [](const isa::Kernel*) {});
    r.other_target = true;  // the caller chose the target the program runs on
    r.source = l.neff_path;
    for (const auto& t : kernels[i].tensors)
      if (t.role == isa::TensorRole::input || t.role == isa::TensorRole::output)
        r.tensor_addresses[t.name] = addresses.at(t.name);
    r.collect_outputs = false;
    r.timing_only = options.timing_only;
    r.fill_uninitialised = options.fill_uninitialised;
    if (!staging.empty()) {
      const std::string dir = (fs::path(staging) / profile::launch_profile_folder(i)).string();
      profiles.push_back(
          std::make_unique<profile::LaunchProfile>(neff_bytes[i], config, l.neff_path, dir));
      r.observers.push_back(profiles.back()->observer());
    }
    if (options.launch_observer)
      if (engines::Observer* o = options.launch_observer(i)) r.observers.push_back(o);
    requests.push_back(std::move(r));
  }
  // Every launch is queued at once: the core runs them back to back, each exactly as a
  // lone launch would run (its device time does not depend on when the host submits it,
  // on one core with nothing else in the simulation). The host's side is the host model's
  // arithmetic below; sequence/host_driver.hpp plays the same model out as a SystemC process
  // (tests/sim/launch_many.cpp checks that both agree), but its timed waits would reorder
  // the device's equal-time events and so the trace records (SystemC orders equal-time
  // events by its own queue), and profiles are to stay byte-identical to a lone launch's.
  std::vector<LaunchHandle> launches;
  for (auto& r : requests)
    launches.push_back(core.launch(std::move(r)));
  sc_core::sc_start();
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (!launches[i]->finished())
      throw Error(seq.path + ": the simulation ended before launch " + std::to_string(i) + " did");
    const LaunchResult& r = launches[i]->result();
    r.rethrow_if_failed();
    if (!profiles.empty()) profiles[i]->finish(r);
    result.launches.push_back(summary(r, profiles.empty() ? nullptr : profiles[i].get()));
  }
  std::vector<double> device_ns;
  for (const auto& l : result.launches)
    device_ns.push_back(static_cast<double>(l.total_ps) / 1000.0);
  result.timeline = schedule_launches(config.host, device_ns);
  if (!options.timing_only)
    for (const auto& t : seq.tensors) {
      if (t.role != ProgramTensor::Role::output) continue;
      std::vector<std::uint8_t> bytes(t.as_hbm_tensor().bytes());
      hbm.read(addresses.at(t.name), bytes.data(), bytes.size());
      result.tensors[t.name] = std::move(bytes);
    }
}

}  // namespace

SequenceKernels load_sequence_kernels(const LaunchSequence& seq) {
  SequenceKernels out;
  for (const auto& l : seq.launches) {
    std::error_code ec;
    if (!fs::exists(l.neff_path, ec))
      throw Error(seq.path + ": launch '" + l.name + "': NEFF " + l.neff_path + " not found");
    out.neff_bytes.push_back(read_file(l.neff_path, Limit::neff_file_bytes));
    neff::Neff file = neff::read(out.neff_bytes.back(), l.neff_path);
    if (const std::string hash = l.neff_sha256.empty() ? "" : neff::hash_hex(file.header);
        hash != l.neff_sha256)
      throw Error(seq.path + ": launch '" + l.name + "': NEFF " + l.neff_path + " has hash " +
                  hash + ", not the " + l.neff_sha256 +
                  " launch.json records (a NEFF from another compile)");
    out.kernels.push_back(std::move(file.kernel));
  }
  check_bindings(seq, out.kernels);
  return out;
}

SequenceResult run_sequence(const LaunchSequence& seq, const config::TargetConfig& config,
                            const SequenceRunOptions& options) {
  // Everything that can be checked without simulating, before anything runs.
  const SequenceKernels loaded = load_sequence_kernels(seq);
  const std::vector<std::vector<std::uint8_t>>& neff_bytes = loaded.neff_bytes;
  const std::vector<isa::Kernel>& kernels = loaded.kernels;
  SequenceResult result;
  for (const auto& [name, bytes] : options.inputs) {
    const ProgramTensor* t = seq.find(name);
    if (!t || t->role != ProgramTensor::Role::input)
      throw Error(seq.path + ": the program has no input tensor named '" + name + "'");
    if (bytes.size() != t->as_hbm_tensor().bytes())
      throw Error(seq.path + ": input '" + name + "' has " + std::to_string(bytes.size()) +
                  " bytes, the tensor needs " + std::to_string(t->as_hbm_tensor().bytes()));
  }
  for (const auto& t : seq.tensors)
    if (t.role == ProgramTensor::Role::input && !options.inputs.count(t.name) &&
        !options.timing_only)
      throw Error(seq.path + ": program input '" + t.name + "' not given");

  std::string staging;
  if (!options.profile_dir.empty()) {
    check_profile_target(options.profile_dir);
    staging = staging_dir(options.profile_dir);
  }
  try {
    simulate(seq, config, options, kernels, neff_bytes, staging, result);
    if (!staging.empty()) {
      const profile::HostTrace trace = make_host_trace(seq, config, result.timeline);
      write_file_atomic((fs::path(staging) / profile::kHostTraceFile).string(),
                        profile::host_trace_json(trace).dump(2) + "\n");
      std::error_code ec;
      fs::remove(options.profile_dir, ec);  // an empty directory (checked above)
      fs::rename(staging, options.profile_dir, ec);
      if (ec)
        throw Error(options.profile_dir + ": cannot move the profile into place: " + ec.message());
    }
  } catch (...) {
    if (!staging.empty()) {
      std::error_code ec;
      fs::remove_all(staging, ec);
    }
    throw;
  }
  return result;
}

}  // namespace neuronsim::sequence
