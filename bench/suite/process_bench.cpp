// The whole `neuronsim run` process on a NEFF of the chain kernel (5 x process_per_engine
// instructions): wall time from spawn to exit (loading, setup, simulation, exit) and its
// peak resident memory per instruction (above a run of one instruction per engine);
// timing only, with full numerics, and with a profile directory (a trace is written).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/bench_kernels.hpp"
#include "bench/suite/spawn.hpp"
#include "bench/suite/world.hpp"
#include "neff/neff.hpp"

namespace neuronsim::bench {

namespace {

struct ProcessCase {
  std::string neff_path;
  std::string baseline_path;  // the same kernel, one instruction per engine
  std::uint64_t instructions = 0;
};

// Runs args to its exit; returns false if it failed. `peak_kib`: its peak resident set,
// or -1 if unknown. ru_maxrss of a child we spawn would not do: exec keeps the peak of the
// address space it replaces, ours (Linux), so GNU time (Debian's `time`), a small process,
// spawns it and reports its figure.
bool run_child(const std::vector<std::string>& args, const std::string& rss_file, long& peak_kib) {
  static const bool have_time = access("/usr/bin/time", X_OK) == 0;
  std::vector<std::string> full;
  if (have_time) full = {"/usr/bin/time", "-f", "%M", "-o", rss_file};
  full.insert(full.end(), args.begin(), args.end());
  if (!run_process(full)) return false;
  peak_kib = -1;
  if (have_time) std::ifstream(rss_file) >> peak_kib;
  return true;
}

void BM_process(benchmark::State& st, std::shared_ptr<const ProcessCase> c,
                std::vector<std::string> extra) {
  std::vector<std::string> args = {NEURONSIM_EXE, "run", c->neff_path};
  args.insert(args.end(), extra.begin(), extra.end());
  // What the process holds whatever the kernel (program, SBUF/PSUM, HBM model): the
  // figure per instruction is the peak above it.
  std::vector<std::string> baseline_args = args;
  baseline_args[2] = c->baseline_path;
  // --profile-dir wants an empty directory: removed before each run.
  const std::string profile_dir = world().tmp_dir + "/profile";
  const std::string rss_file = world().tmp_dir + "/rss.txt";
  long baseline = -1, peak = -1, rss = -1;
  std::filesystem::remove_all(profile_dir);
  if (!run_child(baseline_args, rss_file, baseline)) {
    st.SkipWithError("neuronsim run failed");
    return;
  }
  const WallClock clock;
  for (auto _ : st) {
    std::filesystem::remove_all(profile_dir);
    if (!run_child(args, rss_file, rss)) {
      st.SkipWithError("neuronsim run failed");
      return;
    }
    peak = std::max(peak, rss);
  }
  set_instruction_counters(st, st.iterations() * c->instructions, clock);
  if (peak < 0 || baseline < 0) return;  // no GNU time: no memory figures
  st.counters["peak_rss_MiB"] = static_cast<double>(peak) / 1024;
  st.counters["baseline_rss_MiB"] = static_cast<double>(baseline) / 1024;
  st.counters["rss_bytes/instr"] =
      static_cast<double>(peak - baseline) * 1024 / static_cast<double>(c->instructions);
}

}  // namespace

void register_process() {
  World& w = world();
  auto c = std::make_shared<ProcessCase>();
  const isa::Kernel k = chain_kernel(w.sizes.process_per_engine);
  c->neff_path = w.tmp_dir + "/chain.neff";
  c->instructions = k.instruction_count();
  neff::write_file(k, c->neff_path);
  c->baseline_path = w.tmp_dir + "/chain1.neff";
  neff::write_file(chain_kernel(1), c->baseline_path);
  const std::string profile = w.tmp_dir + "/profile";
  const std::pair<const char*, std::vector<std::string>> modes[] = {
      {"timing", {"--timing-only"}},
      {"numerics", {}},
      {"numerics/profile", {"--profile-dir", profile}},
  };
  for (const auto& [name, extra] : modes)
    benchmark::RegisterBenchmark((std::string("process/run_chain/") + name).c_str(), BM_process,
                                 std::shared_ptr<const ProcessCase>(c), extra)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        // Five runs, averaged: one run of a 0.2 s process moved by +-40% with the load.
        ->Iterations(5)
        ->Repetitions(1);
}

}  // namespace neuronsim::bench
