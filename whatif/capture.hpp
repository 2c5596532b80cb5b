#pragma once
// The trace of a baseline launch kept in memory (an engines::Observer): what the critical
// path and the resource figures of `neuronsim whatif` are read from. The records are
// copied without their live-only pointers.
#include "engines/observer.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::whatif {

class TraceCapture : public engines::Observer {
 public:
  void on_instruction_end(const traces::InstructionRecord& r) override;
  void on_dma_end(const traces::DmaRecord& r) override;
  const traces::TraceData& trace() const { return trace_; }

 private:
  traces::TraceData trace_;
};

}  // namespace neuronsim::whatif
