#pragma once
// Trace records grouped for "what was running at t": the indices of each group's records
// by start time (the Perfetto export's flows and the report viewer's signallers).
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

// Semaphore update indices grouped by semaphore, each group in time order (ties in record
// order): "which update let a waiter go".
template <typename SemRec>
std::map<int, std::vector<std::size_t>> updates_by_semaphore(const std::vector<SemRec>& recs) {
  std::map<int, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < recs.size(); ++i)
    out[recs[i].semaphore].push_back(i);
  for (auto& [sem, v] : out)
    std::stable_sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
      return recs[a].time_ps < recs[b].time_ps;
    });
  return out;
}

}  // namespace neuronsim::traces
