// Comparing summaries side by side.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "traces/compare.hpp"
#include "traces_fixtures.hpp"

using namespace traces_test;

namespace {
// The fixture trace compressed in time by `factor` (so it runs `factor` times faster).
TraceData faster(std::uint64_t factor) {
  TraceData t = fixture_trace();
  for (auto& r : t.instructions) {
    r.ready_ps /= factor;
    r.start_ps /= factor;
    r.end_ps /= factor;
    r.semaphore_wait_ps /= factor;
    r.port_wait_ps /= factor;
  }
  for (auto& d : t.dmas) {
    d.issue_ps /= factor;
    d.start_ps /= factor;
    d.end_ps /= factor;
  }
  for (auto& s : t.semaphores)
    s.time_ps /= factor;
  t.info.total_ps /= factor;
  return t;
}
}  // namespace

TEST_CASE("traces: compare speedups against the first profile", "[traces]") {
  const std::vector<LabelledSummary> runs = {{"naive", summarize(fixture_trace(), {})},
                                             {"fused", summarize(faster(2), {})},
                                             {"compiled", summarize(faster(4), {})}};
  CHECK(speedup(runs[0].summary, runs[1].summary) == Approx(2.0));
  CHECK(speedup(runs[0].summary, runs[2].summary) == Approx(4.0));

  const auto j = compare_json(runs);
  CHECK(j["baseline"] == "naive");
  REQUIRE(j["runs"].size() == 3);
  CHECK(j["runs"][0]["speedup"] == 1.0);
  CHECK(j["runs"][1]["speedup"] == 2.0);
  CHECK(j["runs"][2]["speedup"] == 4.0);
  CHECK(j["runs"][2]["total_time_ps"] == 100'000);
  CHECK(j["runs"][1]["tensor_engine_active_time_ps"] == 40'000);
  CHECK(j["runs"][0]["hbm_read_bytes"] == 32768);
  CHECK(j["runs"][0]["dma_transfer_count"] == 6);

  const std::string text = compare_text(runs);
  CHECK_THAT(text, Catch::Contains("speedup vs first") && Catch::Contains("1.000x") &&
                       Catch::Contains("2.000x") && Catch::Contains("4.000x"));
  CHECK_THAT(text, Catch::Contains("compiled"));
  REQUIRE_THROWS_AS(compare_text({}), neuronsim::Error);
}
