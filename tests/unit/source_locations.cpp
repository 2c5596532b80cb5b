// Source locations (a traced kernel's Python file:line per instruction) from the assembly
// through the NEFF to the outputs: the `source` statement and `@NAME:LINE` suffix round
// trip; the NEFF keeps the table (version 1.1) and refuses bad ones; the traces' per-line
// times, the view's table, the instruction JSON, Perfetto, the viewer and the report's
// source view name the lines (docs/assembly.md "Source locations", docs/neff.md).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "neff/bytes_impl.hpp"
#include "neff/sources_impl.hpp"
#include "neff_fixtures.hpp"
#include "report/load.hpp"
#include "report/render.hpp"
#include "report_fixtures.hpp"
#include "traces/instruction_json.hpp"
#include "traces/perfetto.hpp"
#include "traces/source_lines.hpp"
#include "traces/text_sink.hpp"

namespace {

using namespace neuronsim;
using Bytes = std::vector<std::uint8_t>;

const char* const kText = R"(kernel tiny target=trn2

source py_k "/src/k.py" text="def k(a):\n    t = nl.load(a)\n    nl.store(out, t)\n"
source py_util "util \"two\".py"

tensor a fp32[128, 64] input
tensor out fp32[128, 64] output
sbuf t fp32[128, 64]
sem loaded = 0
queue q first_engine=0 engines=16

sync:
    dma_copy t, a, queue=q  signal loaded  @py_k:2
    dma_copy out, t, queue=q  wait loaded>=1  @py_util:7
    nop
)";

isa::Kernel located_kernel() {
  return isa::assemble(kText, "tiny.nasm");
}

// The traces fixture kernel with each instruction on a line of "k.py" (load: 10, matmul and
// copy: 11, store: 12).
isa::Kernel located_fixture() {
  isa::Kernel k = traces_test::fixture_kernel();
  k.sources = {
      {"py_k", "k.py", "a\nb\nc\nd\ne\nf\ng\nh\ni\nload = nl.load(x)\nmm(acc)\nstore()\n"}};
  k.stream(isa::Engine::sync).set_location(0, {0, 10});
  k.stream(isa::Engine::sync).set_location(1, {0, 12});
  k.stream(isa::Engine::tensor).set_location(0, {0, 11});
  k.stream(isa::Engine::vector).set_location(0, {0, 11});
  return k;
}

void refused(const Bytes& bytes, const std::string& reason) {
  INFO("expected reason: " << reason);
  try {
    neff::read(bytes, "hostile.neff");
    FAIL("read accepted the file");
  } catch (const Error& e) {
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).rfind("hostile.neff", 0) == 0);
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
}

