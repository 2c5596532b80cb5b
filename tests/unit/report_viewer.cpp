// The interactive viewer's data (report/viewer_data.hpp, viewer_json.hpp): signallers,
// the critical path, SBUF/PSUM occupancy, the embedded JSON, and bounded loops over time
// on a forged trace whose total is 2^64 - 1 ps.
#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "report/html_text.hpp"
#include "report/load.hpp"
#include "report/render.hpp"
#include "report/viewer_json.hpp"
#include "report_fixtures.hpp"

using namespace report_test;
namespace report = neuronsim::report;
using report::Signaller;

namespace {

report::Run fixture_run(const TempDir& dir) {
  write_profile(dir.file("single"), fixture_kernel());
  return neuronsim::report::load_run(dir.file("single"));
}

}  // namespace

TEST_CASE("report viewer: who signalled each wait, from the fixture trace", "[report]") {
  TempDir dir("viewer-signallers");
  const report::Run run = fixture_run(dir);
  const report::ViewerData& v = run.viewer;
  REQUIRE(v.complete);
  REQUIRE(v.instructions.size() == 4);  // load, matmul, copy, store (traces_fixtures.hpp)
  REQUIRE(v.dmas.size() == 6);
  // matmul waited on `loaded`, set by q_in at 120 ns: the piece that ended then is the
  // second (20 -> 120 ns).
  CHECK(v.instructions[1].signaller.kind == Signaller::Kind::dma);
  CHECK(v.instructions[1].signaller.index == 1);
  CHECK(v.instructions[1].signaller.time_ps == 120'000);
  CHECK(v.strings[v.instructions[1].waited] == "loaded");
  CHECK(v.strings[v.instructions[1].waits] == "loaded>=1");
  // The copy waited on `mm_done` (the matmul's end, 200 ns), the store on `copied`.
  CHECK(v.instructions[2].signaller.kind == Signaller::Kind::instruction);
  CHECK(v.instructions[2].signaller.index == 1);
  CHECK(v.instructions[3].signaller.kind == Signaller::Kind::instruction);
  CHECK(v.instructions[3].signaller.index == 2);
  CHECK(v.instructions[0].signaller.kind == Signaller::Kind::none);
  // The load's pieces point back to it, the store's to the store.
  CHECK(v.dmas[0].issuer == 0);
  CHECK(v.dmas[5].issuer == 3);
  CHECK(v.queue_names == std::vector<std::string>{"q_in", "q_out"});
  // Operands from the kernel; source lines numbered from the disassembly (the NEFF has
  // none), one per instruction, all different.
  CHECK(v.strings[v.instructions[1].operands].find("acc") != std::string::npos);
  std::set<std::uint32_t> lines;
  for (const auto& d : v.instructions) {
    CHECK(d.source_line > 0);
    lines.insert(d.source_line);
  }
  CHECK(lines.size() == 4);
}

TEST_CASE("report viewer: the critical path of the fixture trace", "[report]") {
  TempDir dir("viewer-critical");
  const report::Run run = fixture_run(dir);
  const report::ViewerData& v = run.viewer;
  // The last record to end is the store's second piece (390 ns). Backwards: its dma_copy
  // (store) <- `copied` set by the copy <- `mm_done` set by the matmul <- `loaded` set by
  // the q_in piece ending at 120 ns <- its dma_copy (load), the first sync instruction.
  CHECK(v.critical_path == std::vector<std::uint32_t>{0, 1, 2, 3});
  for (const auto& d : v.instructions)
    CHECK(d.critical);
  CHECK(v.dmas[5].critical);  // 330 -> 390 ns, the end
  CHECK(v.dmas[1].critical);  // 20 -> 120 ns, set `loaded`
  CHECK_FALSE(v.dmas[0].critical);
  CHECK_FALSE(v.dmas[4].critical);  // 270 -> 330 ns: queueing is not a dependency followed
}

TEST_CASE("report viewer: SBUF and PSUM occupancy steps", "[report]") {
  TempDir dir("viewer-occupancy");
  const report::Run run = fixture_run(dir);
  const report::ViewerData& v = run.viewer;
  using Steps = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  auto steps = [](const std::vector<report::OccupancyStep>& s) {
    Steps out;
    for (const auto& x : s)
      out.emplace_back(x.time_ps, x.bytes);
    return out;
  };
  // Allocations: xs bf16 [128, 128] = 256 B x 128 partitions = 32 KiB; ys fp32 = 64 KiB
  // (SBUF); acc fp32 = 64 KiB (PSUM). Reserved for the whole run (0 -> 400 ns).
  CHECK(steps(v.sbuf.reserved) == Steps{{0, 98'304}, {400'000, 0}});
  CHECK(steps(v.psum.reserved) == Steps{{0, 65'536}, {400'000, 0}});
  // Live: xs from the load's start (0) to the matmul's end (200 ns); ys from the copy's
  // start (200 ns) to the end of the store's last piece (390 ns); acc from the matmul's
  // start (120 ns) to the copy's end (260 ns).
  CHECK(steps(v.sbuf.live) == Steps{{0, 32'768}, {200'000, 65'536}, {390'000, 0}});
  CHECK(steps(v.psum.live) == Steps{{120'000, 65'536}, {260'000, 0}});
  // Capacity of trn2: partitions x bytes per partition, from the target config.
  CHECK(v.sbuf.capacity_bytes > 98'304);
  CHECK(v.psum.capacity_bytes > 65'536);
}

TEST_CASE("report viewer: the embedded data and the viewer's script", "[report]") {
  TempDir dir("viewer-json");
  const report::Run run = fixture_run(dir);
  const std::string json = report::viewer_json(run);
  CHECK(json.find('<') == std::string::npos);  // cannot close its <script> element
  CHECK_THAT(json, Catch::Contains("\"critical\":[0,1,2,3]"));
  CHECK_THAT(json, Catch::Contains("\"det\":true"));
  CHECK_THAT(json, Catch::Contains("\"fitted\":false"));
  CHECK(report::json_string("a<\"\\\n") == "\"a\\u003c\\\"\\\\\\u000a\"");
  const std::string html = report::render_report({run});
  CHECK_THAT(html, Catch::Contains("<script type=\"application/json\" id=\"viewer-data-0\">"));
  CHECK_THAT(html, Catch::Contains("<div class=\"viewer\" data-run=\"0\">"));
  // No external reference in the script either.
  for (const char* external : {"http://", "https://", "src=", "<link", "fetch(", "import("})
    CHECK(html.find(external) == std::string::npos);
}

TEST_CASE("report viewer: a forged total of 2^64 - 1 ps ends", "[report]") {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  // The tick loop used to step t += step past 2^64 - 1, wrap, and never end.
  const auto ticks = report::time_ticks(kMax, 10);
  REQUIRE(!ticks.empty());
  CHECK(ticks.size() <= 12);
  for (std::size_t i = 1; i < ticks.size(); ++i)
    CHECK(ticks[i].ps > ticks[i - 1].ps);
  CHECK(report::time_ticks(kMax, 1).size() <= 3);

  // End to end: a profile whose trace says it lasted 2^64 - 1 ps.
  TempDir dir("viewer-forged");
  const isa::Kernel k = fixture_kernel();
  const auto bytes = neff::write(k);
  TraceData t = fixture_trace(neff::read(bytes, "fixture").header.hash);
  t.info.total_ps = kMax;
  write_ntff(profile::prepare_profile(dir.file("forged"), bytes, t.info), t);
  const report::Run run = neuronsim::report::load_run(dir.file("forged"));
  CHECK(run.total_ps == kMax);
  const std::string html = report::render_report({run});
  CHECK_THAT(html, Catch::Contains("viewer-data-0"));
}
