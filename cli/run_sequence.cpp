// `neuronsim run launch.json`: a launch sequence on one core, with the host model's
// timeline (cli/run.hpp).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "cli/progress.hpp"
#include "cli/run.hpp"
#include "io/npy.hpp"
#include "sequence/sequence_runner.hpp"
#include "sim/stats_json.hpp"

namespace neuronsim::cli {

namespace {

void print_sequence(const sequence::LaunchSequence& seq, const config::TargetConfig& cfg,
                    const sequence::SequenceResult& r, std::ostream& out) {
  out << "program " << seq.program << " (" << seq.mode << "), " << seq.launches.size()
      << " launches on " << cfg.name << ", host " << (cfg.host.async ? "async" : "sync")
      << " (docs/host-model.md)\n\n";
  const std::vector<std::string> head = {"#",           "launch",       "op",
                                         "dispatch ns", "runtime ns",   "device start ns",
                                         "device ns",   "device end ns"};
  const std::vector<std::size_t> width = {4, 16, 16, 14, 14, 16, 14, 16};
  for (std::size_t i = 0; i < head.size(); ++i)
    out << (i == 1 || i == 2 ? "  " + head[i] + std::string(width[i] - head[i].size(), ' ')
                             : pad(head[i], width[i]));
  out << "\n";
  auto left = [](const std::string& s, std::size_t w) {
    return "  " + (s.size() >= w ? s : s + std::string(w - s.size(), ' '));
  };
  for (std::size_t i = 0; i < seq.launches.size(); ++i) {
    const profile::LaunchTiming& l = r.timeline.launches[i];
    out << pad(std::to_string(i), width[0]) << left(seq.launches[i].name, width[1])
        << left(seq.launches[i].op, width[2]) << pad(fixed(l.framework_dispatch.length()), width[3])
        << pad(fixed(l.runtime_call.length()), width[4]) << pad(fixed(l.device.start_ns), width[5])
        << pad(fixed(l.device_ns), width[6]) << pad(fixed(l.device.end_ns), width[7]) << "\n";
  }
  const double total = r.timeline.total_ns;
  out << "\nend to end: " << fixed(total) << " ns; device: " << fixed(r.timeline.device_ns)
      << " ns (" << fixed(total > 0 ? 100.0 * r.timeline.device_ns / total : 0.0, 1)
      << "%); device idle between launches (dispatch gaps): " << fixed(r.timeline.dispatch_gap_ns())
      << " ns\n";
}

}  // namespace

void run_sequence_mode(const RunArgs& args) {
  const sequence::LaunchSequence seq =
      sequence::read_launch_sequence(args.neff_path, args.allow_outside_files);
  std::string target = args.target;
  if (target.empty()) {
    std::error_code ec;
    const std::string& first = seq.launches.front().neff_path;
    if (std::filesystem::exists(first, ec)) target = neff::read_file(first).kernel.target;
    if (target.empty()) target = "trn1";
  }
  const config::TargetConfig cfg = config::load_target(target, args.configs);
  sequence::SequenceRunOptions options;
  options.inputs = program_inputs(seq, args);
  std::vector<isa::HbmTensor> input_tensors;
  for (const auto& t : seq.tensors)
    if (t.role == sequence::ProgramTensor::Role::input) input_tensors.push_back(t.as_hbm_tensor());
  save_inputs(args, input_tensors, options.inputs);
  options.timing_only = args.timing_only;
  options.fill_uninitialised = args.fill_uninit;
  options.profile_dir = args.profile_dir;
  auto progress =
      Progress::wanted(args.quiet) ? std::make_unique<Progress>(seq.launches.size()) : nullptr;
  if (progress) options.launch_observer = [&](std::size_t i) { return progress->observer(i); };
  const sequence::SequenceResult r = sequence::run_sequence(seq, cfg, options);
  progress.reset();  // clears its line before the summary
  if (!args.stats_json.empty()) {
    nlohmann::ordered_json doc = stats_document("program", seq.program, cfg, args);
    // The host model's timeline (as the summary prints it): what a sweep of sequences reads.
    doc["end_to_end_ns"] = r.timeline.total_ns;
    doc["device_ns"] = r.timeline.device_ns;
    doc["dispatch_gap_ns"] = r.timeline.dispatch_gap_ns();
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < seq.launches.size(); ++i)
      // The same statistics as `run --stats-json` of one kernel, read back as a plain
      // object (so in the order of their names).
      launches.push_back(
          {{"name", seq.launches[i].name},
           {"stats", nlohmann::json::parse(sim::stats_json(r.launches[i].stats).dump())}});
    doc["launches"] = launches;
    write_stats(args.stats_json, doc);
  }
  if (!args.out_dir.empty() && !r.tensors.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec) throw Error(args.out_dir + ": cannot create the output directory: " + ec.message());
    for (const auto& t : seq.tensors) {
      if (t.role != sequence::ProgramTensor::Role::output) continue;
      const std::string path = (std::filesystem::path(args.out_dir) / (t.name + ".npy")).string();
      io::write_npy(path, t.dtype, t.shape, r.tensors.at(t.name), args.raw_bits);
      std::cout << "wrote " << path << "\n";
    }
  }
  print_sequence(seq, cfg, r, std::cout);
  if (!args.profile_dir.empty()) std::cout << "profile: " << args.profile_dir << "\n";
}

}  // namespace neuronsim::cli
