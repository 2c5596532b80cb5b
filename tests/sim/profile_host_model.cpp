// The host model (sequence/host_model.hpp), host.json (profile/host_trace.hpp) and the trace
// recorder's event conversions (profile/trace_recorder.hpp): pure code, no simulation.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "base/file_io.hpp"
#include "profile/host_trace.hpp"
#include "profile/trace_recorder.hpp"
#include "sequence/host_model.hpp"

using namespace neuronsim;

namespace {

config::HostParams host_params(bool async, std::uint32_t depth = 4) {
  config::HostParams h;
  h.framework_dispatch_ns = 10;
  h.runtime_call_ns = 20;
  h.sync_ns = 5;
  h.async = async;
  h.queue_depth = depth;
  return h;
}

}  // namespace

TEST_CASE("hostrun: the synchronous host waits for every launch", "[hostrun]") {
  const profile::HostTimeline t = sequence::schedule_launches(host_params(false), {100, 50});
  REQUIRE(t.launches.size() == 2);
  // Launch 0: dispatch 0..10, runtime 10..30, device 30..130; the host sees it at 135.
  CHECK(t.launches[0].device.start_ns == 30);
  CHECK(t.launches[0].device.end_ns == 130);
  // Launch 1: dispatch 135..145, runtime 145..165, device 165..215; end 215 + 5 = 220.
  CHECK(t.launches[1].framework_dispatch.start_ns == 135);
  CHECK(t.launches[1].device.start_ns == 165);
  CHECK(t.total_ns == 220);
  CHECK(t.device_ns == 150);
  CHECK(t.dispatch_gap_ns() == 70);
  CHECK(t.launches[1].host_ns == 30);
}

TEST_CASE("hostrun: the asynchronous host dispatches during device execution", "[hostrun]") {
  const profile::HostTimeline t = sequence::schedule_launches(host_params(true), {100, 50});
  // Launch 1's dispatch starts when launch 0's runtime call ends (30), its runtime call
  // ends at 60, but the device is busy until 130: device 130..180, end 185.
  CHECK(t.launches[1].framework_dispatch.start_ns == 30);
  CHECK(t.launches[1].runtime_call.end_ns == 60);
  CHECK(t.launches[1].device.start_ns == 130);
  CHECK(t.total_ns == 185);
  CHECK(t.dispatch_gap_ns() == 35);  // 30 before the first launch, 5 of final sync
}

TEST_CASE("hostrun: the scheduler one launch at a time, host ops and synchronize", "[hostrun]") {
  sequence::LaunchScheduler s(host_params(true));
  CHECK(s.synchronize() == 0);  // nothing launched: the host does not wait
  // A host op (a view) is a framework dispatch: 0..10; the launch after it dispatches at
  // 10..20, calls the runtime 20..40 and runs 40..140.
  const profile::Interval op = s.host_op();
  CHECK(op.start_ns == 0);
  CHECK(op.end_ns == 10);
  const profile::LaunchTiming l = s.launch(100);
  CHECK(l.framework_dispatch.start_ns == 10);
  CHECK(l.device.start_ns == 40);
  CHECK(s.host_now_ns() == 40);  // async: free after the runtime call
  CHECK(s.total_ns() == 145);
  // synchronize: the host waits for the device (140) and sees it (+5).
  CHECK(s.synchronize() == 145);
  CHECK(s.launch(50).framework_dispatch.start_ns == 145);
  // The same launches through schedule_launches (no host ops) match launch by launch.
  sequence::LaunchScheduler plain(host_params(true));
  const profile::HostTimeline t = sequence::schedule_launches(host_params(true), {100, 50});
  for (std::size_t i = 0; i < t.launches.size(); ++i)
    CHECK(plain.launch(t.launches[i].device_ns).device.end_ns == t.launches[i].device.end_ns);
  CHECK(plain.total_ns() == t.total_ns);
}

TEST_CASE("hostrun: a full launch queue blocks the runtime call", "[hostrun]") {
  const profile::HostTimeline t = sequence::schedule_launches(host_params(true, 1), {100, 100});
  // Depth 1: launch 1's runtime call waits until launch 0 finished (130) and was seen (135).
  CHECK(t.launches[1].runtime_call.start_ns == 135);
  CHECK(t.launches[1].device.start_ns == 155);
  CHECK(t.launches[1].host_ns == 30);  // waiting is not host work
}

TEST_CASE("hostrun: host.json round-trips", "[hostrun]") {
  sequence::LaunchSequence seq;
  seq.program = "p";
  seq.mode = "eager";
  seq.launches = {{"l0", "a.neff", "a.neff", "add", {"n0"}, ""},
                  {"l1", "b.neff", "b.neff", "mul", {}, ""}};
  config::TargetConfig cfg = config::load_target("trn2");
  const profile::HostTimeline timeline = sequence::schedule_launches(cfg.host, {1000.5, 250.25});
  const profile::HostTrace t = sequence::make_host_trace(seq, cfg, timeline);
  const auto dir =
      std::filesystem::temp_directory_path() / ("neuronsim_host_json_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  write_file_atomic((dir / profile::kHostTraceFile).string(), profile::host_trace_json(t).dump(2));
  CHECK(profile::is_sequence_profile(dir.string()));
  const profile::HostTrace back = profile::read_host_trace(dir.string());
  CHECK(profile::host_trace_json(back) == profile::host_trace_json(t));
  CHECK(back.launches[1].profile == "launch_001");
  CHECK(back.host_model["async"]["unit"] == "flag");
  std::filesystem::remove_all(dir);
}

TEST_CASE("hostrun: a stall is blamed on the wait that held the instruction longest", "[hostrun]") {
  traces::InstructionRecord e;
  e.semaphore_wait_ps = 250;
  traces::SemaphoreWaitRecord short_wait, long_wait, satisfied;
  short_wait.semaphore = 1;
  short_wait.waited_ps = 50;
  short_wait.last_signaller.kind = traces::SignalSource::Kind::engine;
  short_wait.last_signaller.engine = isa::Engine::scalar;
  long_wait.semaphore = 3;
  long_wait.waited_ps = 200;
  long_wait.last_signaller.kind = traces::SignalSource::Kind::dma_queue;
  long_wait.last_signaller.queue = 2;
  satisfied.semaphore = 4;  // ready already: held nothing back
  e.semaphore_waits = {satisfied, short_wait, long_wait};
  REQUIRE(traces::longest_wait(e) == &e.semaphore_waits[2]);
  CHECK(traces::longest_wait(e)->last_signaller.queue == 2);

  traces::InstructionRecord no_wait;
  no_wait.semaphore_waits = {satisfied};
  CHECK(traces::longest_wait(no_wait) == nullptr);
}
