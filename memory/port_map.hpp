#pragma once
// Which ports each engine's SBUF and PSUM accesses go through (reference section 2).
// Every engine has its own SBUF port and PSUM port unless the rules merge them:
// NeuronCore-v2 shares one SBUF port between Vector and GpSimd and one PSUM port between
// Vector and Scalar. On v3 and later the ports are separate and only accesses to the same
// PSUM bank conflict: each bank is then a port of its own, shared by all engines.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "isa/engine.hpp"
#include "memory/footprint.hpp"
#include "memory/port.hpp"

namespace neuronsim::memory {

struct PortRules {
  bool vector_gpsimd_share_sbuf = false;
  bool vector_scalar_share_psum = false;
  bool psum_same_bank_conflicts = false;
  std::uint32_t psum_banks = 0;       // banks per partition
  std::uint32_t psum_bank_bytes = 0;  // bytes per partition per bank
};

class PortMap {
 public:
  explicit PortMap(const PortRules& rules);

  // The ports an instruction of `engine` touching `regions` must hold (no duplicates,
  // in a fixed order).
  std::vector<Port*> ports_for(isa::Engine engine, const std::vector<Footprint>& regions);

  // Every port free from time zero (Port::reset), for a new launch.
  void reset();
  Port& sbuf_port(isa::Engine e) { return *sbuf_[static_cast<int>(e)]; }
  Port& psum_port(isa::Engine e) { return *psum_[static_cast<int>(e)]; }

 private:
  PortRules rules_;
  std::vector<std::unique_ptr<Port>> owned_;
  std::array<Port*, isa::kEngineCount> sbuf_{};
  std::array<Port*, isa::kEngineCount> psum_{};
  std::vector<Port*> psum_banks_;  // only with psum_same_bank_conflicts
};

}  // namespace neuronsim::memory
