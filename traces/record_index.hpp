#pragma once
// Trace records grouped by engine or queue, each group by start time (the Perfetto
// export's tracks, the report viewer's critical path).
#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

namespace neuronsim::traces {

// Record indices grouped by key(record) (an engine, a DMA queue), each group sorted by
// start time (ties in record order).
template <typename Rec, typename KeyFn>
std::map<int, std::vector<std::size_t>> by_start(const std::vector<Rec>& recs, KeyFn key) {
  std::map<int, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < recs.size(); ++i)
    out[key(recs[i])].push_back(i);
  for (auto& [k, v] : out)
    std::stable_sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
      return recs[a].start_ps < recs[b].start_ps;
    });
  return out;
}

}  // namespace neuronsim::traces
