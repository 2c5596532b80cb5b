// neuronsim run: simulate one kernel (a NEFF) on one NeuronCore; print where the time went
// and what the host model adds around it, write the outputs as .npy and, if asked, the
// statistics as JSON and a profile directory. A launch sequence (launch.json) runs its
// launches one after another on one core (host/sequence_runner.hpp); --cores N runs the
// kernel on N cores of one device at once, to show what sharing HBM costs.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/limits.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "config/target_config.hpp"
#include "host/host_model.hpp"
#include "host/launch_sequence.hpp"
#include "host/sequence_runner.hpp"
#include "io/inputs.hpp"
#include "io/npy.hpp"
#include "io/npz.hpp"
#include "isa/kernel_limits.hpp"
#include "neff/neff.hpp"
#include "neuronsim/device.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/run.hpp"
#include "profile/profiled_run.hpp"
#include "sim/stats_json.hpp"

namespace neuronsim::cli {

namespace {

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

std::string fixed(double v, int decimals = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// An archive spec: "PATH.npz" or "PATH.npz,cast" with no "NAME=" (docs/npy.md).
bool is_archive_spec(const std::string& text, std::string* path, bool* cast) {
  if (text.find('=') != std::string::npos) return false;
  const std::string cast_suffix = ",cast";
  std::string p = text;
  *cast = p.size() > cast_suffix.size() &&
          p.compare(p.size() - cast_suffix.size(), cast_suffix.size(), cast_suffix) == 0;
  if (*cast) p.resize(p.size() - cast_suffix.size());
  if (p.size() <= 4 || p.compare(p.size() - 4, 4, ".npz") != 0) return false;
  *path = p;
  return true;
}

// The input tensor named `name` of the kernel or program, or nullopt.
using FindInput = std::function<std::optional<isa::HbmTensor>(const std::string& name)>;

// The bytes of every input named on the command line (--input NAME=SPEC or an .npz
// archive of NAME.npy members), checked against the kernel or program (`owner` in
// messages). Every tensor is given at most once over all specs.
TensorBytes collect_inputs(const RunArgs& args, const std::string& owner, const FindInput& find) {
  TensorBytes bytes;
  for (const auto& text : args.inputs) {
    std::string archive;
    bool cast = false;
    if (is_archive_spec(text, &archive, &cast)) {
      if (args.timing_only) continue;  // data is never read
      std::map<std::string, isa::HbmTensor> tensors;
      auto limit = [&](const std::string& name) {
        const auto t = find(name);
        if (!t)
          throw Error("--input " + text + ": member '" + name + ".npy' names no input tensor of " +
                      owner);
        if (bytes.count(name))
          throw Error("--input " + text + ": tensor '" + name + "' is given twice");
        tensors.emplace(name, *t);
        return io::npy_max_file_bytes(t->elems());
      };
      for (const io::NpzMember& m : io::read_npz(archive, limit))
        bytes[m.name] =
            io::npy_to_tensor(m.array, tensors.at(m.name),
                              archive + ": member '" + m.name + ".npy'", args.raw_bits, cast);
      continue;
    }
    const io::InputSpec spec = io::parse_input_spec(text);
    const auto tensor = find(spec.tensor);
    if (!tensor)
      throw Error("--input " + text + ": " + owner + " has no input tensor named '" + spec.tensor +
                  "'");
    if (bytes.count(spec.tensor))
      throw Error("--input " + text + ": tensor '" + spec.tensor + "' is given twice");
    bytes[spec.tensor] = args.timing_only
                             ? std::vector<std::uint8_t>(tensor->bytes())  // never read
                             : io::make_input(spec, *tensor, args.seed, args.raw_bits);
  }
  return bytes;
}

TensorBytes input_bytes(const isa::Kernel& k, const RunArgs& args) {
  return collect_inputs(args, "the kernel", [&](const std::string& name) {
    for (const auto& t : k.tensors)
      if (t.name == name && t.role == isa::TensorRole::input) return std::optional(t);
    return std::optional<isa::HbmTensor>();
  });
}

// --stats-json: the file, said so, or stdout alone ("-").
void write_stats(const std::string& path, const nlohmann::ordered_json& doc) {
  const std::string text = doc.dump(2) + "\n";
  write_output(path, text);
  say_wrote(std::cout, path, text.size());
}

// --save-inputs: the inputs as the kernel reads them (generated ones included), to inspect
// or edit and give back: DIR/NAME.npy files (--input NAME=DIR/NAME.npy), or one archive
// when the path ends in .npz (--input X.npz).
void save_inputs(const RunArgs& args, const std::vector<isa::HbmTensor>& tensors,
                 const TensorBytes& bytes) {
  if (args.save_inputs.empty()) return;
  if (args.timing_only) throw Error("--save-inputs: a --timing-only run makes no input data");
  const std::string& where = args.save_inputs;
  const bool archive = where.size() > 4 && where.compare(where.size() - 4, 4, ".npz") == 0;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> members;
  if (!archive) {
    std::error_code ec;
    std::filesystem::create_directories(where, ec);
    if (ec) throw Error(where + ": cannot create the directory: " + ec.message());
  }
  for (const auto& t : tensors) {
    auto it = bytes.find(t.name);
    if (it == bytes.end()) continue;
    if (archive) {
      members.emplace_back(t.name, io::encode_npy(t.dtype, t.shape, it->second, args.raw_bits));
      continue;
    }
    const std::string path = (std::filesystem::path(where) / (t.name + ".npy")).string();
    io::write_npy(path, t.dtype, t.shape, it->second, args.raw_bits);
    std::cout << "wrote " << path << "\n";
  }
  if (archive) {
    const std::vector<std::uint8_t> npz = io::encode_npz(members);
    write_file_atomic(where, npz);
    std::cout << "wrote " << where << " (" << members.size() << " arrays, " << npz.size()
              << " bytes)\n";
  }
}

void print_summary(const isa::Kernel& k, const config::TargetConfig& cfg, const RunResult& r,
                   std::ostream& out) {
  out << "kernel " << k.name << " on " << cfg.name << " (" << cfg.generation << ")"
      << (r.outputs.empty() ? ", timing only" : "") << "\n";
  out << "total: " << fixed(r.total_ns) << " ns = " << r.neuroncore_cycle_count
      << " neuroncore cycles (Tensor engine clock, " << fixed(cfg.tensor_ghz, 2) << " GHz)\n";
  out << "in each engine's clock:";
  for (const auto& e : r.engines) {
    const std::string name(isa::engine_name(e.engine));
    out << " " << name << " " << static_cast<std::uint64_t>(r.stats.number(name + "_clock_cycles"))
        << " @ " << fixed(e.clock_ghz, 2) << " GHz;";
  }
  out << "\n\n";
  const std::vector<std::string> head = {"engine",      "instr",        "busy ns",       "busy %",
                                         "sem wait ns", "port wait ns", "dma-q wait ns", "idle ns"};
  const std::vector<std::size_t> width = {6, 8, 14, 7, 14, 14, 14, 14};
  for (std::size_t i = 0; i < head.size(); ++i)
    out << (i == 0 ? head[i] + std::string(width[0] - head[0].size(), ' ')
                   : pad(head[i], width[i]));
  out << "\n";
  for (const auto& e : r.engines) {
    const std::string name(isa::engine_name(e.engine));
    const double pct = r.total_ns > 0 ? 100.0 * e.busy_ns / r.total_ns : 0.0;
    out << name << std::string(width[0] - name.size(), ' ')
        << pad(std::to_string(e.instructions), width[1]) << pad(fixed(e.busy_ns), width[2])
        << pad(fixed(pct, 1), width[3]) << pad(fixed(e.semaphore_wait_ns), width[4])
        << pad(fixed(e.port_wait_ns), width[5]) << pad(fixed(e.dma_queue_wait_ns), width[6])
        << pad(fixed(e.idle_ns), width[7]) << "\n";
  }
  out << "\nDMA: " << static_cast<std::uint64_t>(r.stats.number("dma_transfer_count"))
      << " transfers, " << static_cast<std::uint64_t>(r.stats.number("dma_transfer_total_bytes"))
      << " bytes; HBM read " << static_cast<std::uint64_t>(r.stats.number("hbm_read_bytes"))
      << " bytes, written " << static_cast<std::uint64_t>(r.stats.number("hbm_write_bytes"))
      << " bytes\n";
}

void write_outputs(const isa::Kernel& k, const RunResult& r, const RunArgs& args,
                   std::ostream& out) {
  if (args.out_dir.empty() || r.outputs.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(args.out_dir, ec);
  if (ec) throw Error(args.out_dir + ": cannot create the output directory: " + ec.message());
  for (const auto& t : k.tensors) {
    if (t.role != isa::TensorRole::output) continue;
    const std::string path = (std::filesystem::path(args.out_dir) / (t.name + ".npy")).string();
    io::write_npy(path, t.dtype, t.shape, r.outputs.at(t.name), args.raw_bits);
    out << "wrote " << path << "\n";
  }
}

// A single NEFF is a one-launch program: the host model's overheads are reported beside
// the kernel's time, never added to it.
void print_host_model(const config::TargetConfig& cfg, const RunResult& r, std::ostream& out) {
  const profile::HostTimeline t = host::schedule_launches(cfg.host, {r.total_ns});
  const profile::LaunchTiming& l = t.launches.front();
  out << "\nhost model (" << cfg.name << ", " << (cfg.host.async ? "async" : "sync")
      << ", docs/host-model.md): framework dispatch " << fixed(l.framework_dispatch.length())
      << " ns + runtime call " << fixed(l.runtime_call.length()) << " ns + device "
      << fixed(l.device.length()) << " ns + sync " << fixed(cfg.host.sync_ns) << " ns = end to end "
      << fixed(t.total_ns) << " ns (device "
      << fixed(t.total_ns > 0 ? 100.0 * t.device_ns / t.total_ns : 0.0, 1) << "%)\n";
}

// The program inputs named on the command line, checked against the program's tensors.
TensorBytes program_inputs(const host::LaunchSequence& seq, const RunArgs& args) {
  return collect_inputs(args, "the program " + seq.path, [&](const std::string& name) {
    const host::ProgramTensor* t = seq.find(name);
    if (!t || t->role != host::ProgramTensor::Role::input) return std::optional<isa::HbmTensor>();
    return std::optional(t->as_hbm_tensor());
  });
}

void print_sequence(const host::LaunchSequence& seq, const config::TargetConfig& cfg,
                    const host::SequenceResult& r, std::ostream& out) {
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

void run_sequence_command(const RunArgs& args) {
  const host::LaunchSequence seq =
      host::read_launch_sequence(args.neff_path, args.allow_outside_files);
  std::string target = args.target;
  if (target.empty()) {
    std::error_code ec;
    const std::string& first = seq.launches.front().neff_path;
    if (std::filesystem::exists(first, ec)) target = neff::read_file(first).kernel.target;
    if (target.empty()) target = "trn1";
  }
  const config::TargetConfig cfg = config::load_target(target, args.configs);
  host::SequenceRunOptions options;
  options.inputs = program_inputs(seq, args);
  std::vector<isa::HbmTensor> input_tensors;
  for (const auto& t : seq.tensors)
    if (t.role == host::ProgramTensor::Role::input) input_tensors.push_back(t.as_hbm_tensor());
  save_inputs(args, input_tensors, options.inputs);
  options.timing_only = args.timing_only;
  options.fill_uninitialised = args.fill_uninit;
  options.profile_dir = args.profile_dir;
  auto progress =
      Progress::wanted(args.quiet) ? std::make_unique<Progress>(seq.launches.size()) : nullptr;
  if (progress) options.launch_observer = [&](std::size_t i) { return progress->observer(i); };
  const host::SequenceResult r = host::run_sequence(seq, cfg, options);
  progress.reset();  // clears its line before the summary
  if (!args.stats_json.empty()) {
    nlohmann::ordered_json doc;
    doc["program"] = seq.program;
    doc["target"] = cfg.name;
    doc["timing_only"] = args.timing_only;
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < seq.launches.size(); ++i)
      launches.push_back({{"name", seq.launches[i].name}, {"stats", r.launches[i].stats}});
    doc["launches"] = launches;
    write_stats(args.stats_json, doc);
  }
  if (!args.out_dir.empty() && !r.tensors.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out_dir, ec);
    if (ec) throw Error(args.out_dir + ": cannot create the output directory: " + ec.message());
    for (const auto& t : seq.tensors) {
      if (t.role != host::ProgramTensor::Role::output) continue;
      const std::string path = (std::filesystem::path(args.out_dir) / (t.name + ".npy")).string();
      io::write_npy(path, t.dtype, t.shape, r.tensors.at(t.name), args.raw_bits);
      std::cout << "wrote " << path << "\n";
    }
  }
  print_sequence(seq, cfg, r, std::cout);
  if (!args.profile_dir.empty()) std::cout << "profile: " << args.profile_dir << "\n";
}

// --cores N: the kernel on N cores of one device at once, sharing its HBM, beside a core
// alone on an HBM of its own, in the same simulation: each core's time against the lone
// core's shows what the sharing costs.
void run_on_cores(const RunArgs& args, const isa::Kernel& k, const config::TargetConfig& cfg,
                  const TensorBytes& inputs) {
  require_elaboration(args.neff_path);
  const std::shared_ptr<const isa::Kernel> kernel(&k, [](const isa::Kernel*) {});
  auto request = [&](bool collect) {
    LaunchRequest r;
    r.kernel = kernel;
    r.source = args.neff_path;
    r.timing_only = args.timing_only;
    r.fill_uninitialised = args.fill_uninit;
    if (!args.timing_only) r.inputs = inputs;
    r.collect_outputs = collect;
    return r;
  };
  Hbm alone_hbm("alone_hbm", cfg);
  NeuronCore alone("alone", cfg);
  alone.hbm.bind(alone_hbm.socket);
  Device device("device", cfg, args.cores);
  const LaunchHandle reference = alone.launch(request(false));
  std::vector<LaunchHandle> launches;
  for (unsigned i = 0; i < args.cores; ++i)
    launches.push_back(device.core(i).launch(request(i == 0)));
  sc_core::sc_start();
  reference->result().rethrow_if_failed();
  for (const auto& l : launches)
    l->result().rethrow_if_failed();
  const RunResult& lone = reference->result();
  if (!args.stats_json.empty()) {
    nlohmann::ordered_json doc;
    doc["kernel"] = k.name;
    doc["target"] = cfg.name;
    doc["timing_only"] = args.timing_only;
    doc["alone"] = sim::stats_json(lone.stats);
    nlohmann::ordered_json cores = nlohmann::ordered_json::array();
    for (const auto& l : launches)
      cores.push_back(sim::stats_json(l->result().stats));
    doc["cores"] = cores;
    write_stats(args.stats_json, doc);
  }
  write_outputs(k, launches.front()->result(), args, std::cout);
  std::cout << "kernel " << k.name << " on " << args.cores << " of the " << cfg.cores_per_chip
            << " cores of one " << cfg.name << " device at once, sharing its HBM (chip "
            << fixed(cfg.hbm_chip_bytes_per_ns, 1) << " GB/s, each core at most "
            << fixed(cfg.dma.hbm_bytes_per_ns, 1) << " GB/s)\n";
  std::cout << "alone (its own HBM): " << fixed(lone.total_ns)
            << " ns = " << lone.neuroncore_cycle_count << " neuroncore cycles\n\n";
  const std::vector<std::string> head = {"core",       "total ns",      "cycles",  "vs alone",
                                         "HBM read B", "HBM written B", "HBM GB/s"};
  const std::vector<std::size_t> width = {4, 16, 12, 10, 14, 14, 10};
  for (std::size_t i = 0; i < head.size(); ++i)
    std::cout << pad(head[i], width[i]);
  std::cout << "\n";
  double end_ns = 0;
  for (unsigned i = 0; i < args.cores; ++i) {
    const RunResult& r = launches[i]->result();
    const double bytes = r.stats.number("hbm_read_bytes") + r.stats.number("hbm_write_bytes");
    end_ns = std::max(end_ns, r.total_ns);
    std::cout << pad(std::to_string(i), width[0]) << pad(fixed(r.total_ns), width[1])
              << pad(std::to_string(r.neuroncore_cycle_count), width[2])
              << pad(fixed(lone.total_ns > 0 ? r.total_ns / lone.total_ns : 0.0, 3) + "x", width[3])
              << pad(std::to_string(static_cast<std::uint64_t>(r.stats.number("hbm_read_bytes"))),
                     width[4])
              << pad(std::to_string(static_cast<std::uint64_t>(r.stats.number("hbm_write_bytes"))),
                     width[5])
              << pad(fixed(r.total_ns > 0 ? bytes / r.total_ns : 0.0, 1), width[6]) << "\n";
  }
  double all_bytes = 0;
  for (unsigned i = 0; i < args.cores; ++i)
    all_bytes += static_cast<double>(device.hbm.bytes_read(i) + device.hbm.bytes_written(i));
  std::cout << "\ndevice HBM: " << static_cast<std::uint64_t>(all_bytes) << " bytes in "
            << fixed(end_ns) << " ns = " << fixed(end_ns > 0 ? all_bytes / end_ns : 0.0, 1)
            << " GB/s of " << fixed(cfg.hbm_chip_bytes_per_ns, 1) << "\n";
}

void run_command(const RunArgs& args) {
  if (host::looks_like_launch_sequence(args.neff_path)) {
    if (args.cores > 0)
      throw Error(args.neff_path + ": --cores runs one NEFF, not a launch sequence");
    return run_sequence_command(args);
  }
  const std::vector<std::uint8_t> neff_bytes = read_file(args.neff_path, Limit::neff_file_bytes);
  // Decoded once: the profile (--profile-dir) shares it.
  const auto file = std::make_shared<const neff::Neff>(neff::read(neff_bytes, args.neff_path));
  const isa::Kernel& k = file->kernel;
  const std::string target =
      !args.target.empty() ? args.target : (!k.target.empty() ? k.target : "trn1");
  const config::TargetConfig cfg = config::load_target(target, args.configs);
  check_kernel_resources(k, args.neff_path, cfg.hbm_bytes);  // before any tensor is made
  const TensorBytes inputs = input_bytes(k, args);
  save_inputs(args, k.tensors, inputs);
  RunOptions options;
  options.timing_only = args.timing_only;
  options.fill_uninitialised = args.fill_uninit;
  if (args.timing_only)  // data is never read: any missing input is fine
    options.generate_missing = [](const isa::HbmTensor& t) {
      return std::vector<std::uint8_t>(t.bytes());
    };
  if (args.cores > 0) {
    if (!args.profile_dir.empty())
      throw Error("--cores and --profile-dir do not go together: profile one core without --cores");
    return run_on_cores(args, k, cfg, inputs);
  }
  auto progress = Progress::wanted(args.quiet) ? std::make_unique<Progress>(1) : nullptr;
  if (progress) options.observers.push_back(progress->observer(0));
  RunResult r;
  profile::ProfiledRun profiled;
  if (args.profile_dir.empty()) {
    r = run_kernel(k, cfg, inputs, options, args.neff_path);
  } else {
    profiled = profile::run_profiled(neff_bytes, file, cfg, inputs, options, args.neff_path,
                                     args.profile_dir);
    r = std::move(profiled.result);
  }
  progress.reset();  // clears its line before the summary
  if (!args.stats_json.empty()) {
    nlohmann::ordered_json doc;
    doc["kernel"] = k.name;
    doc["target"] = cfg.name;
    doc["timing_only"] = args.timing_only;
    doc["stats"] = sim::stats_json(r.stats);
    write_stats(args.stats_json, doc);
  }
  write_outputs(k, r, args, std::cout);
  print_summary(k, cfg, r, std::cout);
  print_host_model(cfg, r, std::cout);
  if (!args.profile_dir.empty()) {
    auto per = [&](std::uint64_t n) {
      return fixed(n ? static_cast<double>(profiled.trace_bytes) / static_cast<double>(n) : 0.0, 1);
    };
    std::cout << "profile: " << profiled.neff_path << ", " << profiled.ntff_path << " ("
              << profiled.trace_bytes << " bytes: " << profiled.trace_instructions
              << " instructions, " << profiled.trace_records << " records in all; "
              << per(profiled.trace_instructions) << " bytes per instruction, "
              << per(profiled.trace_records) << " per record)\n";
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "simulate a kernel on one NeuronCore");
  cmd->add_option("kernel", args->neff_path,
                  "the kernel (.neff) or a launch sequence (launch.json)")
      ->required();
  cmd->add_option("-t,--target", args->target,
                  "target preset (trn1, trn2, trn3) or JSON file; default: the kernel's");
  // --config: the option's first name, kept for scripts that use it.
  cmd->add_option("--override,--config", args->configs,
                  "JSON file overriding target fields, as for `config --override` (repeatable; "
                  "--config is an alias)")
      ->allow_extra_args(false);
  cmd->add_option("--input", args->inputs,
                  "NAME=SPEC: a .npy file, zeros, ones, fill:V, uniform:LO,HI, normal:M,S; "
                  "or FILE.npz: an archive of NAME.npy members")
      ->allow_extra_args(false);  // one NAME=SPEC per --input
  cmd->add_option("--seed", args->seed, "seed of generated inputs");
  cmd->add_option("--out-dir", args->out_dir, "write every output tensor here as NAME.npy");
  cmd->add_flag("--allow-outside-files", args->allow_outside_files,
                "a launch.json may name NEFFs outside its own directory (refused by default)");
  cmd->add_flag("--raw-bits", args->raw_bits,
                "bf16/tf32/fp8 .npy files hold bit patterns (unsigned ints), not floats");
  cmd->add_flag("--timing-only", args->timing_only,
                "compute nothing, only time the kernel (same timing, no outputs)");
  cmd->add_flag("--fill-uninit", args->fill_uninit,
                "never-written memory reads as NaN (floats) or the target's "
                "sbuf.uninitialised_int_fill (integers) instead of 0");
  cmd->add_option("--stats-json", args->stats_json,
                  "write every statistic to this JSON file (-: to stdout, the text to stderr)");
  cmd->add_option("--save-inputs", args->save_inputs,
                  "write the inputs (given or generated) here as NAME.npy, or into one archive if "
                  "it ends in .npz, to reuse with --input");
  cmd->add_option("--profile-dir", args->profile_dir,
                  "record a profile here: neff_<N>.neff and <N>_instid_0_vnc_0.ntff");
  cmd->add_flag("-q,--quiet", args->quiet,
                "no progress line (shown on a terminal's stderr for runs over 2 s)");
  cmd->add_option("--cores", args->cores,
                  "run the kernel on this many cores of one device at once (sharing its HBM), "
                  "beside one core alone")
      ->check(CLI::Range(1u, 64u));
  cmd->callback([args] {
    if (!is_stdout(args->stats_json)) return run_command(*args);
    const MessagesToStderr text_to_stderr;  // stdout carries the JSON alone
    run_command(*args);
  });
}

}  // namespace neuronsim::cli
