// neuronsim's benchmark suite (Google Benchmark). Every simulation speed is reported
// beside the bare SystemC ceiling measured in the same process (counter vs_ceiling), so
// figures from a noisy, shared machine compare across runs. scripts/bench.sh runs it and
// writes JSON and a table; docs/performance.md has the figures.
//
//   bench_suite [--smoke] [Google Benchmark flags, e.g. --benchmark_filter=numerics]
//
// --smoke: tiny sizes, for CI (does it run, not how fast).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bench/suite/world.hpp"
#include "neuronsim/run.hpp"

namespace neuronsim::bench {

namespace {
std::unique_ptr<World> the_world;
}

World& world() {
  return *the_world;
}

}  // namespace neuronsim::bench

int main(int argc, char** argv) {
  using namespace neuronsim::bench;
  Sizes sizes;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      sizes = {100, 20, 40, 100, 1000, 1000, 20, {128}, 1, 1};
      continue;
    }
    args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  try {
    neuronsim::require_elaboration("bench_suite");
    the_world = std::make_unique<World>(sizes);
    char tmpl[] = "/tmp/neuronsim_bench_XXXXXX";
    if (!mkdtemp(tmpl)) throw neuronsim::Error("bench_suite: cannot make a scratch directory");
    the_world->tmp_dir = tmpl;
    // The ceiling first: every other figure is divided by it.
    the_world->ceiling_ips = ceiling_rate(the_world->ceiling, sizes.ceiling_per_thread, 3);
    benchmark::AddCustomContext("systemc_ceiling_instr_per_s",
                                std::to_string(the_world->ceiling_ips));
    register_ceiling();
    register_simulation();
    register_formats();
    register_numerics();
    register_process();
    register_process_gemm();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::filesystem::remove_all(the_world->tmp_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_suite: %s\n", e.what());
    return 1;
  }
  return 0;
}
