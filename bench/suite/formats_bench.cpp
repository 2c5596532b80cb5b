// File formats on the mixed pipeline kernel: assembling text and printing it, writing and
// reading (loading) the NEFF; the NTFF trace writer on a synthetic record stream.
#include <algorithm>
#include <memory>
#include <string>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "bench/common/bench_kernels.hpp"
#include "bench/common/synthetic_trace.hpp"
#include "bench/suite/world.hpp"
#include "neff/neff.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::bench {

namespace {

struct Formats {
  isa::Kernel kernel;
  std::string text;
  std::vector<std::uint8_t> neff;
};

std::shared_ptr<const Formats> make_formats() {
  auto f = std::make_shared<Formats>();
  f->kernel = pipeline_kernel(world().sizes.pipeline_iterations);
  f->text = isa::print(f->kernel);
  f->neff = neff::write(f->kernel);
  return f;
}

void BM_assemble(benchmark::State& st, std::shared_ptr<const Formats> f) {
  const WallClock clock;
  for (auto _ : st)
    benchmark::DoNotOptimize(isa::assemble(f->text, "bench.nasm"));
  set_instruction_counters(st, st.iterations() * f->kernel.instruction_count(), clock);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * f->text.size()));
}

void BM_print(benchmark::State& st, std::shared_ptr<const Formats> f) {
  const WallClock clock;
  for (auto _ : st)
    benchmark::DoNotOptimize(isa::print(f->kernel));
  set_instruction_counters(st, st.iterations() * f->kernel.instruction_count(), clock);
}

void BM_neff_write(benchmark::State& st, std::shared_ptr<const Formats> f) {
  const WallClock clock;
  for (auto _ : st)
    benchmark::DoNotOptimize(neff::write(f->kernel));
  set_instruction_counters(st, st.iterations() * f->kernel.instruction_count(), clock);
}

void BM_neff_load(benchmark::State& st, std::shared_ptr<const Formats> f) {
  const WallClock clock;
  for (auto _ : st)
    benchmark::DoNotOptimize(neff::read(f->neff, "bench.neff"));
  set_instruction_counters(st, st.iterations() * f->kernel.instruction_count(), clock);
  st.counters["neff_bytes/instr"] =
      static_cast<double>(f->neff.size()) / static_cast<double>(f->kernel.instruction_count());
}

void BM_trace_write(benchmark::State& st) {
  World& w = world();
  const std::string path = w.tmp_dir + "/write.ntff";
  traces::TraceInfo info;
  info.kernel_name = "trace_bench";
  info.target = "trn2";
  info.engine_ghz = {2.8, 1.4, 1.4, 1.4, 1.4};
  info.cycle_counter_ghz = 1.4;
  const std::uint64_t n = w.sizes.trace_records;
  std::uint64_t bytes = 0;
  const WallClock clock;
  for (auto _ : st) {
    SyntheticTrace gen;
    traces::NtffWriter writer(path, info);
    for (std::uint64_t i = 0; i < n; ++i)
      writer.add(gen.make(i));
    writer.close(*std::max_element(gen.now.begin(), gen.now.end()));
    bytes += writer.bytes_written();
  }
  st.counters["records/s"] =
      benchmark::Counter(static_cast<double>(st.iterations() * n), benchmark::Counter::kIsRate);
  st.counters["bytes/record"] =
      static_cast<double>(bytes) / static_cast<double>(st.iterations() * n);
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}

}  // namespace

void register_formats() {
  const auto f = make_formats();
  benchmark::RegisterBenchmark("formats/assemble", BM_assemble, f)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("formats/print", BM_print, f)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("formats/neff_write", BM_neff_write, f)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("formats/neff_load", BM_neff_load, f)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("formats/trace_write", BM_trace_write)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace neuronsim::bench
