// Scenario tests of the engine loop: exact cycle counts, semaphore ordering, the Tensor
// engine's stationary reuse, errors and deadlocks. Each TEST_CASE is one simulation and
// runs in a process of its own under CTest (run them one at a time by name).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "base/error.hpp"
#include "core_support.hpp"
#include "neuronsim/run.hpp"
#include "profile/trace_recorder.hpp"
#include "traces/ntff.hpp"
#include "traces/signallers.hpp"

using namespace core_test;
using neuronsim::isa::AluOp;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// Vector tensor_tensor of two fp32 [128, 512] SBUF tiles: a, b, c.
isa::Kernel vector_add_kernel() {
  auto k = kernel("vector_add");
  const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 0);
  const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 512, 2048);
  const auto c = alloc(k, "c", MemSpace::sbuf, DType::fp32, 128, 512, 4096);
  k.stream(Engine::vector)
      .push_back(op(isa::TensorTensor{tile(k, c), tile(k, a), tile(k, b), AluOp::add}));
  return k;
}

}  // namespace

TEST_CASE("core: one fp32 tensor_tensor on Vector takes max(64 or 2N) cycles", "[core]") {
  const auto k = vector_add_kernel();
  const auto cfg = target("trn1");
  const auto r = run_kernel(k, cfg, {}, {});
  // Reference section 4: tensor_tensor with both inputs in SBUF, fp32:
  // max(64, 2 * 512) = 1024 cycles of the 1.12 GHz Vector clock = 914.2857 ns
  // (SystemC rounds to the picosecond: 914.286 ns).
  const auto& v = r.stats.engines[static_cast<int>(Engine::vector)];
  CHECK(v.time.instruction_count == 1);
  CHECK(v.busy_cycles == 1024);
  CHECK(r.total_ns == Approx(1024 / 1.12).margin(0.001));
  // At trn1's profiler cycle counter (clocks.cycle_counter_ghz, 1.4 GHz):
  // 914.286 ns * 1.4 = 1280; in the Tensor clock (2.8 GHz) 914.286 * 2.8 = 2560.
  CHECK(r.neuroncore_cycle_count == 1280);
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)] == 2560);
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::vector)] == 1024);
  // Every engine's time adds up to the total, exactly.
  for (const auto& e : r.stats.engines) {
    const traces::EngineTime& t = e.time;
    CHECK(t.busy_ps + t.semaphore_wait_ps + t.port_wait_ps + t.dma_wait_ps + t.idle_ps ==
          r.total_ps);
  }
  // The statistics list names each group's members: the listed value is the member's.
  bool listed = false;
  for (const Statistic& s : r.stats.all())
    if (s.name == "vector_engine_busy_cycles") {
      CHECK(s.unit == Unit::cycles);
      CHECK(std::get<std::uint64_t>(s.value) == v.busy_cycles);
      listed = true;
    }
  CHECK(listed);
}

TEST_CASE("core: a consumer starts after its producer ends (semaphore)", "[core]") {
  auto k = vector_add_kernel();
  const auto s = semaphore(k, "c_ready");
  k.stream(Engine::vector).edit(0, [&](neuronsim::isa::Instruction& i) {
    i.signals.push_back(inc(s));
  });
  const auto c = 2u;
  const auto d = alloc(k, "d", MemSpace::sbuf, DType::fp32, 128, 512, 6144);
  isa::Activation act;
  act.dst = tile(k, d);
  act.src = tile(k, c);
  act.func = isa::ActFunc::exp;
  k.stream(Engine::scalar).push_back(op(act, {{s, 1}}));
  Recorder rec;
  RunOptions opt;
  opt.observers = {&rec};
  const auto r = run_kernel(k, target("trn1"), {}, opt);

  const auto& producer = rec.end_of(Engine::vector, 0);
  const auto& consumer = rec.end_of(Engine::scalar, 0);
  CHECK(consumer.start_ps >= producer.end_ps);
  // Scalar activation, N = 512: max(64, 512) = 512 cycles at 1.4 GHz = 365.714 ns, after
  // the 914.286 ns of the Vector instruction: 1280.000 ns in all.
  CHECK(consumer.busy_cycles == 512);
  CHECK(r.total_ns == Approx(1024 / 1.12 + 512 / 1.4).margin(0.002));
  // The wait is recorded with the semaphore and who signalled it.
  REQUIRE(consumer.semaphore_waits.size() == 1);
  CHECK(consumer.semaphore_waits[0].semaphore == s);
  CHECK(consumer.semaphore_waits[0].value_at_ready == 0);
  CHECK(consumer.semaphore_waits[0].last_signaller.kind == traces::SignalSource::Kind::engine);
  CHECK(consumer.semaphore_waits[0].last_signaller.engine == Engine::vector);
  CHECK(consumer.semaphore_wait_ps == producer.end_ps);
  REQUIRE(rec.semaphores.size() == 1);
  CHECK(rec.semaphores[0].value == 1);
  CHECK(rec.semaphores[0].time_ps == producer.end_ps);
  const auto& sc = r.stats.engines[static_cast<int>(Engine::scalar)].time;
  CHECK(sc.semaphore_wait_ps / 1000.0 == Approx(1024 / 1.12).margin(0.001));
}