void asm_refused(const std::string& text, const std::string& reason) {
  INFO("expected reason: " << reason);
  try {
    isa::assemble(text, "bad.nasm");
    FAIL("assembled");
  } catch (const Error& e) {
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("sources: the assembly declares files and each instruction's line", "[sources]") {
  const isa::Kernel k = located_kernel();
  REQUIRE(k.sources.size() == 2);
  CHECK(k.sources[0].path == "/src/k.py");
  CHECK(k.sources[0].text == "def k(a):\n    t = nl.load(a)\n    nl.store(out, t)\n");
  CHECK(k.sources[1].path == "util \"two\".py");
  CHECK(k.sources[1].text.empty());
  const isa::InstructionStream& sync = k.stream(isa::Engine::sync);
  CHECK(sync.location(0) == isa::SourceLocation{0, 2});
  CHECK(sync.location(1) == isa::SourceLocation{1, 7});
  CHECK_FALSE(sync.location(2).known());
  CHECK(sync[0].source_line == 13);  // the assembly line stays as it was
  // print -> assemble is the same kernel, and printing is a fixed point.
  const std::string printed = isa::print(k);
  const isa::Kernel again = isa::assemble(printed, "printed.nasm");
  CHECK(again == k);
  CHECK(isa::print(again) == printed);
  CHECK(printed.find("@py_k:2") != std::string::npos);
  // A location is part of the kernel: another line is another kernel.
  isa::Kernel moved = k;
  moved.stream(isa::Engine::sync).set_location(0, {0, 3});
  CHECK(moved != k);
}

TEST_CASE("sources: bad source statements and locations are refused", "[sources]") {
  const std::string head = "kernel k target=trn2\nsource py \"k.py\"\nsem s = 0\nsync:\n";
  asm_refused(head + "    nop @nope:3\n", "unknown name 'nope'");
  asm_refused(head + "    nop @s:3\n", "'s' is a semaphore, not a source file");
  asm_refused(head + "    nop @py:0\n", "out of range");
  asm_refused(head + "    nop @py 3\n", "between the source name and the line");
  asm_refused(head + "    nop @py:3 signal s\n", "unexpected");
  asm_refused("kernel k\nsource py k.py\n", "the path of source 'py' (a quoted string)");
  asm_refused("kernel k\nsource py \"\"\n", "path must have 1 to");
  asm_refused("kernel k\nsource py \"a\"\nsource py \"b\"\n", "duplicate name 'py'");
  asm_refused("kernel k\nsource py \"a\" size=3\n", "unknown option 'size' for source");
}

TEST_CASE("sources: the NEFF keeps the table as version 1.1, other kernels stay 1.0",
          "[sources][neff]") {
  const isa::Kernel k = located_kernel();
  const Bytes bytes = neff::write(k);
  CHECK(bytes == neff::write(k));  // deterministic
  const neff::Neff back = neff::read(bytes, "tiny.neff");
  CHECK(back.header.neff_version_minor == 1);
  CHECK(back.kernel == k);
  CHECK(back.kernel.stream(isa::Engine::sync).location(1) == isa::SourceLocation{1, 7});
  // The same kernel without its sources is a plain 1.0 NEFF, as before the table existed.
  const isa::Kernel plain = traces_test::fixture_kernel();
  CHECK(neff::read(neff::write(plain), "plain.neff").header.neff_version_minor == 0);
  // A location without a table cannot be written.
  isa::Kernel orphan = k;
  orphan.sources.clear();
  CHECK_THROWS_WITH(neff::write(orphan), Catch::Contains("no source table"));
}

TEST_CASE("sources: hostile source tables are refused", "[sources][neff]") {
  using nlohmann::json;
  const Bytes valid = neff::write(located_kernel());
  auto with_def = [&](const std::function<void(json&)>& mutate) {
    return neff_test::with_entry(valid, "def.json", [&](Bytes& data) {
      auto doc = json::parse(data.begin(), data.end());
      mutate(doc);
      const std::string text = doc.dump();
      data.assign(text.begin(), text.end());
    });
  };
  auto with_locations = [&](const std::function<void(Bytes&)>& mutate) {
    return neff_test::with_entry(valid, neff::detail::kLocationsPath, mutate);
  };
  refused(with_def([](json& j) { j.erase("locations"); }), "come together");
  refused(with_def([](json& j) { j["locations"] = "sg00/x.bin"; }), "must be 'sg00/locations.bin'");
  refused(with_def([](json& j) { j["sources"] = json::array(); }), "is empty");
  refused(with_def([](json& j) { j["sources"][0]["name"] = "not a name"; }), "not an identifier");
  refused(with_def([](json& j) { j["sources"][1]["name"] = "py_k"; }), "duplicate source name");
  refused(with_def([](json& j) { j["sources"][0]["path"] = ""; }), "path must have");
  refused(with_def([](json& j) { j["sources"][0]["file"] = "../x"; }),
          "must be 'source_000000.txt'");
  refused(with_def([](json& j) { j["sources"][0]["bytes"] = 3; }), "def.json says 3");
  refused(with_def([](json& j) { j["sources"][0]["bytes"] = 1ull << 40; }), "larger than");
  refused(with_def([](json& j) { j["sources"][0]["extra"] = 1; }), "unknown key 'extra'");
  refused(with_locations([](Bytes& d) { d[0] = 'X'; }), "bad magic");
  refused(with_locations([](Bytes& d) { d[4] = 2; }), "locations version 2");
  refused(with_locations([](Bytes& d) { d[6] = 1; }), "reserved bytes");
  refused(with_locations([](Bytes& d) { d.resize(d.size() - 3); }), "truncated");
  // One byte more than 28 + 8 x 3: refused before it is read.
  refused(with_locations([](Bytes& d) { d.push_back(0); }), "more than 52 for 3 instructions");
  // The sync stream is the fifth engine: 8 header bytes, four empty engines (4 bytes
  // each), its count, then its first record {file, line}.
  const std::size_t first = 8 + 4 * 4 + 4;
  refused(with_locations([&](Bytes& d) { d[first] = 9; }), "names no source (2 sources)");
  refused(with_locations([&](Bytes& d) {
            d[first] = 1;
            std::fill(d.begin() + first + 4, d.begin() + first + 8, 0);
          }),
          "line 0 with a file other than 0");
  refused(with_locations([&](Bytes& d) { d[first - 4] = 2; }), "has 2 locations for 3");
  // The table needs version 1.1: the same payload under a 1.0 header is refused.
  const Bytes payload(valid.begin() + neff::kHeaderSize, valid.end());
  refused(neff_test::wrap(payload, "tiny", 0), "needs NEFF version 1.1");
  refused(neff_test::wrap(payload, "tiny", 2), "newer than this reader");
}

TEST_CASE("sources: device time by source line, and the outputs that name the lines",
          "[sources][traces]") {
  const isa::Kernel k = located_fixture();
  const traces::TraceData t = traces_test::fixture_trace();
  const auto rows = traces::source_line_times(t, k);
  REQUIRE(rows.size() == 3);
  // load: 0 -> 10 ns on Sync; its four DMA pieces 100 + 100 + 70 + 75 ns.
  CHECK(rows[0].location.line == 10);
  CHECK(rows[0].instructions == 1);
  CHECK(rows[0].busy_ps == 10'000);
  CHECK(rows[0].dma_ps == 345'000);
  // matmul 120 -> 200 ns and copy 200 -> 260 ns.
  CHECK(rows[1].location.line == 11);
  CHECK(rows[1].instructions == 2);
  CHECK(rows[1].busy_ps == 140'000);
  CHECK(rows[1].engine_ps[static_cast<int>(isa::Engine::tensor)] == 80'000);
  CHECK(rows[1].first_start_ps == 120'000);
  // store 260 -> 270 ns; its two pieces 60 ns each.
  CHECK(rows[2].busy_ps == 10'000);
  CHECK(rows[2].dma_ps == 120'000);

  const std::string text = traces::source_lines_text(rows, k, 160'000, 10);
  CHECK(text.find("k.py:11") != std::string::npos);
  CHECK(text.find("87.5%") != std::string::npos);  // 140 of 160 ns
  CHECK(text.find("mm(acc)") != std::string::npos);
  const auto j = nlohmann::json::parse(traces::source_lines_json(rows, k));
  CHECK(j[1]["source"] == "k.py:11");
  CHECK(j[1]["busy_ns"] == 140.0);

  CHECK(traces::location_matches(k, {0, 11}, "k.py:11"));
  CHECK(traces::location_matches(k, {0, 11}, ":11"));
  CHECK(traces::location_matches(k, {0, 11}, "k.py"));
  CHECK_FALSE(traces::location_matches(k, {0, 11}, ":1"));
  CHECK_FALSE(traces::location_matches(k, {0, 11}, "11"));
  CHECK_FALSE(traces::location_matches(k, {}, "k.py"));

  traces::StringSink sink;
  traces::SummaryOptions options;
  options.kernel = &k;
  traces::write_instruction_json(sink, t, traces::summarize(t, options), &k);
  CHECK(sink.str().find("\"source\":\"k.py:11\"") != std::string::npos);
  traces::StringSink perfetto;
  traces::PerfettoOptions perfetto_options;
  perfetto_options.kernel = &k;
  traces::write_perfetto(perfetto, t, perfetto_options);
  CHECK(perfetto.str().find("\"source\":\"k.py:12\"") != std::string::npos);
  // A kernel without locations has none of it.
  CHECK(traces::source_line_times(t, traces_test::fixture_kernel()).empty());
}

TEST_CASE("sources: the report's source view and viewer show the Python lines",
          "[sources][report]") {
  traces_test::TempDir dir("sources-report");
  report_test::write_profile(dir.file("p"), located_fixture());
  const report::Run run = report::load_run(dir.file("p"));
  REQUIRE(run.sources.size() == 1);
  CHECK(run.sources[0].path == "k.py");
  REQUIRE(run.sources[0].lines.size() == 3);
  CHECK(run.sources[0].lines[1].line == 11);
  CHECK(run.sources[0].lines[1].busy_ps == 140'000);
  const std::string html = report::render_report({run});
  CHECK(html.find("<h3>Source</h3>") != std::string::npos);
  CHECK(html.find("data-loc=\"k.py:11\"") != std::string::npos);
  CHECK(html.find("mm(acc)") != std::string::npos);
  CHECK(html.find("\"k.py:12\"") != std::string::npos);  // the viewer's strings
  CHECK(html == report::render_report({report::load_run(dir.file("p"))}));
  // Without sources there is no source view.
  report_test::write_profile(dir.file("plain"), traces_test::fixture_kernel());
  CHECK(report::render_report({report::load_run(dir.file("plain"))}).find("<h3>Source</h3>") ==
        std::string::npos);
}
