#include "bench/suite/world.hpp"

#include "config/target_config.hpp"

namespace neuronsim::bench {

World::World(const Sizes& s)
    : config(config::load_target("trn2")),
      hbm("hbm", config),
      core("core", config),
      ceiling("ceiling"),
      sizes(s) {
  core.hbm.bind(hbm.socket);
}

void set_instruction_counters(benchmark::State& st, std::uint64_t instructions,
                              const WallClock& clock) {
  const double rate = static_cast<double>(instructions) / clock.seconds();
  st.counters["instr/s"] = rate;
  st.counters["vs_ceiling"] = rate / world().ceiling_ips;
}

namespace {

void BM_systemc_ceiling(benchmark::State& st) {
  World& w = world();
  std::uint64_t n = 0;
  const WallClock clock;
  for (auto _ : st)
    n += w.ceiling.run(w.sizes.ceiling_per_thread);
  set_instruction_counters(st, n, clock);
}

}  // namespace

void register_ceiling() {
  benchmark::RegisterBenchmark("systemc_ceiling", BM_systemc_ceiling)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace neuronsim::bench
