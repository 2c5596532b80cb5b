#include "traces/perfetto_tracks.hpp"

#include <algorithm>
#include <map>

#include "traces/operand_text.hpp"

namespace neuronsim::traces::perfetto {

namespace {

// Greedy interval colouring: each slice goes on the first lane free at its start.
// Returns the lane of each input (inputs given in any order).
std::vector<int> assign_lanes(const std::vector<Slice>& in, int& lanes) {
  std::vector<std::size_t> order(in.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return in[a].start_ps != in[b].start_ps ? in[a].start_ps < in[b].start_ps
                                            : in[a].end_ps < in[b].end_ps;
  });
  std::vector<std::uint64_t> lane_end;
  std::vector<int> lane(in.size(), 0);
  for (std::size_t i : order) {
    std::size_t l = 0;
    while (l < lane_end.size() && lane_end[l] > in[i].start_ps)
      ++l;
    if (l == lane_end.size()) lane_end.push_back(0);
    lane_end[l] = std::max(in[i].end_ps, in[i].start_ps);
    lane[i] = static_cast<int>(l);
  }
  lanes = static_cast<int>(lane_end.size());
  return lane;
}

class Builder {
 public:
  int add_track(std::string name) {
    // Thread ids follow display order, so they never collide whatever the lane count.
    layout.tracks.push_back({static_cast<int>(layout.tracks.size()) + 1, std::move(name)});
    layout.slices.emplace_back();
    return static_cast<int>(layout.tracks.size()) - 1;
  }
  // Puts `group` on new tracks named `name` ("name #2", ... for the extra lanes needed
  // when slices overlap).
  void place(const std::vector<Slice>& group, const std::string& name,
             std::vector<int>& record_track) {
    int lanes = 0;
    const std::vector<int> lane = assign_lanes(group, lanes);
    std::vector<int> track(static_cast<std::size_t>(std::max(lanes, 1)));
    for (int l = 0; l < static_cast<int>(track.size()); ++l)
      track[l] = add_track(l ? name + " #" + std::to_string(l + 1) : name);
    for (std::size_t i = 0; i < group.size(); ++i) {
      const int t = track[lane[i]];
      layout.slices[t].push_back(group[i]);
      record_track[group[i].record] = t;
    }
  }
  Layout layout;
};

bool overlaps(std::vector<Slice> s) {
  std::sort(s.begin(), s.end(),
            [](const Slice& a, const Slice& b) { return a.start_ps < b.start_ps; });
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].start_ps < s[i - 1].end_ps) return true;
  return false;
}

}  // namespace

Layout lay_out(const TraceData& trace, const isa::Kernel* kernel) {
  Builder b;
  b.layout.instruction_track.assign(trace.instructions.size(), 0);
  b.layout.dma_track.assign(trace.dmas.size(), 0);

  // Engines (extra lanes only if a trace had overlapping instructions on one engine).
  std::vector<std::vector<Slice>> per_engine(isa::kEngineCount);
  for (std::size_t i = 0; i < trace.instructions.size(); ++i) {
    const auto& r = trace.instructions[i];
    per_engine[static_cast<int>(r.engine)].push_back({r.start_ps, r.end_ps, i});
  }
  for (int e = 0; e < isa::kEngineCount; ++e)
    b.place(per_engine[e], std::string(isa::engine_name(static_cast<isa::Engine>(e))),
            b.layout.instruction_track);

  b.layout.first_dma_track = b.layout.tracks.size();
  // DMA queues: the kernel's queues and any in the trace, by index.
  std::map<std::uint16_t, std::vector<Slice>> per_queue;
  if (kernel)
    for (std::size_t q = 0; q < kernel->queues.size(); ++q)
      per_queue[static_cast<std::uint16_t>(q)];
  for (std::size_t i = 0; i < trace.dmas.size(); ++i) {
    const auto& r = trace.dmas[i];
    per_queue[r.queue].push_back({r.start_ps, r.end_ps, i});
  }
  for (auto& [q, group] : per_queue) {
    const std::string name = "DMA " + queue_name(kernel, q);
    if (!overlaps(group)) {
      b.place(group, name, b.layout.dma_track);
      continue;
    }
    std::map<int, std::vector<Slice>> per_dma_engine;
    for (const Slice& s : group)
      per_dma_engine[trace.dmas[s.record].dma_engine].push_back(s);
    for (auto& [engine, pieces] : per_dma_engine)
      b.place(pieces, name + " / dma " + std::to_string(engine), b.layout.dma_track);
  }

  for (auto& slices : b.layout.slices)
    std::stable_sort(slices.begin(), slices.end(),
                     [](const Slice& a, const Slice& c) { return a.start_ps < c.start_ps; });
  return b.layout;
}

}  // namespace neuronsim::traces::perfetto
