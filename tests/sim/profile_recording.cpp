// Recording profiles from real runs (profile/profiled_run.hpp, profile/trace_recorder.hpp): the
// trace's summary must say exactly what the run's own statistics say. One simulation per
// test case (CTest runs each in its own process).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "base/error.hpp"
#include "examples/kernels.hpp"
#include "neff/neff.hpp"
#include "profile/directory.hpp"
#include "profile/profiled_run.hpp"
#include "traces/ntff.hpp"
#include "traces/summary.hpp"

namespace {

using namespace neuronsim;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("neuronsim_profile_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

// The profile's summary against the run's statistics: total time, per-engine busy time,
// waits, idle time and instruction counts, DMA bytes and pieces, HBM bytes.
void check_profile_matches_run(const profile::ProfiledRun& run) {
  const profile::Profile p = profile::open_profile(fs::path(run.ntff_path).parent_path().string());
  CHECK(p.ntff_path == run.ntff_path);
  traces::SummaryOptions options;
  options.kernel = &p.neff.kernel;
  const traces::Summary s = traces::summarize_ntff(p.ntff_path, options);
  const RunResult& r = run.result;

  CHECK(s.total_ps == r.total_ps);
  CHECK(s.neuroncore_cycle_count == r.neuroncore_cycle_count);
  for (int e = 0; e < isa::kEngineCount; ++e) {
    // One type, counted by the engine and rebuilt from the trace.
    const traces::EngineTime& want = r.stats.engines[e].time;
    const traces::EngineTime& got = s.engines[e];
    INFO("engine " << isa::engine_name(r.stats.engines[e].engine));
    CHECK(got.instruction_count == want.instruction_count);
    CHECK(got.busy_ps == want.busy_ps);
    CHECK(got.semaphore_wait_ps == want.semaphore_wait_ps);
    CHECK(got.port_wait_ps == want.port_wait_ps);
    CHECK(got.dma_wait_ps == want.dma_wait_ps);
    CHECK(got.idle_ps == want.idle_ps);
    CHECK(got.busy_ps + got.semaphore_wait_ps + got.port_wait_ps + got.dma_wait_ps + got.idle_ps ==
          s.total_ps);
  }
  CHECK(s.dma_transfer_total_bytes == r.stats.dma.bytes);
  CHECK(s.memory.read[0] == r.stats.hbm.read_bytes);
  CHECK(s.memory.written[0] == r.stats.hbm.write_bytes);
  CHECK(s.dma_transfer_count > 0);
  CHECK(run.trace_instructions == s.engines[0].instruction_count + s.engines[1].instruction_count +
                                      s.engines[2].instruction_count +
                                      s.engines[3].instruction_count +
                                      s.engines[4].instruction_count);
  CHECK(run.trace_bytes == fs::file_size(run.ntff_path));
}

}  // namespace

TEST_CASE("hostrun: a profiled double-buffered RMSNorm matches the run's statistics", "[hostrun]") {
  examples::ExampleParams params;
  params.rows = 512;
  params.cols = 1024;
  params.double_buffered = true;
  params.limits = config::load_target("trn2").limits;
  const isa::Kernel k = examples::rmsnorm_fused(params);
  const fs::path dir = fresh_dir("rmsnorm");
  RunOptions options;
  options.generate_missing = [](const isa::HbmTensor& t) {
    return std::vector<std::uint8_t>(t.bytes(), 0x3F);  // bf16 0x3F3F ~ 0.75
  };
  const profile::ProfiledRun run = profile::run_profiled(
      neff::write(k), config::load_target("trn2"), {}, options, "rmsnorm.neff", dir.string());
  CHECK_FALSE(run.result.outputs.empty());
  check_profile_matches_run(run);
  fs::remove_all(dir);
}

TEST_CASE("hostrun: a timing-only profiled matmul matches the run's statistics", "[hostrun]") {
  examples::ExampleParams params;  // 512^3: Tensor, Vector and DMA all busy
  params.limits = config::load_target("trn2").limits;
  const isa::Kernel k = examples::matmul_tiled(params);
  const fs::path dir = fresh_dir("matmul");
  RunOptions options;
  options.timing_only = true;
  options.generate_missing = [](const isa::HbmTensor& t) {
    return std::vector<std::uint8_t>(t.bytes());
  };
  const profile::ProfiledRun run = profile::run_profiled(
      neff::write(k), config::load_target("trn2"), {}, options, "matmul.neff", dir.string());
  CHECK(run.result.outputs.empty());
  check_profile_matches_run(run);
  // Model flops come from the kernel's matmuls: 2 * 512^3.
  const profile::Profile p = profile::open_profile(dir.string());
  traces::SummaryOptions o;
  o.kernel = &p.neff.kernel;
  CHECK(traces::summarize_ntff(p.ntff_path, o).model_flops == 2ull * 512 * 512 * 512);
  fs::remove_all(dir);
}

TEST_CASE("hostrun: a failed profiled run leaves no profile behind", "[hostrun]") {
  examples::ExampleParams params;
  params.rows = 256;
  params.cols = 512;
  params.limits = config::load_target("trn2").limits;
  const isa::Kernel k = examples::rmsnorm_fused(params);
  const fs::path dir = fresh_dir("failed");
  RunOptions options;  // no inputs and no generator: the run is refused
  CHECK_THROWS_AS(profile::run_profiled(neff::write(k), config::load_target("trn2"), {}, options,
                                        "rmsnorm.neff", dir.string()),
                  Error);
  CHECK_FALSE(fs::exists(dir));
}
