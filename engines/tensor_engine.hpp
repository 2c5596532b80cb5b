#pragma once
// The Tensor engine (reference section 3): a matmul is LoadStationary then
// MultiplyMoving. The array keeps the last stationary tile, so a matmul whose stationary
// is already loaded (same access pattern, not written since) pays no load. The load of the
// next matmul's stationary runs in the background of the current multiply when that next
// matmul is ready to go (its semaphores already satisfied when the multiply starts); it
// then costs only what is left of it when the next matmul starts.
#include <optional>

#include "engines/engine.hpp"

namespace neuronsim::engines {

class TensorEngine : public Engine {
 public:
  TensorEngine(double clock_ghz, LaunchContext& ctx)
      : Engine(isa::Engine::tensor, clock_ghz, ctx) {}

 protected:
  std::uint64_t busy_cycles(std::size_t index) override;
  void started(std::size_t index, traces::InstructionRecord* record) override;

 private:
  void load(const isa::AccessPattern& stationary, sc_core::sc_time ready);

  std::optional<isa::AccessPattern> loaded_;  // in the array, or loading in the background
  sc_core::sc_time loaded_at_;                // when that load completes
  std::uint64_t load_cycles_now_ = 0;         // load part of the instruction starting
  bool reused_ = false;
};

}  // namespace neuronsim::engines
