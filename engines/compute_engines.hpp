#pragma once
// The Vector, Scalar, GpSimd and Sync engines. Everything they do is the base loop with
// their own clock and ports; what differs between them is in the cost model (datapath
// widths, formulas) and the port rules, so these classes only name the engine.
#include "engines/engine.hpp"

namespace neuronsim::engines {

class VectorEngine : public Engine {
 public:
  VectorEngine(sc_core::sc_module_name name, double clock_ghz, CoreContext& ctx)
      : Engine(name, isa::Engine::vector, clock_ghz, ctx) {}
};

class ScalarEngine : public Engine {
 public:
  ScalarEngine(sc_core::sc_module_name name, double clock_ghz, CoreContext& ctx)
      : Engine(name, isa::Engine::scalar, clock_ghz, ctx) {}
};

class GpSimdEngine : public Engine {
 public:
  GpSimdEngine(sc_core::sc_module_name name, double clock_ghz, CoreContext& ctx)
      : Engine(name, isa::Engine::gpsimd, clock_ghz, ctx) {}
};

// A sequencer only (reference section 3): mostly issues DMAs and synchronises.
class SyncEngine : public Engine {
 public:
  SyncEngine(sc_core::sc_module_name name, double clock_ghz, CoreContext& ctx)
      : Engine(name, isa::Engine::sync, clock_ghz, ctx) {}
};

}  // namespace neuronsim::engines
