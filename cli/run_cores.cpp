// `neuronsim run K.neff --cores N` (cli/run.hpp).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "cli/run.hpp"
#include "neuronsim/device.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"
#include "sim/stats_json.hpp"
#include "traces/format.hpp"

namespace neuronsim::cli {

// --cores N: the kernel on N cores of one device at once, sharing its HBM, beside a core
// alone on an HBM of its own, in the same simulation: each core's time against the lone
// core's shows what the sharing costs.
void run_cores_mode(const RunArgs& args, const KernelRun& run) {
  const isa::Kernel& k = run.kernel();
  const config::TargetConfig& cfg = run.cfg;
  const TensorBytes& inputs = run.inputs;
  require_elaboration(args.neff_path);
  const std::shared_ptr<const isa::Kernel> kernel(&k, [](const isa::Kernel*) {});
  auto request = [&](bool collect) {
    LaunchRequest r;
    r.kernel = kernel;
    r.other_target = true;  // the program's -t chose the target
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
    nlohmann::ordered_json doc = stats_document("kernel", k.name, cfg, args);
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
            << fixed(cfg.hbm.chip_bytes_per_ns, 1) << " GB/s, each core at most "
            << fixed(cfg.dma.hbm_bytes_per_ns, 1) << " GB/s)\n";
  std::cout << "alone (its own HBM): " << fixed(lone.total_ns)
            << " ns = " << lone.neuroncore_cycle_count << " neuroncore cycles "
            << traces::cycle_counter_text(cfg.cycle_counter_ghz) << "\n\n";
  const std::vector<std::string> head = {"core",       "total ns",      "cycles",  "vs alone",
                                         "HBM read B", "HBM written B", "HBM GB/s"};
  const std::vector<std::size_t> width = {4, 16, 12, 10, 14, 14, 10};
  for (std::size_t i = 0; i < head.size(); ++i)
    std::cout << pad(head[i], width[i]);
  std::cout << "\n";
  double end_ns = 0;
  for (unsigned i = 0; i < args.cores; ++i) {
    const RunResult& r = launches[i]->result();
    const double bytes =
        static_cast<double>(r.stats.hbm.read_bytes) + static_cast<double>(r.stats.hbm.write_bytes);
    end_ns = std::max(end_ns, r.total_ns);
    std::cout << pad(std::to_string(i), width[0]) << pad(fixed(r.total_ns), width[1])
              << pad(std::to_string(r.neuroncore_cycle_count), width[2])
              << pad(fixed(lone.total_ns > 0 ? r.total_ns / lone.total_ns : 0.0, 3) + "x", width[3])
              << pad(std::to_string(r.stats.hbm.read_bytes), width[4])
              << pad(std::to_string(r.stats.hbm.write_bytes), width[5])
              << pad(fixed(r.total_ns > 0 ? bytes / r.total_ns : 0.0, 1), width[6]) << "\n";
  }
  double all_bytes = 0;
  for (unsigned i = 0; i < args.cores; ++i)
    all_bytes += static_cast<double>(device.hbm.bytes_read(i) + device.hbm.bytes_written(i));
  std::cout << "\ndevice HBM: " << static_cast<std::uint64_t>(all_bytes) << " bytes in "
            << fixed(end_ns) << " ns = " << fixed(end_ns > 0 ? all_bytes / end_ns : 0.0, 1)
            << " GB/s of " << fixed(cfg.hbm.chip_bytes_per_ns, 1) << "\n";
}

}  // namespace neuronsim::cli