// Two Vector instructions signal `s` close together; Scalar waits for s >= 1 (released by
// the first) and then for `r`, so it starts after the second signal. The signaller is the
// first. The time searches this replaced (report viewer, Perfetto export: "the latest update
// of s by Vector before the waiter started") blamed the second.
TEST_CASE("core: the recorded signaller of a wait is the instruction that released it", "[core]") {
  auto k = vector_add_kernel();  // vector[0]: c = a + b, 1024 cycles, signals s
  const auto s = semaphore(k, "s"), r = semaphore(k, "r");
  k.stream(Engine::vector).edit(0, [&](neuronsim::isa::Instruction& i) {
    i.signals.push_back(inc(s));
  });
  const auto e = alloc(k, "e", MemSpace::sbuf, DType::fp32, 128, 64, 8192);
  const auto f = alloc(k, "f", MemSpace::sbuf, DType::fp32, 128, 128, 8448);
  const auto g = alloc(k, "g", MemSpace::sbuf, DType::fp32, 128, 128, 8960);
  k.stream(Engine::vector)  // vector[1]: 128 cycles, signals s again
      .push_back(
          op(isa::TensorTensor{tile(k, e), tile(k, e), tile(k, e), AluOp::add}, {}, {inc(s)}));
  k.stream(Engine::vector)  // vector[2]: 256 cycles, signals r
      .push_back(
          op(isa::TensorTensor{tile(k, f), tile(k, f), tile(k, f), AluOp::add}, {}, {inc(r)}));
  isa::Activation act;
  act.dst = tile(k, g);
  act.src = tile(k, g);
  act.func = isa::ActFunc::exp;
  k.stream(Engine::scalar).push_back(op(act, {{s, 1}, {r, 1}}));

  Recorder rec;
  const std::string path = "signaller_" + std::to_string(::getpid()) + ".ntff";
  profile::TraceRecorder trace(path, profile::trace_info(k, target("trn1"), {}));
  RunOptions opt;
  opt.observers = {&rec, &trace};
  const auto result = run_kernel(k, target("trn1"), {}, opt);
  trace.finish(result.total_ps);

  // trn1 Vector at 1.12 GHz (tensor_tensor fp32: max(64, 2N) cycles): vector[0] ends at
  // 1024 / 1.12 = 914.286 ns, vector[1] (N = 64: 128 cycles, 114.286 ns, each rounded to
  // the ps) at 1028.572 ns, vector[2]
  // (N = 128: 256 cycles) at 1257.143 ns. Scalar waited 914.286 ns for s, 342.857 ns for r.
  const auto& first = rec.end_of(Engine::vector, 0);
  const auto& second = rec.end_of(Engine::vector, 1);
  const auto& waiter = rec.end_of(Engine::scalar, 0);
  CHECK(first.end_ps == 914'286);
  CHECK(second.end_ps == 1'028'572);
  CHECK(waiter.start_ps >= rec.end_of(Engine::vector, 2).end_ps);
  REQUIRE(waiter.semaphore_waits.size() == 2);
  const traces::SemaphoreWaitRecord* longest = traces::longest_wait(waiter);
  REQUIRE(longest == &waiter.semaphore_waits[0]);
  CHECK(longest->waited_ps == 914'286);
  CHECK(longest->last_signaller ==
        traces::SignalSource{traces::SignalSource::Kind::engine, Engine::vector, 0, 0});
  CHECK(waiter.semaphore_waits[1].last_signaller.instruction == 2);
  // The semaphore records carry their signaller too.
  REQUIRE(rec.semaphores.size() == 3);
  CHECK(rec.semaphores[1].source.instruction == 1);

  // The NTFF keeps it, and the one signaller lookup reads it.
  const traces::TraceData t = traces::read_ntff(path);
  std::remove(path.c_str());
  const auto signallers = traces::find_signallers(t);
  std::size_t w = 0;
  while (t.instructions[w].engine != Engine::scalar)
    ++w;
  REQUIRE(t.instructions[w].semaphore_waits == waiter.semaphore_waits);
  REQUIRE(signallers[w].kind == traces::SignallerRef::Kind::instruction);
  CHECK(t.instructions[signallers[w].index].engine == Engine::vector);
  CHECK(t.instructions[signallers[w].index].index == 0);
}

TEST_CASE("core: a semaphore increment past 32 bits fails the launch, naming it", "[core]") {
  auto k = vector_add_kernel();
  const auto s = semaphore(k, "full");
  k.semaphores[s].initial = 4294967294u;
  k.stream(Engine::gpsimd).push_back(op(isa::Nop{}, {}, {inc(s)}));  // 4294967295: fine
  k.stream(Engine::gpsimd).push_back(op(isa::Nop{}, {}, {inc(s)}));  // would wrap to 0
  try {
    run_kernel(k, target("trn1"), {}, {}, "wrap.nasm");
    FAIL("no error for a wrapping semaphore");
  } catch (const neuronsim::Error& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("semaphore 'full' would pass 4294967295: gpsimd[1] adds 1 to "
                               "4294967295"));
  }
}

TEST_CASE("core: a deadlock names every blocked engine and its semaphore", "[core]") {
  auto k = vector_add_kernel();
  const auto s0 = semaphore(k, "never");
  const auto s1 = semaphore(k, "also_never");
  k.stream(Engine::vector).edit(0, [&](neuronsim::isa::Instruction& i) {
    i.waits.push_back({s0, 1});
    i.source_line = 7;
  });
  k.stream(Engine::gpsimd).push_back(op(isa::Nop{}, {{s1, 2}}));
  try {
    run_kernel(k, target("trn1"), {}, {}, "dead.nasm");
    FAIL("no deadlock reported");
  } catch (const neuronsim::Error& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("deadlock"));
    CHECK_THAT(msg,
               Catch::Contains("vector[0] tensor_tensor (line 7): waits for semaphore 'never' = 0, "
                               "wants >= 1"));
    CHECK_THAT(msg, Catch::Contains("gpsimd[0] nop: waits for semaphore 'also_never' = 0, "
                                    "wants >= 2"));
  }
}

