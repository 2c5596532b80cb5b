#pragma once
// What every benchmark of the suite shares: the one SystemC simulation of the process
// (SystemC elaborates once, so one Hbm, one NeuronCore and the ceiling model are built
// before anything runs, and each benchmark iteration is one launch), the sizes, and the
// ceiling rate that every speed is divided by.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/suite/ceiling.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"

namespace neuronsim::bench {

struct Sizes {
  std::uint32_t chain_per_engine = 40'000;  // x5 instructions
  int pipeline_iterations = 10'000;         // x10 instructions
  std::uint32_t dma_transfers = 20'000;
  std::uint32_t process_per_engine = 200'000;  // the whole-process kernel, x5
  std::uint64_t trace_records = 1'000'000;
  std::uint64_t ceiling_per_thread = 200'000;
  // The pipeline with full numerics computes ~0.3 ms per instruction (matmuls, gelu):
  // fewer iterations keep the suite under its two minutes.
  int numerics_pipeline_iterations = 500;
  // The whole-process bf16 GEMMs (M = N = K) and how many runs each (the median is
  // reported): process_gemm_runs_large for those over 1024.
  std::vector<unsigned> process_gemm_sizes = {512, 2048};
  int process_gemm_runs = 9;
  int process_gemm_runs_large = 5;
};

struct World {
  TargetConfig config;
  Hbm hbm;
  NeuronCore core;
  Ceiling ceiling;
  Sizes sizes;
  double ceiling_ips = 0;  // instructions per wall second, measured at start-up
  std::string tmp_dir;     // scratch files (NEFFs, traces); removed at exit

  explicit World(const Sizes& s);
};

World& world();  // built by main() before any benchmark registers

// Wall time of a benchmark's loop: start it just before `for (auto _ : st)`.
class WallClock {
 public:
  WallClock() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Sets the counters of a benchmark that executed `instructions` simulated instructions in
// all since `clock` started: instructions per wall second, and that rate as a fraction
// of the SystemC ceiling (vs_ceiling, a plain ratio).
void set_instruction_counters(benchmark::State& st, std::uint64_t instructions,
                              const WallClock& clock);

void register_ceiling();
void register_simulation();
void register_formats();
void register_numerics();
void register_process();
void register_process_gemm();

}  // namespace neuronsim::bench
