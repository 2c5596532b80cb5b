// Loading profiles for the report: single-kernel directories and launch sequences
// (host.json + launch_NNN/), with every number worked out from the traces fixture.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "report/explain.hpp"
#include "report/load.hpp"
#include "report_fixtures.hpp"

using namespace report_test;
using neuronsim::report::Bound;
using neuronsim::report::LaneGroup;

namespace {

const neuronsim::report::Lane& lane(const neuronsim::report::Run& run, const std::string& id) {
  for (const auto& l : run.lanes)
    if (l.id == id) return l;
  FAIL("no lane " << id);
  throw 0;
}

void check_error(const std::string& path, const std::vector<std::string>& parts) {
  try {
    neuronsim::report::load_run(path);
    FAIL("accepted " << path);
  } catch (const neuronsim::Error& e) {
    for (const auto& p : parts)
      CHECK_THAT(std::string(e.what()), Catch::Contains(p));
  }
}

}  // namespace

TEST_CASE("report: a single-kernel profile loads with its lanes and facts", "[report]") {
  TempDir dir("report-single");
  write_profile(dir.file("p"), fixture_kernel());
  const auto run = neuronsim::report::load_run(dir.file("p"));
  CHECK_FALSE(run.sequence);
  CHECK(run.program == "traces_fixture");
  CHECK(run.total_ps == 400'000);
  CHECK(run.launches.size() == 1);
  // x: 128*128 bf16 = 32 KiB in, y: 128*128 fp32 = 64 KiB out.
  CHECK(run.io_bytes == 32768 + 65536);
  REQUIRE(run.lanes.size() == 5 + 2);  // five engines, q_in, q_out
  CHECK(run.lanes[0].id == "tensor");
  CHECK(lane(run, "sync").slices.size() == 2);
  // q_in's four pieces overlap (10..120 ns): one stretch standing for 4 pieces.
  const auto& q_in = lane(run, "dma:q_in");
  REQUIRE(q_in.slices.size() == 1);
  CHECK(q_in.slices[0].start_ps == 10'000);
  CHECK(q_in.slices[0].end_ps == 120'000);
  CHECK(q_in.slices[0].count == 4);
  CHECK(q_in.slices[0].bytes == 4 * 8192);
  // q_out's two pieces touch (270..330..390 ns): one stretch.
  CHECK(lane(run, "dma:q_out").slices.size() == 1);

  const auto f = neuronsim::report::run_facts(run);
  CHECK(f.dispatch_gap_ps == 0);
  // HBM: 32 KiB read by q_in + 64 KiB written by q_out = exactly one round trip.
  CHECK(f.hbm_bytes == 98304);
  CHECK(f.round_trips == Approx(1.0));
  // DMA active 110 + 120 = 230 ns >= tensor busy 80 ns (the busiest engine).
  CHECK(f.dma_active_ps == 230'000);
  CHECK(f.busiest == neuronsim::isa::Engine::tensor);
  CHECK(f.busiest_busy_ps == 80'000);
  CHECK(f.bound == Bound::dma);
}

TEST_CASE("report: a launch sequence loads on the program's time axis", "[report]") {
  TempDir dir("report-sequence");
  write_sequence(dir.file("seq"));
  const auto run = neuronsim::report::load_run(dir.file("seq"));
  CHECK(run.sequence);
  CHECK(run.program == "two_step");
  CHECK(run.mode == "eager");
  CHECK(run.total_ps == 17'000'000);
  REQUIRE(run.launches.size() == 2);
  CHECK(run.launches[1].device.start_ps == 16'400'000);
  CHECK(run.launches[1].op == "mul");
  REQUIRE(run.host_model.size() == 2);
  CHECK(run.host_model[0].second == "5000 ns");
  // Lanes: three host lanes, five engines, q_in, q_out.
  REQUIRE(run.lanes.size() == 3 + 5 + 2);
  CHECK(run.lanes[0].group == LaneGroup::host);
  CHECK(run.lanes[1].id == "runtime_call");
  CHECK(run.lanes[1].slices.size() == 2);
  // The tensor engine's matmul runs 120..200 ns into each launch's device time.
  const auto& tensor = lane(run, "tensor");
  REQUIRE(tensor.slices.size() == 2);
  CHECK(tensor.slices[0].start_ps == 8'000'000 + 120'000);
  CHECK(tensor.slices[1].start_ps == 16'400'000 + 120'000);
  // Device summaries add: 2 x 400 ns; DMA pieces 2 x 6.
  CHECK(run.device.total_ps == 800'000);
  CHECK(run.device.dma_transfer_count == 12);
  // x (32 KiB) in and y (32 KiB) out; t is an intermediate.
  CHECK(run.io_bytes == 65536);

  const auto f = neuronsim::report::run_facts(run);
  CHECK(f.launches == 2);
  CHECK(f.device_ps == 800'000);
  CHECK(f.dispatch_gap_ps == 17'000'000 - 800'000);
  // Each launch's trace (the fixture's) reads 32 KiB from and writes 64 KiB to HBM:
  // 192 KiB in all, 3 round trips of the program's 64 KiB.
  CHECK(f.hbm_bytes == 2 * 98304);
  CHECK(f.round_trips == Approx(3.0));
  CHECK(f.bound == Bound::host);
  // Engines are idle inside device time and whenever the device is not running.
  CHECK(f.idle_ps[0] == run.device.engines[0].idle_ps + 16'200'000);
}

TEST_CASE("report: a bad sequence profile is one clear error", "[report]") {
  TempDir dir("report-bad");
  const std::string seq = dir.file("seq");
  write_sequence(seq, "{\"format\": \"something-else\", \"version\": 1}");
  check_error(seq, {"host.json", "format"});

  write_sequence(seq, "not json");
  check_error(seq, {"host.json", "not valid JSON"});

  write_sequence(seq, host_json("../elsewhere"));
  check_error(seq, {"host.json", "launches[1].profile", "inside the profile directory"});

  write_sequence(seq, host_json("launch_009"));
  check_error(seq, {"launch_009"});

  // The second launch's device span (16400..16500 ns) is shorter than its 400 ns trace.
  write_sequence(seq, host_json("launch_001", 16500));
  check_error(seq, {"host.json", "launches[1].device", "lasts 100000 ps"});

  std::string missing = host_json();
  missing.replace(missing.find("\"total_ns\": 17000,"), 18, "");
  write_sequence(seq, missing);
  check_error(seq, {"host.json", "total_ns: missing"});
}
