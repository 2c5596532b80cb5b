// The HTML report: self-contained, deterministic, lanes and explain section present, and
// small for large traces.
#include <catch2/catch.hpp>
#include <random>

#include "report/lanes.hpp"
#include "report/load.hpp"
#include "report/render.hpp"
#include "report_fixtures.hpp"

using namespace report_test;
namespace report = neuronsim::report;

namespace {

std::vector<report::Run> fixture_runs(const TempDir& dir) {
  write_sequence(dir.file("seq"));
  write_profile(dir.file("single"), fixture_kernel());
  return {neuronsim::report::load_run(dir.file("seq")),
          neuronsim::report::load_run(dir.file("single"))};
}

// A run shaped like an eager 4096x4096 RMSNorm sequence, but far longer: `launches`
// kernels of `per_engine` instructions per engine and as many DMA pieces per queue.
report::Run large_run(int launches, int per_engine) {
  std::mt19937_64 rng(7);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  report::Run run;
  run.label = "large";
  run.program = "rmsnorm";
  run.mode = "eager";
  run.target = "trn2";
  run.sequence = true;
  std::vector<report::Lane> device = report::engine_lanes();
  const char* queues[] = {"q_in", "q_out", "q_w", "q_stats"};
  for (const char* q : queues) {
    report::Lane lane;
    lane.id = std::string("dma:") + q;
    lane.label = std::string("DMA ") + q;
    lane.group = report::LaneGroup::dma;
    device.push_back(lane);
  }
  std::uint64_t now = 0;
  for (int l = 0; l < launches; ++l) {
    report::RunLaunch launch;
    launch.name = "launch" + std::to_string(l);
    launch.op = "op" + std::to_string(l);
    launch.framework_dispatch = {now, now + 20'000'000};
    launch.runtime_call = {now + 20'000'000, now + 35'000'000};
    const std::uint64_t start = now + 35'000'000;
    std::uint64_t end = start;
    for (auto& lane : device) {
      std::uint64_t t = start + pick(0, 1000);
      for (int i = 0; i < per_engine; ++i) {
        const std::uint64_t len = pick(200, 20'000);
        lane.slices.push_back({t, t + len, static_cast<std::uint16_t>(pick(0, 8)), 1, 4096});
        t += len + pick(0, 3000);
      }
      end = std::max(end, t);
    }
    launch.device = {start, end};
    launch.summary.total_ps = end - start;
    run.device.total_ps += end - start;
    run.launches.push_back(launch);
    now = end;
  }
  run.total_ps = now;
  run.lanes = report::host_lanes(run.launches);
  for (auto& lane : device)
    run.lanes.push_back(std::move(lane));
  return run;
}

}  // namespace

TEST_CASE("report: the HTML is self-contained and shows every lane", "[report]") {
  TempDir dir("report-render");
  const std::string html = report::render_report(fixture_runs(dir));
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* external : {"http://", "https://", "src=", "url(", "@import", "<link"})
    CHECK(html.find(external) == std::string::npos);
  // Scripts are inline: the viewer's code, and each run's data as JSON.
  const std::string code = "<script>", data = "<script type=\"application/json\" id=";
  for (std::size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1))
    CHECK((html.compare(at, code.size(), code) == 0 || html.compare(at, data.size(), data) == 0));
  for (const char* lane : {"framework_dispatch", "runtime_call", "device", "tensor", "vector",
                           "scalar", "gpsimd", "sync", "dma:q_in", "dma:q_out"})
    CHECK_THAT(html, Catch::Contains(std::string("class=\"lane\" data-lane=\"") + lane + "\""));
  CHECK_THAT(html, Catch::Contains("<rect class=\"slice\" data-op=\"matmul\""));
  CHECK_THAT(html, Catch::Contains("data-op=\"hbm-sbuf\""));
  CHECK_THAT(html, Catch::Contains("data-stall=\"semaphore\""));
  // The sequence is the baseline: the single kernel (400 ns) is 17 us / 400 ns faster.
  CHECK_THAT(html, Catch::Contains("42.50x"));
  // Explain: round trips, launches, dispatch gap, bounds.
  CHECK_THAT(html, Catch::Contains("3.00 round trips"));
  CHECK_THAT(html, Catch::Contains("Launches: 1 against 2; dispatch gap 0 ps against 16.200 us"));
  CHECK_THAT(html, Catch::Contains("host-bound (launch overhead)"));
  CHECK_THAT(html, Catch::Contains("DMA/HBM-bound"));
}

TEST_CASE("report: the same profiles give the same bytes", "[report]") {
  TempDir a("report-same-a");
  TempDir b("report-same-b");
  auto runs_a = fixture_runs(a);
  auto runs_b = fixture_runs(b);
  // Labels are the paths as given; equal labels must give equal pages.
  for (std::size_t i = 0; i < runs_b.size(); ++i)
    runs_b[i].label = runs_a[i].label;
  CHECK(report::render_report(runs_a) == report::render_report(runs_b));
}

TEST_CASE("report: text from profiles is escaped", "[report]") {
  TempDir dir("report-escape");
  auto runs = fixture_runs(dir);
  runs[0].label = "<b>&\"x\"";
  const std::string html = report::render_report(runs);
  CHECK(html.find("<b>&\"x\"") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("&lt;b&gt;&amp;&quot;x&quot;"));
}

TEST_CASE("report: a large sequence stays within the 5 MB budget", "[report]") {
  // 5 launches x 9 lanes x 40000 slices = 1.8 M slices (an eager 4096x4096 RMSNorm has
  // far fewer). Each lane is at most ~2 rectangles per pixel column.
  const report::Run run = large_run(5, 40'000);
  const std::string html = report::render_report({run});
  CHECK(html.size() < 5'000'000);
  CHECK_THAT(html, Catch::Contains("class=\"slice agg\""));
  // Over the viewer's 1 M slices: its data is pixel-fitted too (report/viewer_json.hpp).
  CHECK_THAT(html, Catch::Contains("\"fitted\":true"));
}
