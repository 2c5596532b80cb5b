#pragma once
// Which record of a trace signalled the semaphore each instruction waited on longest, read
// from the signal source the engines recorded when they signalled (traces/records.hpp), not
// searched for by time: the Perfetto export's flow arrows and the report viewer's
// signallers and critical path both take it from here.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/ntff.hpp"

namespace neuronsim::traces {

struct SignallerRef {
  enum class Kind : std::uint8_t { none, instruction, dma };
  Kind kind = Kind::none;
  std::size_t index = 0;  // into TraceData::instructions (instruction) or ::dmas (dma)
};

// Per instruction of `t`: the instruction whose end applied the update (an engine's
// signal), or the DMA part that completed the transfer (the last of its dma_copy's parts
// to land; a DMA signal is applied when the whole transfer is done). None when the
// instruction did not wait, or when the signaller is not in the trace.
std::vector<SignallerRef> find_signallers(const TraceData& t);

}  // namespace neuronsim::traces
