#pragma once
// The Vector, Scalar, GpSimd and Sync engines. Everything they do is the base loop with
// their own clock and ports; what differs between them is in the cost model (datapath
// widths, formulas) and the port rules, so these classes only name the engine.
#include "engines/engine.hpp"

namespace neuronsim::engines {

class VectorEngine : public Engine {
 public:
  VectorEngine(double clock_ghz, LaunchContext& ctx)
      : Engine(isa::Engine::vector, clock_ghz, ctx) {}
};

class ScalarEngine : public Engine {
 public:
  ScalarEngine(double clock_ghz, LaunchContext& ctx)
      : Engine(isa::Engine::scalar, clock_ghz, ctx) {}
};

class GpSimdEngine : public Engine {
 public:
  GpSimdEngine(double clock_ghz, LaunchContext& ctx)
      : Engine(isa::Engine::gpsimd, clock_ghz, ctx) {}
};

// A sequencer only (reference section 3): mostly issues DMAs and synchronises.
class SyncEngine : public Engine {
 public:
  SyncEngine(double clock_ghz, LaunchContext& ctx) : Engine(isa::Engine::sync, clock_ghz, ctx) {}
};

}  // namespace neuronsim::engines
