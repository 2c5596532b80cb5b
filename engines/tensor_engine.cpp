#include "engines/tensor_engine.hpp"

#include <cmath>

#include "engines/sim_time.hpp"

namespace neuronsim::engines {

TensorEngine::TensorEngine(double clock_ghz, LaunchContext& ctx)
    : Engine(isa::Engine::tensor, clock_ghz, ctx) {
  if (ctx.cost.tensor_throttle)
    throttle_.emplace(ctx.cost.tensor_throttle_start_percent,
                      static_cast<double>(ctx.cost.tensor_throttle_ramp_ns) * clock_ghz);
}

// The throttle slows what the PE array does, from when it is asked to start (a port wait
// after that is counted as idle by the ramp: the array waits as well).
std::uint64_t TensorEngine::busy_cycles(std::size_t index) {
  const std::uint64_t cycles = full_rate_cycles(index);
  throttle_cycles_now_ = 0;
  const isa::Opcode op = instruction().opcode();
  if (!throttle_ ||
      (op != isa::Opcode::matmul && op != isa::Opcode::matmul_mx && op != isa::Opcode::transpose))
    return cycles;
  const double now = to_ns(ctx_.since_start()) * clock_ghz();
  const std::uint64_t throttled = throttle_->run(now, cycles);
  throttle_cycles_now_ = throttled - cycles;
  return throttled;
}

namespace {

// What a matmul holds in the PE array: a plain stationary, or an MX one with the scale tile
// it is dequantised with (NKI nc_matmul_mx). None for the other opcodes.
std::optional<TensorEngine::Stationary> stationary_of(const isa::Instruction& instr) {
  if (const auto* mm = std::get_if<isa::Matmul>(&instr.op))
    return TensorEngine::Stationary{mm->stationary, std::nullopt};
  if (const auto* mx = std::get_if<isa::MatmulMx>(&instr.op))
    return TensorEngine::Stationary{mx->stationary, mx->stationary_scale};
  return std::nullopt;
}

}  // namespace

std::uint64_t TensorEngine::full_rate_cycles(std::size_t index) {
  const auto& plan = plans()[index];
  now_ = stationary_of(instruction());
  load_cycles_now_ = 0;
  reused_ = false;
  if (!now_) {
    // A transpose passes its data through the array and replaces the stationary.
    if (instruction().opcode() == isa::Opcode::transpose) loaded_.reset();
    return plan.cycles;
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (loaded_ && *loaded_ == *now_ && !ctx_.written.written()) {
    // Loaded already, or still loading in the background: pay what is left.
    if (loaded_at_ > now)
      load_cycles_now_ =
          static_cast<std::uint64_t>(std::ceil(to_ns(loaded_at_ - now) * clock_ghz() - 1e-9));
    reused_ = load_cycles_now_ == 0;
  } else {
    load_cycles_now_ = plan.load_cycles;
  }
  return load_cycles_now_ + plan.cycles;
}

void TensorEngine::load(const Stationary& stationary, sc_core::sc_time ready) {
  loaded_ = stationary;
  loaded_at_ = ready;
  const memory::Footprint data = memory::footprint(ctx_.kernel, stationary.data);
  if (stationary.scale)
    ctx_.written.watch(data, memory::footprint(ctx_.kernel, *stationary.scale));
  else
    ctx_.written.watch(data);
}

void TensorEngine::started(std::size_t index, traces::InstructionRecord* record) {
  if (throttle_cycles_now_) {
    const std::uint64_t ps = to_ps(cycles_time(throttle_cycles_now_, clock_ghz()));
    count_throttled(ps);
    if (record) record->throttle_ps = ps;
  }
  if (!now_) return;
  if (record) record->stationary_reused = reused_;
  const sc_core::sc_time multiply_start =
      sc_core::sc_time_stamp() + cycles_time(load_cycles_now_, clock_ghz());
  if (!reused_ && load_cycles_now_ > 0) load(*now_, multiply_start);
  // Background load of the next matmul's stationary during this multiply.
  const std::size_t next = index + 1;
  const isa::Instruction* next_instr = next_instruction();
  if (!next_instr) return;
  const std::optional<Stationary> next_stationary = stationary_of(*next_instr);
  if (!next_stationary || *next_stationary == *now_) return;
  if (!ctx_.semaphores.satisfied(next_instr->waits)) return;
  load(*next_stationary, multiply_start + cycles_time(plans()[next].load_cycles, clock_ghz()));
}

}  // namespace neuronsim::engines
