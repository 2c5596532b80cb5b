// Simulated instructions per wall second, each iteration one launch on the suite's core:
// the engine-loop chain (the ceiling's shape), a mixed compute pipeline and a DMA-only
// stream; timing only or with full numerics; with or without an NTFF trace recorder.
#include <memory>
#include <string>

#include "bench/common/bench_kernels.hpp"
#include "bench/suite/world.hpp"
#include "profile/trace_recorder.hpp"

namespace neuronsim::bench {

namespace {

enum class Mode { timing, numerics };

struct SimCase {
  std::shared_ptr<const isa::Kernel> kernel;
  TensorBytes inputs;  // zeros, for full numerics
};

SimCase make_case(isa::Kernel k) {
  SimCase c;
  for (const isa::HbmTensor& t : k.tensors)
    if (t.role == isa::TensorRole::input) c.inputs[t.name].assign(t.bytes(), 0);
  c.kernel = std::make_shared<const isa::Kernel>(std::move(k));
  return c;
}

void BM_simulate(benchmark::State& st, std::shared_ptr<SimCase> c, Mode mode, bool trace) {
  World& w = world();
  const std::string path = w.tmp_dir + "/sim.ntff";
  const traces::TraceInfo info = profile::trace_info(*c->kernel, w.config, {});
  std::uint64_t n = 0;
  const WallClock clock;
  for (auto _ : st) {
    LaunchRequest r;
    r.kernel = c->kernel;
    r.timing_only = mode == Mode::timing;
    r.collect_outputs = mode == Mode::numerics;
    if (mode == Mode::numerics) r.inputs = c->inputs;
    std::unique_ptr<profile::TraceRecorder> recorder;
    if (trace) {
      recorder = std::make_unique<profile::TraceRecorder>(path, info);
      r.observers.push_back(recorder.get());
    }
    const LaunchHandle h = w.core.launch(std::move(r));
    sc_core::sc_start();
    if (!h->finished()) {
      st.SkipWithError("the launch did not finish");
      return;
    }
    if (!h->result().ok()) {
      st.SkipWithError(h->result().error.c_str());
      return;
    }
    if (recorder) recorder->finish(h->result().total_ps);
    n += c->kernel->instruction_count();
  }
  set_instruction_counters(st, n, clock);
}

}  // namespace

void register_simulation() {
  const Sizes& s = world().sizes;
  auto shared = [](isa::Kernel k) { return std::make_shared<SimCase>(make_case(std::move(k))); };
  const auto chain = shared(chain_kernel(s.chain_per_engine));
  const auto dma = shared(dma_kernel(s.dma_transfers));
  struct Named {
    const char* name;
    std::shared_ptr<SimCase> timing, numerics;  // the kernel of each mode
  };
  const Named cases[] = {
      {"chain", chain, chain},
      {"pipeline", shared(pipeline_kernel(s.pipeline_iterations)),
       shared(pipeline_kernel(s.numerics_pipeline_iterations))},
      {"dma", dma, dma},
  };
  for (const Named& c : cases)
    for (Mode mode : {Mode::timing, Mode::numerics})
      for (bool trace : {false, true}) {
        const std::string id = std::string("simulate/") + c.name + "/" +
                               (mode == Mode::timing ? "timing" : "numerics") +
                               (trace ? "/trace" : "");
        benchmark::RegisterBenchmark(id.c_str(), BM_simulate,
                                     mode == Mode::timing ? c.timing : c.numerics, mode, trace)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
}

}  // namespace neuronsim::bench
