#pragma once
// The Tensor engine (reference section 3): a matmul is LoadStationary then
// MultiplyMoving. The array keeps the last stationary tile, so a matmul whose stationary
// is already loaded (same access pattern, not written since) pays no load. The load of the
// next matmul's stationary runs in the background of the current multiply when that next
// matmul is ready to go (its semaphores already satisfied when the multiply starts); it
// then costs only what is left of it when the next matmul starts.
// An MX matmul (nc_matmul_mx) is the same two parts with MX operands; its stationary is the
// data tile and its scale tile together, and a plain matmul never reuses an MX stationary
// (nor the reverse: the loaded weights differ).
// On targets with `tensor.throttle`, the PE array's work (matmuls, transposes) runs through
// the throttle (cost/tensor_throttle.hpp) and each record says how much it added.
#include <optional>

#include "cost/tensor_throttle.hpp"
#include "engines/engine.hpp"

namespace neuronsim::engines {

class TensorEngine : public Engine {
 public:
  TensorEngine(double clock_ghz, LaunchContext& ctx);

  // The tile(s) a matmul loads into the PE array.
  struct Stationary {
    isa::AccessPattern data;
    std::optional<isa::AccessPattern> scale;  // MX only
    bool operator==(const Stationary& o) const { return data == o.data && scale == o.scale; }
  };

 protected:
  std::uint64_t busy_cycles(std::size_t index) override;
  void started(std::size_t index, traces::InstructionRecord* record) override;

 private:
  std::uint64_t full_rate_cycles(std::size_t index);
  void load(const Stationary& stationary, sc_core::sc_time ready);

  std::optional<Stationary> now_;      // the starting instruction's, if it is a matmul
  std::optional<Stationary> loaded_;   // in the array, or loading in the background
  sc_core::sc_time loaded_at_;         // when that load completes
  std::uint64_t load_cycles_now_ = 0;  // load part of the instruction starting
  bool reused_ = false;
  // Each launch starts with the throttle engaged: a launch follows host work at least as
  // long as the ramp (docs/cost-model.md, "Tensor throttle").
  std::optional<isa::cost::TensorThrottle> throttle_;
  std::uint64_t throttle_cycles_now_ = 0;  // what it added to the instruction starting
};

}  // namespace neuronsim::engines
