#include "engines/engine.hpp"

#include "cost/cost_model.hpp"
#include "engines/dma_subsystem.hpp"
#include "engines/sim_time.hpp"
#include "semantics/semantics.hpp"

namespace neuronsim::engines {

Engine::Engine(isa::Engine kind, double clock_ghz, LaunchContext& ctx)
    : ctx_(ctx),
      kind_(kind),
      clock_ghz_(clock_ghz),
      stream_(ctx.kernel.stream(kind)),
      reader_(stream_),
      plans_(ctx.plan.plans[static_cast<int>(kind)]),
      ports_(ctx.plan.ports[static_cast<int>(kind)]) {
  stats_.engine = kind;
  stats_.clock_ghz = clock_ghz;
}

EngineStats Engine::stats(std::uint64_t total_ps) const {
  EngineStats s = stats_;
  s.time.idle_ps = total_ps - s.time.busy_ps - s.time.semaphore_wait_ps - s.time.dma_wait_ps -
                   s.time.port_wait_ps;
  return s;
}

// The next instruction's plan and ports, fetched into the cache while this one runs: the
// other engines' threads run in between, and a stream's plans are too large to stay
// cached (the engine loop otherwise waits on these loads).
void Engine::prefetch(std::size_t index) const {
  if (index >= stream_.size()) return;
  __builtin_prefetch(&plans_[index]);
  __builtin_prefetch(ports_.first.data() + index);
}

void Engine::run() {
  try {
    reader_.next(*next_instr_);
    for (std::size_t i = 0; i < stream_.size(); ++i) {
      current_ = i;
      std::swap(current_instr_, next_instr_);
      reader_.next(*next_instr_);  // decoded ahead: TensorEngine looks at it
      prefetch(i + 1);
      execute(i);
    }
    current_ = stream_.size();
    state_ = EngineState::finished;
    finished_at_ = ctx_.since_start();
  } catch (const sc_core::sc_unwind_exception&) {
    throw;  // the launch failed and the core resets this thread
  } catch (...) {
    ctx_.monitor.fail(std::current_exception());
    return;
  }
  ctx_.monitor.progress();
}

void Engine::execute(std::size_t index) {
  const isa::Instruction& instr = *current_instr_;
  traces::InstructionRecord record;
  traces::InstructionRecord* rec = ctx_.observers.empty() ? nullptr : &record;
  if (rec) {
    rec->engine = kind_;
    rec->index = static_cast<std::uint32_t>(index);
    rec->opcode = instr.opcode();
    rec->source_line = instr.source_line;
    rec->instruction = &instr;
    rec->ready_ps = to_ps(ctx_.since_start());
    access_bytes(instr, rec->bytes.read, rec->bytes.written);
    rec->flops = isa::flops(instr);
  }
  wait_semaphores(instr, rec);
  if (instr.opcode() == isa::Opcode::dma_copy) {
    issue_dma(index, rec);
    return;
  }

  const std::uint64_t cycles = busy_cycles(index);
  const sc_core::sc_time duration = cycles_time(cycles, clock_ghz_);
  const sc_core::sc_time asked = sc_core::sc_time_stamp();
  const sc_core::sc_time start =
      memory::Port::reserve(ports_.of(index), ports_.count(index), asked, duration);
  if (start > asked) {
    state_ = EngineState::waiting_port;
    sc_core::wait(start - asked);
    stats_.time.port_wait_ps += to_ps(start - asked);
  }
  state_ = EngineState::busy;
  if (rec) {
    rec->port_wait_ps = to_ps(start - asked);
    rec->start_ps = to_ps(start - ctx_.origin);
    rec->start_cycle = to_cycles(start - ctx_.origin, clock_ghz_);
    rec->busy_cycles = cycles;
  }
  if (ctx_.written.watching())
    isa::for_each_access(instr, [&](const isa::AccessPattern& ap, bool is_write) {
      if (is_write) ctx_.written.note(memory::footprint(ctx_.kernel, ap));
    });
  started(index, rec);
  if (rec)
    for (auto* o : ctx_.observers)
      o->on_instruction_start(*rec);
  if (ctx_.memory) isa::execute(ctx_.kernel, instr, *ctx_.memory);
  sc_core::wait(duration);
  stats_.time.busy_ps += to_ps(duration);
  stats_.busy_cycles += cycles;

  traces::SignalSource source;
  source.kind = traces::SignalSource::Kind::engine;
  source.engine = kind_;
  source.instruction = static_cast<std::uint32_t>(index);
  for (const auto& s : instr.signals)
    ctx_.semaphores.apply(s, source);
  finish(index, rec);
}

void Engine::wait_semaphores(const isa::Instruction& instr, traces::InstructionRecord* rec) {
  const sc_core::sc_time ready = sc_core::sc_time_stamp();
  for (const auto& w : instr.waits) {
    const sc_core::sc_time before = sc_core::sc_time_stamp();
    const std::uint32_t value_at_ready = ctx_.semaphores.value(w.sem);
    state_ = EngineState::waiting_semaphore;
    blocked_on_ = w;
    if (value_at_ready < w.value) ctx_.monitor.progress();  // all engines may be stuck now
    ctx_.semaphores.wait_until(w.sem, w.value);
    if (!rec) continue;
    traces::SemaphoreWaitRecord sw;
    sw.semaphore = w.sem;
    sw.wanted = w.value;
    sw.value_at_ready = value_at_ready;
    sw.waited_ps = to_ps(sc_core::sc_time_stamp() - before);
    sw.last_signaller = ctx_.semaphores.last_source(w.sem);
    rec->semaphore_waits.push_back(sw);
  }
  const sc_core::sc_time waited = sc_core::sc_time_stamp() - ready;
  stats_.time.semaphore_wait_ps += to_ps(waited);
  if (rec) rec->semaphore_wait_ps = to_ps(waited);
}

void Engine::issue_dma(std::size_t index, traces::InstructionRecord* rec) {
  // The issuing engine waits only for room in the kernel queue, and, on GpSimd, makes the
  // descriptors itself (software DGE, busy time); the DMA subsystem does the rest and
  // applies the instruction's semaphore updates when the transfer completes.
  const isa::Instruction& instr = *current_instr_;
  const auto i = static_cast<std::uint32_t>(index);
  const sc_core::sc_time asked = sc_core::sc_time_stamp();
  state_ = EngineState::waiting_dma_queue;
  ctx_.dma.claim(instr, kind_, i);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  stats_.time.dma_wait_ps += to_ps(now - asked);
  const sc_core::sc_time generating = ctx_.dma.issuer_time(instr, kind_);
  const std::uint64_t cycles = to_cycles(generating, clock_ghz_);
  if (rec) {
    rec->dma_wait_ps = to_ps(now - asked);
    rec->start_ps = to_ps(now - ctx_.origin);
    rec->start_cycle = to_cycles(now - ctx_.origin, clock_ghz_);
    rec->busy_cycles = cycles;
    for (auto* o : ctx_.observers)
      o->on_instruction_start(*rec);
  }
  if (generating > sc_core::SC_ZERO_TIME) {
    state_ = EngineState::busy;
    sc_core::wait(generating);
    stats_.time.busy_ps += to_ps(generating);
    stats_.busy_cycles += cycles;
  }
  ctx_.dma.submit(instr, kind_, i);
  finish(index, rec);
}

void Engine::finish(std::size_t /*index*/, traces::InstructionRecord* rec) {
  stats_.time.instruction_count++;
  if (!rec) return;
  const sc_core::sc_time now = ctx_.since_start();
  rec->end_ps = to_ps(now);
  rec->end_cycle = to_cycles(now, clock_ghz_);
  for (auto* o : ctx_.observers)
    o->on_instruction_end(*rec);
}

}  // namespace neuronsim::engines
