#pragma once
// Track layout for the Perfetto export: which thread (track) each instruction and DMA
// piece goes on, such that slices on one track never overlap.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::traces::perfetto {

struct Track {
  int tid = 0;
  std::string name;
};

struct Slice {
  std::uint64_t start_ps = 0, end_ps = 0;
  std::size_t record = 0;  // index into TraceData::instructions or ::dmas
};

struct Layout {
  std::vector<Track> tracks;  // in display order: engine tracks, then DMA tracks
  std::size_t first_dma_track = 0;
  std::vector<std::vector<Slice>> slices;  // per track, by start
  std::vector<int> instruction_track;      // per instruction record: index into tracks
  std::vector<int> dma_track;              // per DMA record
};

// Engines first (tensor, vector, scalar, gpsimd, sync), then DMA queues by index.
Layout lay_out(const TraceData& trace, const isa::Kernel* kernel);

}  // namespace neuronsim::traces::perfetto
