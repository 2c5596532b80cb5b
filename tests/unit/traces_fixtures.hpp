#pragma once
// Synthetic traces for the traces tests (there is no simulator run to record yet): a
// small kernel with a hand-written trace whose summary is worked out in comments, and a
// seeded random trace generator for property checks.
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include <unistd.h>

#include "builder/builder.hpp"
#include "traces/ntff.hpp"

namespace traces_test {

using namespace neuronsim;
using namespace neuronsim::traces;
using isa::Engine;
using isa::MemSpace;
using isa::Opcode;

// A fresh, empty directory under the system's temp dir (removed by the destructor). The
// process id keeps concurrent test runs (two build trees, ctest -j) out of each other's
// files: a shared name once made "every damaged byte is refused" fail under load.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("neuronsim-traces-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// load (sync, q_in) -> matmul (tensor) -> copy out of PSUM (vector) -> store (sync, q_out).
// The tensors' names and the output's dtype are parameters for the report's tests.
inline isa::Kernel fixture_kernel(const std::string& name = "traces_fixture",
                                  const std::string& in = "x", const std::string& out = "y",
                                  isa::DType out_dtype = isa::DType::fp32) {
  isa::Builder b(name, "trn2");
  auto x = b.input(in, isa::DType::bf16, {128, 128});
  auto y = b.output(out, out_dtype, {128, 128});
  auto xs = b.sbuf("xs", isa::DType::bf16, {128, 128});
  auto acc = b.psum("acc", isa::DType::fp32, {128, 128});
  auto ys = b.sbuf("ys", out_dtype, {128, 128});
  auto loaded = b.semaphore("loaded");
  auto mm_done = b.semaphore("mm_done");
  auto copied = b.semaphore("copied");
  auto q_in = b.queue("q_in", 0, 16);
  auto q_out = b.queue("q_out", 0, 2);
  b.sync().dma_copy(xs, x, q_in).signal(loaded);
  b.tensor().matmul(acc, xs, xs).wait(loaded, 1).signal(mm_done);
  b.vector().tensor_copy(ys, acc).wait(mm_done, 1).signal(copied);
  b.sync().dma_copy(y, ys, q_out).wait(copied, 1);
  return b.build();
}

inline InstructionRecord instr(Engine e, Opcode op, std::uint32_t index, std::uint64_t ready,
                               std::uint64_t start, std::uint64_t end) {
  InstructionRecord r;
  r.engine = e;
  r.opcode = op;
  r.index = index;
  r.ready_ps = ready;
  r.start_ps = start;
  r.end_ps = end;
  r.start_cycle = start / 1000 * 14 / 5;  // 2.8 GHz
  r.end_cycle = end / 1000 * 14 / 5;
  return r;
}

inline DmaRecord dma(std::uint16_t queue, std::uint8_t engine, std::uint32_t issuer_index,
                     std::uint64_t issue, std::uint64_t start, std::uint64_t end, MemSpace src,
                     MemSpace dst, std::uint64_t bytes) {
  DmaRecord r;
  r.queue = queue;
  r.dma_engine = engine;
  r.issuer = Engine::sync;
  r.issuer_index = issuer_index;
  r.issue_ps = issue;
  r.start_ps = start;
  r.end_ps = end;
  r.src = src;
  r.dst = dst;
  r.bytes = bytes;
  return r;
}

inline SemaphoreRecord sem(std::uint64_t t, std::uint16_t id, std::uint32_t value,
                           SignalSource source) {
  SemaphoreRecord r;
  r.time_ps = t;
  r.semaphore = id;
  r.value = value;
  r.source = source;
  return r;
}

// Signalled by instruction `instruction` of engine `e`.
inline SignalSource engine_source(Engine e, std::uint32_t instruction) {
  return {SignalSource::Kind::engine, e, instruction, 0};
}
// Signalled when the dma_copy `instruction` of `issuer` on queue `q` completed.
inline SignalSource dma_source(std::uint16_t q, Engine issuer, std::uint32_t instruction) {
  return {SignalSource::Kind::dma_queue, issuer, instruction, q};
}
// `r` waited its whole semaphore wait for `sem` >= 1, released by `by`.
inline void waited(InstructionRecord& r, std::uint16_t sem, SignalSource by) {
  SemaphoreWaitRecord w;
  w.semaphore = sem;
  w.wanted = 1;
  w.waited_ps = r.semaphore_wait_ps;
  w.last_signaller = by;
  r.semaphore_waits.push_back(w);
}

// The fixture kernel's run, in ps (total 400 ns):
//   sync 0   dma_copy   0 -> 10 ns; its 4 pieces on q_in overlap between 10 and 120 ns
//   tensor 0 matmul     waits for `loaded` (set by q_in at 120 ns), runs 120 -> 200 ns
//   vector 0 tensor_copy waits 190 ns on `mm_done` + 10 ns for a port, runs 200 -> 260 ns
//   sync 1   dma_copy   waits 250 ns on `copied`, runs 260 -> 270 ns; 2 pieces on q_out
//            back to back 270 -> 330 -> 390 ns
inline TraceData fixture_trace(const std::array<std::uint8_t, 32>& hash = {}) {
  TraceData t;
  t.info.neff_hash = hash;
  t.info.kernel_name = "traces_fixture";
  t.info.target = "trn2";
  t.info.engine_ghz = {2.8, 1.4, 1.4, 1.4, 1.4};
  t.info.cycle_counter_ghz = 1.4;
  t.info.total_ps = 400'000;

  auto load = instr(Engine::sync, Opcode::dma_copy, 0, 0, 0, 10'000);
  load.bytes.read[0] = 32768;  // counted from the DMA pieces, not from here
  t.instructions.push_back(load);
  t.dmas.push_back(dma(0, 0, 0, 10'000, 10'000, 110'000, MemSpace::hbm, MemSpace::sbuf, 8192));
  t.dmas.push_back(dma(0, 1, 0, 10'000, 20'000, 120'000, MemSpace::hbm, MemSpace::sbuf, 8192));
  t.dmas.push_back(dma(0, 2, 0, 10'000, 30'000, 100'000, MemSpace::hbm, MemSpace::sbuf, 8192));
  t.dmas.push_back(dma(0, 3, 0, 10'000, 40'000, 115'000, MemSpace::hbm, MemSpace::sbuf, 8192));
  t.semaphores.push_back(sem(120'000, 0, 1, dma_source(0, Engine::sync, 0)));

  auto mm = instr(Engine::tensor, Opcode::matmul, 0, 0, 120'000, 200'000);
  mm.semaphore_wait_ps = 120'000;
  waited(mm, 0, dma_source(0, Engine::sync, 0));
  mm.bytes.read[1] = 65536;
  mm.bytes.written[2] = 65536;
  mm.flops = 2ull * 128 * 128 * 128;
  t.instructions.push_back(mm);
  t.semaphores.push_back(sem(200'000, 1, 1, engine_source(Engine::tensor, 0)));

  auto copy = instr(Engine::vector, Opcode::tensor_copy, 0, 0, 200'000, 260'000);
  copy.semaphore_wait_ps = 190'000;
  copy.port_wait_ps = 10'000;
  waited(copy, 1, engine_source(Engine::tensor, 0));
  copy.bytes.read[2] = 65536;
  copy.bytes.written[1] = 65536;
  t.instructions.push_back(copy);
  t.semaphores.push_back(sem(260'000, 2, 1, engine_source(Engine::vector, 0)));

  auto store = instr(Engine::sync, Opcode::dma_copy, 1, 10'000, 260'000, 270'000);
  store.semaphore_wait_ps = 250'000;
  waited(store, 2, engine_source(Engine::vector, 0));
  t.instructions.push_back(store);
  t.dmas.push_back(dma(1, 0, 1, 270'000, 270'000, 330'000, MemSpace::sbuf, MemSpace::hbm, 32768));
  t.dmas.push_back(dma(1, 1, 1, 270'000, 330'000, 390'000, MemSpace::sbuf, MemSpace::hbm, 32768));
  return t;
}

// A random but well-formed run: each engine in order with random gaps, waits that fit in
// them, random bytes and flops; dma_copy pieces on random queues; semaphore updates.
inline TraceData random_trace(unsigned seed, int instructions_per_engine) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  TraceData t;
  t.info.kernel_name = "random";
  t.info.target = "trn2";
  t.info.engine_ghz = {2.8, 1.4, 1.4, 1.4, 1.4};
  t.info.cycle_counter_ghz = 1.4;
  std::uint64_t latest = 0;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    std::uint64_t now = pick(0, 5000);
    for (int i = 0; i < instructions_per_engine; ++i) {
      const auto engine = static_cast<Engine>(e);
      const Opcode op = engine == Engine::sync && pick(0, 1) ? Opcode::dma_copy
                        : engine == Engine::tensor           ? Opcode::matmul
                                                             : static_cast<Opcode>(pick(2, 8));
      const std::uint64_t ready = now;
      const std::uint64_t start = ready + (pick(0, 3) ? 0 : pick(1, 50'000));
      const std::uint64_t end = start + pick(0, 20'000);
      auto r = instr(engine, op, static_cast<std::uint32_t>(i), ready, start, end);
      const std::uint64_t gap = start - ready;
      r.semaphore_wait_ps = pick(0, gap);
      r.dma_wait_ps = pick(0, gap - r.semaphore_wait_ps);
      r.port_wait_ps = pick(0, gap - r.semaphore_wait_ps - r.dma_wait_ps);
      if (r.semaphore_wait_ps) {
        const auto s = static_cast<std::uint16_t>(pick(0, 7));
        const auto by = static_cast<std::uint32_t>(pick(0, 1000));
        waited(r, s,
               pick(0, 1) ? engine_source(static_cast<Engine>(pick(0, 4)), by)
                          : dma_source(static_cast<std::uint16_t>(pick(0, 3)), Engine::sync, by));
      }
      for (int m = 0; m < 3; ++m) {
        r.bytes.read[m] = pick(0, 2) ? 0 : pick(1, 1 << 20);
        r.bytes.written[m] = pick(0, 2) ? 0 : pick(1, 1 << 20);
      }
      r.flops = op == Opcode::matmul ? pick(1, 1ull << 24) : 0;
      t.instructions.push_back(r);
      if (op == Opcode::dma_copy) {
        const int pieces = static_cast<int>(pick(1, 4));
        const auto queue = static_cast<std::uint16_t>(pick(0, 3));
        for (int p = 0; p < pieces; ++p) {
          const std::uint64_t s = end + pick(0, 10'000);
          const std::uint64_t f = s + pick(0, 100'000);
          t.dmas.push_back(dma(queue, static_cast<std::uint8_t>(p), static_cast<std::uint32_t>(i),
                               end, s, f, pick(0, 1) ? MemSpace::hbm : MemSpace::sbuf,
                               pick(0, 1) ? MemSpace::hbm : MemSpace::sbuf, pick(1, 1 << 16)));
          latest = std::max(latest, f);
          t.semaphores.push_back(sem(f, static_cast<std::uint16_t>(pick(0, 7)),
                                     static_cast<std::uint32_t>(p + 1),
                                     dma_source(queue, engine, static_cast<std::uint32_t>(i))));
        }
      }
      t.semaphores.push_back(sem(end, static_cast<std::uint16_t>(pick(0, 7)),
                                 static_cast<std::uint32_t>(i),
                                 engine_source(engine, static_cast<std::uint32_t>(i))));
      now = end;
      latest = std::max(latest, end);
    }
  }
  t.info.total_ps = latest + pick(0, 1000);
  return t;
}

}  // namespace traces_test
