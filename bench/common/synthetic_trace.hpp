#pragma once
// A synthetic NTFF instruction-record stream for the trace benchmarks (no simulation).
#include <array>
#include <cstdint>

#include "isa/engine.hpp"
#include "isa/instruction.hpp"
#include "traces/records.hpp"

namespace neuronsim::bench {

// A plausible record stream: the five engines in turn, each mostly back to back, with
// occasional semaphore waits; compute instructions move SBUF/PSUM bytes, matmuls have
// flops. Deterministic (a linear congruential sequence).
struct SyntheticTrace {
  std::uint64_t lcg = 12345;
  std::array<std::uint64_t, isa::kEngineCount> now{};
  std::array<std::uint32_t, isa::kEngineCount> index{};

  std::uint64_t next(std::uint64_t mod) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (lcg >> 33) % mod;
  }
  traces::InstructionRecord make(std::uint64_t i) {
    const auto e = static_cast<int>(i % isa::kEngineCount);
    traces::InstructionRecord r;
    r.engine = static_cast<isa::Engine>(e);
    r.opcode = e == 0 ? isa::Opcode::matmul : static_cast<isa::Opcode>(2 + next(6));
    r.index = index[e]++;
    r.ready_ps = now[e];
    const std::uint64_t wait = next(8) == 0 ? 1000 + next(200'000) : 0;
    r.start_ps = r.ready_ps + wait;
    r.end_ps = r.start_ps + 50'000 + next(500'000);  // 50 ns .. 550 ns
    r.start_cycle = r.start_ps * 14 / 5000;          // 2.8 GHz
    r.end_cycle = r.end_ps * 14 / 5000;
    if (wait) {
      r.semaphore_wait_ps = wait;
      traces::SemaphoreWaitRecord w;
      w.semaphore = static_cast<std::uint16_t>(next(32));
      w.wanted = 1;
      w.waited_ps = wait;
      w.last_signaller = {traces::SignalSource::Kind::engine, static_cast<isa::Engine>(next(5)),
                          index[e], 0};
      r.semaphore_waits.push_back(w);
    }
    r.bytes.read[1] = 65536;
    r.bytes.written[e == 0 ? 2 : 1] = 65536;
    if (e == 0) r.flops = 2ull * 128 * 128 * 512;
    now[e] = r.end_ps;
    return r;
  }
};

}  // namespace neuronsim::bench
