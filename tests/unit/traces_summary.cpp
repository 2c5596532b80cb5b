// Summaries: the fixture's numbers worked out by hand, and sums over random traces.
#include <catch2/catch.hpp>

#include "traces/instruction_json.hpp"
#include "traces/summary.hpp"
#include "traces_fixtures.hpp"

using namespace traces_test;

namespace {

const EngineTime& engine(const Summary& s, Engine e) {
  return s.engines[static_cast<int>(e)];
}

std::uint64_t parts(const EngineTime& t) {
  return t.busy_ps + t.semaphore_wait_ps + t.port_wait_ps + t.dma_wait_ps + t.idle_ps;
}

}  // namespace

TEST_CASE("traces: summary of the fixture trace", "[traces]") {
  const isa::Kernel k = fixture_kernel();
  SummaryOptions o;
  o.kernel = &k;
  o.peak_flops_per_s = 79e12;
  const Summary s = summarize(fixture_trace(), o);

  CHECK(s.total_ps == 400'000);
  CHECK(s.total_time_s() == Approx(400e-9));
  // At the header's cycle counter clock, not the Tensor clock: 400 ns * 1.4 GHz = 560.
  CHECK(s.neuroncore_cycle_count == 560);
  // tensor: matmul 120 -> 200 ns after waiting 120 ns on `loaded` (from q_in).
  CHECK(engine(s, Engine::tensor).instruction_count == 1);
  CHECK(engine(s, Engine::tensor).busy_ps == 80'000);
  CHECK(engine(s, Engine::tensor).semaphore_wait_ps == 120'000);
  CHECK(engine(s, Engine::tensor).semaphore_wait_by_source.at("q_in") == 120'000);
  CHECK(engine(s, Engine::tensor).idle_ps == 200'000);
  // vector: 190 ns on `mm_done` (from tensor) + 10 ns port, 60 ns busy, 140 ns idle.
  CHECK(engine(s, Engine::vector).busy_ps == 60'000);
  CHECK(engine(s, Engine::vector).semaphore_wait_ps == 190'000);
  CHECK(engine(s, Engine::vector).semaphore_wait_by_source.at("tensor") == 190'000);
  CHECK(engine(s, Engine::vector).port_wait_ps == 10'000);
  CHECK(engine(s, Engine::vector).idle_ps == 140'000);
  // sync: 10 + 10 ns busy, 250 ns on `copied`, idle 400 - 20 - 250 = 130 ns.
  CHECK(engine(s, Engine::sync).instruction_count == 2);
  CHECK(engine(s, Engine::sync).busy_ps == 20'000);
  CHECK(engine(s, Engine::sync).semaphore_wait_ps == 250'000);
  CHECK(engine(s, Engine::sync).idle_ps == 130'000);
  CHECK(engine(s, Engine::scalar).idle_ps == 400'000);
  for (const auto& t : s.engines)
    CHECK(parts(t) == s.total_ps);

  // DMA: q_in pieces cover 10 -> 120 ns, q_out's 270 -> 390 ns: 110 + 120 = 230 ns.
  CHECK(s.dma_active_ps == 230'000);
  CHECK(s.dma_transfer_count == 6);
  CHECK(s.dma_transfer_total_bytes == 4 * 8192 + 2 * 32768);
  // Bytes: DMA pieces plus compute instructions; the dma_copy record's own 32 KiB of HBM
  // reads is not counted again.
  CHECK(s.memory.read[0] == 32768);
  CHECK(s.memory.written[0] == 65536);
  CHECK(s.memory.read[1] == 65536 + 65536);
  CHECK(s.memory.written[1] == 32768 + 65536);
  CHECK(s.memory.read[2] == 65536);
  CHECK(s.memory.written[2] == 65536);
  // Matmul [128 x 128]^T @ [128 x 128]: 2 * 128^3 flops.
  CHECK(s.model_flops == 4'194'304);
  CHECK(s.hardware_flops == 4'194'304);
  CHECK(s.mfu_estimated_percent == Approx(100.0 * 4'194'304 / (400e-9 * 79e12)));

  // key_averages: matmul 80 ns, tensor_copy 60 ns, dma_copy 2 x 10 ns; device time 160 ns.
  REQUIRE(s.ops.size() == 3);
  CHECK(s.device_time_ps == 160'000);
  CHECK(s.ops[0].opcode == Opcode::matmul);
  CHECK(s.ops[0].percent == Approx(50.0));
  CHECK(s.ops[1].opcode == Opcode::tensor_copy);
  CHECK(s.ops[2].opcode == Opcode::dma_copy);
  CHECK(s.ops[2].count == 2);
  CHECK(s.ops[2].mean_ps == Approx(10'000));
  CHECK(s.ops[2].min_ps == 10'000);
  CHECK(s.ops[2].max_ps == 10'000);
}

TEST_CASE("traces: summary without a kernel falls back to record flops and queue numbers",
          "[traces]") {
  const Summary s = summarize(fixture_trace(), {});
  CHECK(s.model_flops == 4'194'304);
  CHECK(s.mfu_estimated_percent == 0);
  CHECK(engine(s, Engine::tensor).semaphore_wait_by_source.at("queue 0") == 120'000);
}

TEST_CASE("traces: summary equals the sums over random records", "[traces]") {
  for (unsigned seed = 10; seed < 20; ++seed) {
    const TraceData t = random_trace(seed, 300);
    const Summary s = summarize(t, {});
    std::array<std::uint64_t, 5> count{}, busy{}, sem{}, port{}, dmaw{};
    ByteCounts bytes;
    std::uint64_t flops = 0, device = 0;
    for (const auto& r : t.instructions) {
      const int e = static_cast<int>(r.engine);
      ++count[e];
      busy[e] += r.end_ps - r.start_ps;
      sem[e] += r.semaphore_wait_ps;
      port[e] += r.port_wait_ps;
      dmaw[e] += r.dma_wait_ps;
      flops += r.flops;
      device += r.end_ps - r.start_ps;
      if (r.opcode == Opcode::dma_copy) continue;
      for (int m = 0; m < 3; ++m) {
        bytes.read[m] += r.bytes.read[m];
        bytes.written[m] += r.bytes.written[m];
      }
    }
    std::uint64_t dma_bytes = 0;
    for (const auto& d : t.dmas) {
      dma_bytes += d.bytes;
      bytes.read[static_cast<int>(d.src)] += d.bytes;
      bytes.written[static_cast<int>(d.dst)] += d.bytes;
    }
    INFO("seed " << seed);
    for (int e = 0; e < 5; ++e) {
      CHECK(s.engines[e].instruction_count == count[e]);
      CHECK(s.engines[e].busy_ps == busy[e]);
      CHECK(s.engines[e].semaphore_wait_ps == sem[e]);
      CHECK(s.engines[e].port_wait_ps == port[e]);
      CHECK(s.engines[e].dma_wait_ps == dmaw[e]);
      CHECK(parts(s.engines[e]) == s.total_ps);
      std::uint64_t by_source = 0;
      for (const auto& kv : s.engines[e].semaphore_wait_by_source)
        by_source += kv.second;
      CHECK(by_source == sem[e]);
    }
    CHECK(s.memory == bytes);
    CHECK(s.hardware_flops == flops);
    CHECK(s.model_flops == flops);  // only matmuls carry flops here
    CHECK(s.device_time_ps == device);
    CHECK(s.dma_transfer_count == t.dmas.size());
    CHECK(s.dma_transfer_total_bytes == dma_bytes);
    CHECK(s.dma_active_ps <= s.total_ps);
    std::uint64_t table_total = 0, table_count = 0;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      table_total += s.ops[i].total_ps;
      table_count += s.ops[i].count;
      if (i) CHECK(s.ops[i - 1].total_ps >= s.ops[i].total_ps);
    }
    CHECK(table_total == device);
    CHECK(table_count == t.instructions.size());
  }
}

TEST_CASE("traces: busy + waiting + idle is total even for overlapping records", "[traces]") {
  TraceData t = fixture_trace();
  // Claims more waiting than the gap, and overlaps the previous instruction.
  auto odd = instr(Engine::tensor, Opcode::matmul, 1, 150'000, 190'000, 390'000);
  odd.semaphore_wait_ps = 1'000'000;
  odd.port_wait_ps = 1'000'000;
  t.instructions.push_back(odd);
  const Summary s = summarize(t, {});
  for (const auto& e : s.engines)
    CHECK(parts(e) == s.total_ps);
  CHECK(engine(s, Engine::tensor).busy_ps == 80'000 + 190'000);  // 120 -> 390 ns
}

TEST_CASE("traces: summary streams from an NTFF file", "[traces]") {
  TempDir dir("summary-stream");
  write_ntff(dir.file("t.ntff"), fixture_trace());
  const Summary a = summarize_ntff(dir.file("t.ntff"), {});
  const Summary b = summarize(fixture_trace(), {});
  CHECK(summary_json(a) == summary_json(b));
}

TEST_CASE("traces: summary JSON and text", "[traces]") {
  const isa::Kernel k = fixture_kernel();
  SummaryOptions o;
  o.kernel = &k;
  const Summary s = summarize(fixture_trace(), o);
  const auto j = summary_json(s);
  for (const char* key : {"total_time",
                          "neuroncore_cycle_count",
                          "cycle_counter_ghz",
                          "tensor_engine_instruction_count",
                          "vector_engine_active_time",
                          "sync_engine_active_time_percent",
                          "dma_active_time",
                          "dma_active_time_percent",
                          "dma_transfer_total_bytes",
                          "dma_transfer_count",
                          "hbm_read_bytes",
                          "hbm_write_bytes",
                          "sbuf_read_bytes",
                          "sbuf_write_bytes",
                          "psum_read_bytes",
                          "psum_write_bytes",
                          "model_flops",
                          "hardware_flops",
                          "mfu_estimated_percent",
                          "stall_attribution",
                          "key_averages"})
    CHECK(j.contains(key));
  CHECK(j["tensor_engine_active_time_percent"] == Approx(20.0));
  CHECK(j["stall_attribution"]["vector"]["semaphore_wait_by_source_ps"]["tensor"] == 190'000);
  CHECK(j["key_averages"][0]["opcode"] == "matmul");

  const std::string text = summary_text(s, 2);
  // 400 ns at the fixture's counter clock, 1.4 GHz: 560 cycles.
  CHECK(j["cycle_counter_ghz"] == 1.4);
  CHECK_THAT(text, Catch::Contains("total_time 400.000 ns = 560 neuroncore cycles (profiler "
                                   "cycle counter, 1.40 GHz)"));
  CHECK_THAT(text, Catch::Contains("vector waited on tensor 190.000 ns"));
  CHECK_THAT(text, Catch::Contains("matmul"));
  CHECK_THAT(text, !Catch::Contains("dma_copy      2"));  // --top 2 leaves out the third
}

TEST_CASE("traces: legacy instruction JSON", "[traces]") {
  const isa::Kernel k = fixture_kernel();
  SummaryOptions o;
  o.kernel = &k;
  const TraceData t = fixture_trace();
  const Summary s = summarize(t, o);
  StringSink out;
  write_instruction_json(out, t, s, &k);
  const auto j = nlohmann::json::parse(out.str());
  REQUIRE(j["summary"].size() == 1);
  CHECK(j["summary"][0]["dma_transfer_count"] == 6);
  REQUIRE(j["instruction"].size() == 4);
  const auto& mm = j["instruction"][1];
  CHECK(mm["opcode"] == "matmul");
  CHECK(mm["engine"] == "tensor");
  CHECK(mm["start_ts"] == 120.0);
  CHECK(mm["duration_ns"] == 80.0);
  CHECK(mm["evt_wait_time_ns"] == 120.0);
  CHECK(mm["waited_semaphore"] == "loaded");
  CHECK(mm["waited_for"] == "q_in");
  CHECK(mm["psum_write_bytes"] == 65536);
  CHECK(mm["flops"] == 4'194'304);
  CHECK_THAT(mm["operands"].get<std::string>(), Catch::Contains("acc") && Catch::Contains("xs"));
  CHECK_THAT(j["instruction"][0]["operands"].get<std::string>(), Catch::Contains("via q_in"));
}
