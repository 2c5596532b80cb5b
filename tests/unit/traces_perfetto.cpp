// Perfetto export: valid JSON, non-overlapping slices per track, paired flow ends.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/file_io.hpp"
#include "traces/perfetto.hpp"
#include "traces_fixtures.hpp"

using namespace traces_test;

namespace {

nlohmann::json export_json(const TraceData& t, const isa::Kernel* k) {
  StringSink out;
  PerfettoOptions o;
  o.kernel = k;
  write_perfetto(out, t, o);
  return nlohmann::json::parse(out.str());
}

// Checks what must hold for any trace; returns the thread names by tid.
std::map<int, std::string> check_structure(const nlohmann::json& j) {
  REQUIRE(j["displayTimeUnit"] == "ns");
  std::map<int, std::string> names;
  std::map<int, std::vector<std::pair<double, double>>> slices;
  std::map<long, std::pair<int, int>> flows;  // id -> (#s, #f)
  for (const auto& e : j["traceEvents"]) {
    CHECK(e["pid"] != 0);  // Perfetto's idle process
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name") names[e["tid"]] = e["args"]["name"];
    if (ph == "X") slices[e["tid"]].push_back({e["ts"], e["dur"]});
    if (ph == "s") ++flows[e["id"]].first;
    if (ph == "f") {
      ++flows[e["id"]].second;
      CHECK(e["bp"] == "e");
    }
  }
  for (const auto& [tid, list] : slices) {
    INFO("track " << names[tid]);
    REQUIRE(names.count(tid));
    for (std::size_t i = 1; i < list.size(); ++i) {
      CHECK(list[i - 1].first <= list[i].first);                              // ordered
      CHECK(list[i - 1].first + list[i - 1].second <= list[i].first + 1e-7);  // no overlap
    }
  }
  // Each flow end lies inside a slice of its track, so it binds to that slice.
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "s" && e["ph"] != "f") continue;
    const double ts = e["ts"];
    bool inside = false;
    for (const auto& [start, dur] : slices[e["tid"]])  // of non-zero length: drawn
      inside = inside || (dur > 0 && start <= ts + 1e-9 && ts <= start + dur + 1e-9);
    INFO("flow " << e["id"] << " " << e["ph"] << " at " << ts);
    CHECK(inside);
  }
  for (const auto& [id, ends] : flows) {
    INFO("flow " << id);
    CHECK(ends.first == 1);
    CHECK(ends.second == 1);
  }
  return names;
}

}  // namespace

TEST_CASE("traces: Perfetto export of the fixture trace", "[traces]") {
  const isa::Kernel k = fixture_kernel();
  const auto j = export_json(fixture_trace(), &k);
  const auto names = check_structure(j);

  // Engines in a fixed order, then q_in split per DMA engine (its pieces overlap), q_out
  // on one track (its pieces are back to back).
  std::vector<std::string> ordered;
  for (const auto& [tid, name] : names)
    ordered.push_back(name);
  REQUIRE(ordered == std::vector<std::string>{"tensor", "vector", "scalar", "gpsimd", "sync",
                                              "DMA q_in / dma 0", "DMA q_in / dma 1",
                                              "DMA q_in / dma 2", "DMA q_in / dma 3", "DMA q_out"});

  int slices = 0, flows_dma = 0, flows_sem = 0, counters = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") ++slices;
    if (e["ph"] == "s" && e["cat"] == "dma") ++flows_dma;
    if (e["ph"] == "s" && e["cat"] == "semaphore") ++flows_sem;
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "X" && e["name"] == "matmul") {
      CHECK(e["ts"] == 0.12);  // 120 ns in microseconds
      CHECK(e["dur"] == 0.08);
      CHECK(e["args"]["flops"] == 4'194'304);
      CHECK(e["args"]["waited_for"] == "q_in");
      CHECK_THAT(e["args"]["operands"].get<std::string>(), Catch::Contains("acc"));
    }
  }
  CHECK(slices == 4 + 6);
  CHECK(flows_dma == 6);  // one per DMA piece
  CHECK(flows_sem == 3);  // loaded (from q_in), mm_done (tensor), copied (vector)
  CHECK(counters > 0);
}

TEST_CASE("traces: Perfetto timestamps are exact to the picosecond", "[traces]") {
  TraceData t = fixture_trace();
  t.instructions = {instr(Engine::scalar, Opcode::activation, 0, 0, 1'234'567, 2'000'001)};
  t.dmas.clear();
  t.semaphores.clear();
  StringSink out;
  write_perfetto(out, t, {});
  CHECK_THAT(out.str(), Catch::Contains("\"ts\":1.234567,\"dur\":0.765434"));
}

TEST_CASE("traces: Perfetto export of random traces is well formed and deterministic", "[traces]") {
  for (unsigned seed = 30; seed < 35; ++seed) {
    const TraceData t = random_trace(seed, 200);
    StringSink a, b;
    write_perfetto(a, t, {});
    write_perfetto(b, t, {});
    REQUIRE(a.str() == b.str());
    INFO("seed " << seed);
    check_structure(nlohmann::json::parse(a.str()));
  }
}

TEST_CASE("traces: Perfetto file output", "[traces]") {
  TempDir dir("perfetto-file");
  write_perfetto_file(dir.file("trace.json"), fixture_trace(), {});
  const auto j = nlohmann::json::parse(
      neuronsim::read_text_file(dir.file("trace.json"), neuronsim::Limit::json_file_bytes));
  CHECK(j["traceEvents"].size() > 10);
}

TEST_CASE("traces: Perfetto draws no flow arrow on a zero-length slice", "[traces]") {
  // The fixture's first dma_copy issues its 4 q_in pieces in no time (0 -> 0 ns): an arrow
  // bound to it would hang in the air, so only the store's 2 pieces keep theirs.
  TraceData t = fixture_trace();
  for (auto& r : t.instructions)
    if (r.engine == Engine::sync && r.index == 0) r.end_ps = r.start_ps;
  const isa::Kernel k = fixture_kernel();
  const auto j = export_json(t, &k);
  check_structure(j);
  int flows_dma = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "s" && e["cat"] == "dma") ++flows_dma;
  CHECK(flows_dma == 2);
}

TEST_CASE("traces: Perfetto HBM counter closes at the run's exact end", "[traces]") {
  // total 400 ns in windows of 3 ns: 134 windows, the last one 1 ns long (399 -> 400 ns);
  // the closing zero sample is at 400 ns, not at the last window's end (402 ns).
  const isa::Kernel k = fixture_kernel();
  StringSink out;
  PerfettoOptions o;
  o.kernel = &k;
  o.counter_window_ps = 3000;
  write_perfetto(out, fixture_trace(), o);
  const auto j = nlohmann::json::parse(out.str());
  std::vector<double> ts;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "HBM bandwidth (GB/s)") ts.push_back(e["ts"]);
  REQUIRE(ts.size() == 135);
  CHECK(ts.back() == Approx(0.4).margin(1e-12));
  CHECK(ts[133] == Approx(0.399).margin(1e-12));
}
