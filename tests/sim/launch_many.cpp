// Many launches in one simulation: back to back on one core under the host model, at any
// time with sc_start in slices, and after a failed launch. Each TEST_CASE is one
// simulation (SystemC elaborates once per process) with as many launches as it likes.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "core_support.hpp"
#include "engines/sim_time.hpp"
#include "sequence/host_driver.hpp"
#include "sequence/host_model.hpp"

using namespace core_test;
using neuronsim::isa::Engine;

namespace {

float first_float(const std::vector<std::uint8_t>& bytes) {
  float v;
  std::memcpy(&v, bytes.data(), 4);
  return v;
}

}  // namespace

TEST_CASE("launches: 100 back to back on one core under the host model, no fork", "[launch]") {
  const auto cfg = target("trn2");
  const auto k = std::make_shared<const isa::Kernel>(square_kernel());
  std::vector<LaunchRequest> requests;
  for (int i = 0; i < 100; ++i) {
    LaunchRequest r;
    r.kernel = k;
    r.inputs["in"] = floats(static_cast<float>(i));
    requests.push_back(std::move(r));
  }
  require_elaboration("test");
  Hbm hbm("hbm", cfg);
  NeuronCore core("core", cfg);
  bind_checked(core, hbm.socket);
  sequence::HostDriver host("host", core, cfg.host, std::move(requests));
  sc_core::sc_start();
  REQUIRE(host.finished());
  REQUIRE(host.launches().size() == 100);
  std::vector<double> device_ns;
  for (std::size_t i = 0; i < 100; ++i) {
    const LaunchResult& r = host.launches()[i]->result();
    REQUIRE(r.ok());
    CHECK(r.id == i);
    // Each launch computed on its own input: out = i * i.
    CHECK(first_float(r.outputs.at("out")) == static_cast<float>(i * i));
    // The same kernel takes the same time wherever it runs.
    CHECK(r.total_ps == host.launches()[0]->result().total_ps);
    if (i > 0) CHECK(r.started >= host.launches()[i - 1]->result().finished);
    device_ns.push_back(r.total_ns);
  }
  // trn2's host model: framework dispatch 10 us + runtime call 20 us before the first
  // launch can start, so launch 0 starts at 30 us.
  CHECK(host.launches()[0]->result().started == sc_core::sc_time(30, sc_core::SC_US));
  // The simulation ends where the host model's arithmetic says: the sum of the device
  // times plus the gaps the host leaves (dispatch and runtime calls the device waits for,
  // and the final sync).
  const profile::HostTimeline t = sequence::schedule_launches(cfg.host, device_ns);
  CHECK(sc_core::sc_time_stamp() == host.end());
  CHECK(engines::to_ns(host.end()) == Approx(t.total_ns).margin(0.001));
  CHECK(t.total_ns == Approx(t.device_ns + t.dispatch_gap_ns()).margin(1e-6));
  for (std::size_t i = 0; i < 100; ++i)
    CHECK(engines::to_ns(host.launches()[i]->result().started) ==
          Approx(t.launches[i].device.start_ns).margin(0.001));
  CHECK(core.launches_finished() == 100);
  CHECK(core.idle());
}

TEST_CASE("launches: one started at 5 us, driven in 1 us slices, equals one started at 0",
          "[launch]") {
  const auto cfg = target("trn1");
  const auto k = std::make_shared<const isa::Kernel>(square_kernel());
  require_elaboration("test");
  Hbm hbm_a("hbm_a", cfg), hbm_b("hbm_b", cfg);
  NeuronCore a("a", cfg), b("b", cfg);
  bind_checked(a, hbm_a.socket);
  bind_checked(b, hbm_b.socket);
  LaunchRequest at_zero;
  at_zero.kernel = k;
  at_zero.inputs["in"] = floats(3);
  const LaunchHandle first = a.launch(at_zero);
  // A free-running clock, as a platform has: sc_start() alone would never return.
  sc_core::sc_clock clock("clock", 1, sc_core::SC_NS);
  LaunchHandle later;
  const LaunchResult* seen = nullptr;
  sc_core::sc_time seen_at;
  sc_core::sc_spawn([&] {
    sc_core::wait(5, sc_core::SC_US);
    LaunchRequest r = at_zero;
    r.on_done = [&](const LaunchResult& result) {
      seen = &result;
      seen_at = sc_core::sc_time_stamp();
    };
    later = b.launch(r);
  });
  int slices = 0;
  while (!(later && later->finished()) && slices < 1000) {
    sc_core::sc_start(1, sc_core::SC_US);
    ++slices;
  }
  REQUIRE(later);
  REQUIRE(later->finished());
  const LaunchResult& r = later->result();
  REQUIRE(r.ok());
  CHECK(r.started == sc_core::sc_time(5, sc_core::SC_US));
  CHECK(r.total_ps == first->result().total_ps);
  CHECK(r.stats.json_text() == first->result().stats.json_text());
  CHECK(r.outputs == first->result().outputs);
  CHECK(first_float(r.outputs.at("out")) == 9.0f);
  // The callback saw the finished result, at the time the launch ended.
  CHECK(seen == &r);
  CHECK(seen_at == r.finished);
  CHECK(r.finished ==
        r.started + sc_core::sc_time(static_cast<double>(r.total_ps), sc_core::SC_PS));
}