namespace {
struct ThrowingObserver : engines::Observer {
  void on_instruction_start(const traces::InstructionRecord&) override {
    throw neuronsim::Error("observer: disk full");
  }
};
}  // namespace

TEST_CASE("core: an error inside a SystemC process surfaces as that error", "[core]") {
  const auto k = vector_add_kernel();
  ThrowingObserver bad;
  RunOptions opt;
  opt.observers = {&bad};
  CHECK_THROWS_WITH(run_kernel(k, target("trn1"), {}, opt), "observer: disk full");
}

TEST_CASE("core: a second run_kernel in one process is refused with a clear message", "[core]") {
  // SystemC elaborates once per process: more kernels go onto the same core (launch()).

  const auto k = vector_add_kernel();
  run_kernel(k, target("trn1"), {}, {});
  CHECK_THROWS_WITH(run_kernel(k, target("trn1"), {}, {}),
                    Catch::Contains("already run a SystemC simulation"));
}

TEST_CASE("core: inputs never given are named", "[core]") {
  auto k = vector_add_kernel();
  tensor(k, "x", isa::TensorRole::input, DType::fp32, 128, 512);
  tensor(k, "y", isa::TensorRole::input, DType::fp32, 128, 512);
  TensorBytes inputs;
  inputs["x"] = std::vector<std::uint8_t>(128 * 512 * 4);
  CHECK_THROWS_WITH(run_kernel(k, target("trn1"), inputs, {}, "k.neff"),
                    "k.neff: inputs not given: 'y'");
}

