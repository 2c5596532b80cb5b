#pragma once
// The base of every compute engine for one launch: its in-order instruction stream, run by
// one of the core's engine threads (run()) on the engine's own clock. Per instruction:
//   wait until every semaphore it names reaches its value   -> "waiting on semaphore"
//   dma_copy: hand it to the DMA subsystem (waits only if the queue is full) and go on
//   otherwise: hold the memory ports it needs                -> "waiting on port"
//              d = cost-model cycles x clock period (precomputed per instruction)
//              isa::execute (unless timing only); wait(d)  -> "busy"
//              apply its semaphore updates
//   notify observers (only if any are attached)
// Specialisations override busy_time() / started() for what is special about them.
#include <cstdint>
#include <vector>

#include <systemc>

#include "engines/engine_stats.hpp"
#include "engines/instruction_plan.hpp"
#include "engines/launch_context.hpp"

namespace neuronsim::engines {

enum class EngineState : std::uint8_t {
  not_started,
  waiting_semaphore,
  waiting_dma_queue,
  waiting_port,
  busy,
  finished,
};

class Engine {
 public:
  Engine(isa::Engine kind, double clock_ghz, LaunchContext& ctx);
  virtual ~Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs the whole stream; called by a SystemC thread of the core. Errors go to the
  // launch's monitor; a reset of the calling thread (a failed launch) unwinds through it.
  void run();

  isa::Engine engine() const { return kind_; }
  double clock_ghz() const { return clock_ghz_; }
  // Its statistics for the launch so far, which ran for `total_ps` (the idle time is the
  // rest of it once the engine has finished).
  EngineStats stats(std::uint64_t total_ps) const;
  // The end of its last instruction, from the launch's start (0 for an empty stream).
  sc_core::sc_time finished_at() const { return finished_at_; }
  EngineState state() const { return state_; }
  bool finished() const { return state_ == EngineState::finished; }
  std::size_t current_index() const { return current_; }  // the instruction in progress
  // The semaphore the engine is blocked on (meaningful in waiting_semaphore).
  const isa::SemWait& blocked_on() const { return blocked_on_; }

 protected:
  // How long the instruction at `index` keeps the engine busy if it starts now, in
  // cycles of this engine's clock. Default: the cost model's cycles.
  virtual std::uint64_t busy_cycles(std::size_t index) { return plans_[index].cycles; }
  // The instruction at `index` starts being busy now (after all waits).
  virtual void started(std::size_t /*index*/, traces::InstructionRecord* /*record*/) {}

  const std::vector<InstructionPlan>& plans() const { return plans_; }
  // Part of the busy time of the instruction starting now that a throttle added.
  void count_throttled(std::uint64_t ps) { stats_.time.throttled_ps += ps; }
  // The instruction in progress, decoded; valid until the engine moves on.
  const isa::Instruction& instruction() const { return *current_instr_; }
  // The one after it, decoded already, or null at the end of the stream.
  const isa::Instruction* next_instruction() const {
    return current_ + 1 < stream_.size() ? next_instr_ : nullptr;
  }
  LaunchContext& ctx_;

 private:
  void execute(std::size_t index);
  void prefetch(std::size_t index) const;
  void wait_semaphores(const isa::Instruction& instr, traces::InstructionRecord* record);
  void issue_dma(std::size_t index, traces::InstructionRecord* record);
  void finish(std::size_t index, traces::InstructionRecord* record);

  isa::Engine kind_;
  double clock_ghz_;
  // The stream is held encoded (isa/instruction_stream.hpp): the engine decodes one
  // instruction ahead into two slots that swap, so it never holds the stream decoded.
  const isa::InstructionStream& stream_;
  isa::InstructionStream::Reader reader_;
  isa::Instruction slots_[2];
  isa::Instruction* current_instr_ = &slots_[0];
  isa::Instruction* next_instr_ = &slots_[1];
  const std::vector<InstructionPlan>& plans_;
  const PortLists& ports_;
  EngineStats stats_;  // counted as it runs; idle is the core's to fill
  sc_core::sc_time finished_at_;
  EngineState state_ = EngineState::not_started;
  std::size_t current_ = 0;
  isa::SemWait blocked_on_;
};

}  // namespace neuronsim::engines