namespace {
struct ThrowingObserver : engines::Observer {
  void on_instruction_end(const traces::InstructionRecord&) override {
    throw neuronsim::Error("observer: disk full");
  }
};
}  // namespace

TEST_CASE("launches: a deadlocked or failed launch ends with its error and the next one runs",
          "[launch]") {
  auto dead = square_kernel();
  const auto never = semaphore(dead, "never");
  dead.stream(Engine::vector).edit(0, [&](neuronsim::isa::Instruction& i) {
    i.waits.push_back({never, 1});
  });
  ThrowingObserver bad;
  std::vector<LaunchRequest> requests{request(dead), request(square_kernel()),
                                      request(square_kernel()), request(square_kernel())};
  for (auto& r : requests)
    r.inputs["in"] = floats(2);
  requests[2].observers = {&bad};
  const auto results = run_launches(target("trn1"), std::move(requests));
  // Launch 0: the load completes, then Vector waits for 'never' and the store for
  // 'squared': nothing can move and no transfer is in flight.
  CHECK_FALSE(results[0].ok());
  CHECK_THAT(results[0].error, Catch::Contains("deadlock"));
  CHECK_THAT(results[0].error, Catch::Contains("waits for semaphore 'never' = 0, wants >= 1"));
  CHECK_THROWS_WITH(results[0].rethrow_if_failed(), Catch::Contains("deadlock"));
  // Launch 2: its observer throws at the first instruction end.
  CHECK(results[2].error == "observer: disk full");
  // Launches 1 and 3 are unaffected by what went before them.
  REQUIRE(results[1].ok());
  REQUIRE(results[3].ok());
  CHECK(results[3].total_ps == results[1].total_ps);
  CHECK(first_float(results[3].outputs.at("out")) == 4.0f);
  CHECK(results[1].started >= results[0].finished);
  CHECK(results[3].started >= results[2].finished);
}

TEST_CASE(
    "launches: a core checks and plans each kernel once, and more kernels than it keeps "
    "still run the same",
    "[launch]") {
  const auto cfg = target("trn2");
  // 20 distinct kernel objects (the core keeps 16, sim/neuron_core.cpp), the first launched
  // again after the others have pushed it out, and twice in a row.
  std::vector<std::shared_ptr<const isa::Kernel>> kernels;
  for (int i = 0; i < 20; ++i)
    kernels.push_back(std::make_shared<const isa::Kernel>(square_kernel()));
  std::vector<std::shared_ptr<const isa::Kernel>> order = kernels;
  order.push_back(kernels[0]);
  order.push_back(kernels[0]);
  auto invalid = square_kernel();
  invalid.stream(Engine::vector).edit(0, [](neuronsim::isa::Instruction& i) {
    i.waits.push_back({99, 1});  // no semaphore 99
  });
  const auto bad = std::make_shared<const isa::Kernel>(invalid);

  require_elaboration("test");
  Hbm hbm("hbm", cfg);
  NeuronCore core("core", cfg);
  bind_checked(core, hbm.socket);
  std::vector<LaunchHandle> launches;
  for (std::size_t i = 0; i < order.size(); ++i) {
    LaunchRequest r;
    r.kernel = order[i];
    r.inputs["in"] = floats(static_cast<float>(i));
    launches.push_back(core.launch(std::move(r)));
  }
  // An invalid kernel is refused at every launch, never remembered as checked.
  for (int attempt = 0; attempt < 2; ++attempt) {
    LaunchRequest r;
    r.kernel = bad;
    r.source = "bad.neff";
    CHECK_THROWS_WITH(core.launch(std::move(r)), Catch::Contains("bad.neff"));
  }
  sc_core::sc_start();
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const LaunchResult& r = launches[i]->result();
    REQUIRE(r.ok());
    CHECK(first_float(r.outputs.at("out")) == static_cast<float>(i * i));
    // Planned fresh or reused, the same kernel takes the same time, and the ports of one
    // launch never hold up the next.
    CHECK(r.total_ps == launches[0]->result().total_ps);
  }
}