namespace {
// Two bf16 matmuls [K=128, M=128] x [128, N=512] into one PSUM bank each.
isa::Kernel two_matmuls(bool same_stationary) {
  auto k = kernel("matmuls");
  const auto w0 = alloc(k, "w0", MemSpace::sbuf, DType::bf16, 128, 128, 0);
  const auto w1 = alloc(k, "w1", MemSpace::sbuf, DType::bf16, 128, 128, 256);
  const auto x = alloc(k, "x", MemSpace::sbuf, DType::bf16, 128, 512, 512);
  const auto p0 = alloc(k, "p0", MemSpace::psum, DType::fp32, 128, 512, 0);
  const auto p1 = alloc(k, "p1", MemSpace::psum, DType::fp32, 128, 512, 2048);
  auto& t = k.stream(Engine::tensor);
  t.push_back(op(isa::Matmul{tile(k, p0), tile(k, w0), tile(k, x)}));
  t.push_back(op(isa::Matmul{tile(k, p1), tile(k, same_stationary ? w0 : w1), tile(k, x)}));
  return k;
}
}  // namespace

TEST_CASE("core: a matmul whose stationary is loaded pays no load", "[core]") {
  Recorder rec;
  RunOptions opt;
  opt.observers = {&rec};
  const auto r = run_kernel(two_matmuls(true), target("trn1"), {}, opt);
  // LoadStationary of M = 128 columns: ceil(128 / 4) = 32 cycles (load_stationary_speedup
  // 4); MultiplyMoving: max(min(64, 128), 512) = 512 cycles (reference section 4).
  // First matmul 32 + 512, second 512 (stationary reused): 1056 cycles at 2.8 GHz.
  CHECK(rec.end_of(Engine::tensor, 0).busy_cycles == 544);
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 512);
  CHECK(rec.end_of(Engine::tensor, 1).stationary_reused);
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)] == 1056);
  // 1056 / 2.8 = 377.143 ns, at trn1's profiler cycle counter (1.4 GHz): 1056 / 2 = 528.
  CHECK(r.neuroncore_cycle_count == 528);
}

TEST_CASE("core: the next stationary loads in the background of the current multiply", "[core]") {
  const auto r = run_kernel(two_matmuls(false), target("trn1"), {}, {});
  // The second matmul's load (32 cycles) overlaps the first multiply (512 cycles), so it
  // costs nothing: 32 + 512 + 512 = 1056 cycles, not 32 + 512 + 32 + 512 = 1088; at the
  // profiler's cycle counter (1.4 GHz, half the Tensor clock) 1056 / 2 = 528.
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)] == 1056);
  CHECK(r.neuroncore_cycle_count == 528);
  CHECK(r.stats.engines[static_cast<int>(Engine::tensor)].busy_cycles == 1056);
}

TEST_CASE("core: a stationary rewritten since its load is loaded again", "[core]") {
  auto k = two_matmuls(true);
  // Vector rewrites w0 between the matmuls; the second matmul waits for it.
  const auto s = semaphore(k, "w0_rewritten");
  const auto s_go = semaphore(k, "first_done");
  k.stream(Engine::tensor).edit(0, [&](neuronsim::isa::Instruction& i) {
    i.signals.push_back(inc(s_go));
  });
  k.stream(Engine::tensor).edit(1, [&](neuronsim::isa::Instruction& i) {
    i.waits.push_back({s, 1});
  });
  isa::Memset ms;
  ms.dst = tile(k, 0);
  ms.value = 1.0;
  k.stream(Engine::vector).push_back(op(ms, {{s_go, 1}}, {inc(s)}));
  Recorder rec;
  RunOptions opt;
  opt.observers = {&rec};
  run_kernel(k, target("trn1"), {}, opt);
  // Same access pattern, but the data changed: 32 load cycles + 512.
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 544);
  CHECK_FALSE(rec.end_of(Engine::tensor, 1).stationary_reused);
}
