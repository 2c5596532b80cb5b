// Statistics groups (base/statistics.hpp, sim/stats.hpp): each lists its typed members
// with name, unit and description; a launch's list and JSON are made from the groups.
#include <catch2/catch.hpp>

#include <string>

#include "base/error.hpp"
#include "neuronsim/statistics.hpp"

using namespace neuronsim;

TEST_CASE("statistics: a name listed twice is an error naming it", "[stats]") {
  StatisticList list;
  list.add("a_bytes", Unit::bytes, "some bytes", std::uint64_t{1});
  CHECK_THROWS_WITH(list.add("a_bytes", Unit::count, "again", std::uint64_t{2}),
                    Catch::Contains("'a_bytes' listed twice"));
  CHECK(unit_name(Unit::ns) == "ns");
  CHECK(unit_name(Unit::cycles) == "cycles");
  CHECK(unit_name(Unit::bytes) == "bytes");
  CHECK(unit_name(Unit::count) == "count");
  CHECK(unit_name(Unit::percent) == "percent");
}

TEST_CASE("statistics: a launch that never began lists nothing", "[stats]") {
  const LaunchStats none;
  CHECK(none.all().empty());
  CHECK(none.json_text() == "{}");
}

TEST_CASE("statistics: the list is the groups' members, in the groups' order", "[stats]") {
  LaunchStats s;
  s.counted = true;
  s.core.total_ps = 2'000'500;  // 2000.5 ns
  s.core.neuroncore_cycle_count = 5601;
  for (int i = 0; i < isa::kEngineCount; ++i) {
    s.engines[i].engine = static_cast<isa::Engine>(i);
    s.engines[i].time.idle_ps = s.core.total_ps;
  }
  EngineStats& vector = s.engines[static_cast<int>(isa::Engine::vector)];
  vector.busy_cycles = 1120;
  vector.time.instruction_count = 3;
  vector.time.busy_ps = 1'000'250;  // half the total: 50%
  vector.time.idle_ps = s.core.total_ps - vector.time.busy_ps;
  s.dma.transfers = 2;
  s.hbm.read_bytes = 4096;
  s.dma_queues.push_back({"q0", 1'500'000});
  s.dma_engines.push_back({0, 750'000});

  const auto all = s.all();
  // 2 core + 5 clocks + 8 per engine and Tensor's throttled_ns + 3 DMA + 2 per memory space + 2
  // HBM + 1 queue + 1 engine.
  REQUIRE(all.size() == 2 + 5 + 5 * 8 + 1 + 3 + 2 * 3 + 2 + 1 + 1);
  CHECK(all.front().name == "total_time_ns");
  CHECK(std::get<double>(all.front().value) == 2000.5);
  auto find = [&](const std::string& name) -> const Statistic& {
    for (const Statistic& st : all)
      if (st.name == name) return st;
    FAIL("no statistic " << name);
    return all.front();
  };
  CHECK(std::get<std::uint64_t>(find("vector_engine_instruction_count").value) == 3);
  CHECK(find("vector_engine_busy_cycles").unit == Unit::cycles);
  CHECK(std::get<double>(find("vector_engine_busy_ns").value) == 1000.25);
  CHECK(std::get<double>(find("vector_engine_active_time_percent").value) == 50.0);
  CHECK(std::get<std::uint64_t>(find("dma_transfer_count").value) == 2);
  CHECK(std::get<std::uint64_t>(find("hbm_read_bytes").value) == 4096);
  CHECK(find("dma_queue_q0_busy_ns").description ==
        "time DMA queue 'q0' had a transfer outstanding");
  CHECK(all.back().name == "dma_engine_0_busy_ns");
  CHECK(std::get<double>(all.back().value) == 750.0);
  CHECK(s.json_text().rfind(
            "{\"total_time_ns\":{\"value\":2000.5,\"unit\":\"ns\",\"description\":\"simulated "
            "time from start to the last instruction or transfer\"},\"neuroncore_cycle_count\":"
            "{\"value\":5601,\"unit\":\"cycles\"",
            0) == 0);
}
