#include "report/lanes.hpp"

#include <algorithm>
#include <map>

namespace neuronsim::report {

std::vector<Lane> engine_lanes() {
  std::vector<Lane> lanes;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    Lane lane;
    lane.id = std::string(isa::engine_name(static_cast<isa::Engine>(e)));
    lane.label = lane.id;
    lane.group = LaneGroup::engine;
    lanes.push_back(std::move(lane));
  }
  return lanes;
}

namespace {

Lane& dma_lane(std::vector<Lane>& lanes, const std::string& queue) {
  const std::string id = "dma:" + queue;
  for (Lane& lane : lanes)
    if (lane.id == id) return lane;
  Lane lane;
  lane.id = id;
  lane.label = "DMA " + queue;
  lane.group = LaneGroup::dma;
  lanes.push_back(std::move(lane));
  return lanes.back();
}

// Merges one queue's pieces (sorted by start) into stretches of activity; a stretch's
// kind is the route that moved most of its bytes.
void add_queue_stretches(Lane& lane, std::vector<traces::DmaRecord>& pieces,
                         std::uint64_t offset_ps) {
  std::sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.end_ps < b.end_ps;
  });
  std::size_t i = 0;
  while (i < pieces.size()) {
    Slice s;
    s.start_ps = pieces[i].start_ps;
    s.end_ps = pieces[i].end_ps;
    s.count = 0;
    std::map<std::uint16_t, std::uint64_t> bytes_by_route;
    for (; i < pieces.size() && pieces[i].start_ps <= s.end_ps; ++i) {
      s.end_ps = std::max(s.end_ps, pieces[i].end_ps);
      ++s.count;
      s.bytes += pieces[i].bytes;
      // + 1: a piece of zero bytes still votes for its route.
      bytes_by_route[dma_route(pieces[i].src, pieces[i].dst)] += pieces[i].bytes + 1;
    }
    std::uint64_t best = 0;
    for (const auto& [route, bytes] : bytes_by_route)
      if (bytes > best) {
        best = bytes;
        s.kind = route;
      }
    s.start_ps += offset_ps;
    s.end_ps += offset_ps;
    lane.slices.push_back(s);
  }
}

}  // namespace

void add_device_trace(std::vector<Lane>& lanes, const traces::TraceData& trace,
                      const std::vector<std::string>& queue_names, std::uint64_t offset_ps,
                      std::uint32_t first_detail) {
  for (std::size_t i = 0; i < trace.instructions.size(); ++i) {
    const traces::InstructionRecord& r = trace.instructions[i];
    Lane& lane = lanes.at(static_cast<std::size_t>(r.engine));
    lane.slices.push_back(
        {r.start_ps + offset_ps, r.end_ps + offset_ps, static_cast<std::uint16_t>(r.opcode), 1, 0,
         first_detail == kNoIndex ? kNoIndex : first_detail + static_cast<std::uint32_t>(i)});
  }
  std::map<std::uint16_t, std::vector<traces::DmaRecord>> by_queue;
  for (const traces::DmaRecord& d : trace.dmas)
    by_queue[d.queue].push_back(d);
  for (auto& [queue, pieces] : by_queue) {
    const std::string name =
        queue < queue_names.size() ? queue_names[queue] : "q" + std::to_string(queue);
    add_queue_stretches(dma_lane(lanes, name), pieces, offset_ps);
  }
}

std::vector<Lane> host_lanes(const std::vector<RunLaunch>& launches) {
  std::vector<Lane> lanes(3);
  const HostKind kinds[] = {HostKind::framework_dispatch, HostKind::runtime_call, HostKind::device};
  for (int k = 0; k < 3; ++k) {
    lanes[k].group = LaneGroup::host;
    lanes[k].id = kind_name(LaneGroup::host, static_cast<std::uint16_t>(kinds[k]));
    lanes[k].label = kind_label(LaneGroup::host, static_cast<std::uint16_t>(kinds[k]));
  }
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const RunLaunch& l = launches[i];
    const Interval spans[] = {l.framework_dispatch, l.runtime_call, l.device};
    for (int k = 0; k < 3; ++k)
      if (spans[k].duration_ps())
        lanes[k].slices.push_back({spans[k].start_ps, spans[k].end_ps,
                                   static_cast<std::uint16_t>(kinds[k]), 1, 0,
                                   static_cast<std::uint32_t>(i)});
  }
  return lanes;
}

void sort_lanes(std::vector<Lane>& lanes) {
  for (Lane& lane : lanes)
    std::stable_sort(lane.slices.begin(), lane.slices.end(),
                     [](const Slice& a, const Slice& b) { return a.start_ps < b.start_ps; });
}

}  // namespace neuronsim::report
