#pragma once
// The critical path of one launch's trace (docs/report.md): from the record that ends
// last, backwards: an instruction that waited on a semaphore -> its signaller
// (traces/signallers.hpp); otherwise -> the previous instruction of its engine; a DMA part
// -> the dma_copy that issued it. The report viewer marks it; `neuronsim whatif` removes
// the semaphore waits on it one by one.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/ntff.hpp"

namespace neuronsim::traces {

struct CriticalStep {
  enum class Kind : std::uint8_t { instruction, dma };
  Kind kind = Kind::instruction;
  std::size_t index = 0;  // into TraceData::instructions or ::dmas
};

// Per DMA part of `t`: the index in t.instructions of the dma_copy that issued it, or -1
// when that instruction is not in the trace.
std::vector<long> dma_issuers(const TraceData& t);

// The path, latest record first. Every record appears at most once, so the walk ends
// within instructions + DMA parts steps even on a forged trace.
std::vector<CriticalStep> critical_path(const TraceData& t);

}  // namespace neuronsim::traces
