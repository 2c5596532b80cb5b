#pragma once
// A trace as Chrome JSON ({"traceEvents":[...], "displayTimeUnit":"ns"}), which Perfetto
// and chrome://tracing open (reference section 7). One process per NeuronCore (pid
// core + 1: never pid 0, which Perfetto reserves for the idle process); a named
// thread per engine and per DMA queue in a fixed order; "X" slices for instructions and
// DMA pieces (a queue whose pieces overlap in time gets one sub-track per DMA engine, and
// more if those still overlap, so slices on one track never overlap); "C" counters for
// HBM bandwidth and allocated SBUF/PSUM bytes; "s"/"f" flow arrows from each dma_copy to
// its DMA pieces and from each semaphore update to the instruction that waited for it,
// when both ends are slices of non-zero length (an arrow on a zero-length slice is not
// drawn). The HBM counter closes with a zero sample at the run's exact end.
// ts and dur are microseconds written exactly to the picosecond. Streamed, no JSON tree.
#include <cstdint>
#include <string>

#include "isa/kernel.hpp"
#include "traces/ntff.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::traces {

struct PerfettoOptions {
  const isa::Kernel* kernel = nullptr;  // operand text, queue and semaphore names
  std::uint64_t counter_window_ps = 0;  // HBM bandwidth window; 0: total / 500, >= 1 ns
  int core = 0;                         // the NeuronCore (process) number
};

void write_perfetto(TextSink& out, const TraceData& trace, const PerfettoOptions& options);
void write_perfetto_file(const std::string& path, const TraceData& trace,
                         const PerfettoOptions& options);

}  // namespace neuronsim::traces
