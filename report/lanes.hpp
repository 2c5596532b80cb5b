#pragma once
// Timeline lanes from traces: one lane per engine (a slice per instruction, by opcode), one
// per DMA queue (a slice per stretch of activity: the queue's pieces that overlap in time,
// split across DMA engines, are merged into one), and the host lanes of a launch sequence.
#include <cstdint>
#include <string>
#include <vector>

#include "report/run.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::report {

// The five engine lanes, empty, in isa::Engine order.
std::vector<Lane> engine_lanes();

// Adds one kernel trace to `lanes` (engine lanes first, as engine_lanes() makes them),
// shifted by `offset_ps` (the launch's device start). DMA queues are named by
// `queue_names` (the kernel's queues, by index); a queue name seen before reuses its lane.
// The i-th instruction's slice gets detail first_detail + i (none if kNoIndex).
void add_device_trace(std::vector<Lane>& lanes, const traces::TraceData& trace,
                      const std::vector<std::string>& queue_names, std::uint64_t offset_ps,
                      std::uint32_t first_detail = kNoIndex);

// The three host lanes of a sequence: framework dispatch, runtime call, device execution.
std::vector<Lane> host_lanes(const std::vector<RunLaunch>& launches);

// Sorts every lane's slices by time (the order the trace wrote them is by end time).
void sort_lanes(std::vector<Lane>& lanes);

}  // namespace neuronsim::report
