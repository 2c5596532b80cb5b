// NTFF writer and reader: round trips, determinism, and refusal of damaged files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <limits>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "traces/ntff.hpp"
#include "traces_fixtures.hpp"

using namespace traces_test;

namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

void require_same(const TraceData& a, const TraceData& b) {
  REQUIRE(a.info.neff_hash == b.info.neff_hash);
  REQUIRE(a.info.kernel_name == b.info.kernel_name);
  REQUIRE(a.info.target == b.info.target);
  REQUIRE(a.info.engine_ghz == b.info.engine_ghz);
  REQUIRE(a.info.cycle_counter_ghz == b.info.cycle_counter_ghz);
  REQUIRE(a.info.total_ps == b.info.total_ps);
  REQUIRE(a.instructions == b.instructions);
  REQUIRE(a.dmas == b.dmas);
  REQUIRE(a.semaphores == b.semaphores);
}

// Records at the edges of every field's range.
TraceData edge_trace() {
  TraceData t;
  for (auto& b : t.info.neff_hash)
    b = 0xA5;
  t.info.kernel_name = std::string(256, 'k');
  t.info.target = "";
  t.info.engine_ghz = {0.0, 1000.0, 1.4, 0.001, 2.8};
  t.info.cycle_counter_ghz = 1000.0;
  t.info.total_ps = kMax64;

  InstructionRecord first;  // all zero / defaults
  InstructionRecord big =
      instr(Engine::gpsimd, Opcode::nop, 0xFFFFFFFF, kMax64 - 10, kMax64 - 5, kMax64);
  big.start_cycle = 0;
  big.end_cycle = kMax64;
  big.semaphore_wait_ps = kMax64;
  big.port_wait_ps = 1;
  big.dma_wait_ps = kMax64 - 1;
  SemaphoreWaitRecord edge_wait;
  edge_wait.semaphore = 0xFFFF;
  edge_wait.wanted = 0xFFFFFFFF;
  edge_wait.value_at_ready = 0xFFFFFFFF;
  edge_wait.waited_ps = kMax64;
  edge_wait.last_signaller = dma_source(0xFFFF, Engine::gpsimd, 0xFFFFFFFF);
  big.semaphore_waits = {edge_wait, SemaphoreWaitRecord{}};  // the second: initial value
  for (int m = 0; m < 3; ++m)
    big.bytes.read[m] = big.bytes.written[m] = kMax64 - m;
  big.flops = kMax64;
  big.throttle_ps = 5;  // all of its start -> end
  InstructionRecord back = instr(Engine::gpsimd, Opcode::matmul, 3, 0, 0, 0);  // index goes back
  back.semaphore_waits.resize(1);  // a wait that was satisfied at once
  back.semaphore_waits[0].last_signaller = engine_source(Engine::sync, 0xFFFFFFFF);
  InstructionRecord odd_bytes = instr(Engine::scalar, Opcode::activation, 7, 5, 5, 9);
  odd_bytes.bytes.written[2] = 1;
  t.instructions = {first, big, back, odd_bytes};

  DmaRecord d0;
  DmaRecord d1 =
      dma(0xFFFF, 15, 0xFFFFFFFF, 0, kMax64 / 2, kMax64, MemSpace::psum, MemSpace::hbm, kMax64);
  d1.issuer = Engine::vector;
  DmaRecord d2 = dma(3, 7, 1, 100, 100, 100, MemSpace::sbuf, MemSpace::sbuf, 0);  // issue goes back
  t.dmas = {d0, d1, d2};

  t.semaphores = {SemaphoreRecord{},
                  sem(kMax64, 0xFFFF, 0xFFFFFFFF, dma_source(0xFFFF, Engine::vector, 0xFFFFFFFF)),
                  sem(0, 0, 0, engine_source(Engine::gpsimd, 0))};
  return t;
}

std::vector<std::uint8_t> fixture_bytes(const TempDir& dir) {
  const std::string path = dir.file("fixture.ntff");
  write_ntff(path, fixture_trace());
  return read_file(path, Limit::ntff_file_bytes);
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomic(path, bytes);
}

// The error reading `bytes` gives, or "" if they read cleanly.
std::string read_error(const TempDir& dir, const std::vector<std::uint8_t>& bytes) {
  const std::string path = dir.file("damaged.ntff");
  write_bytes(path, bytes);
  try {
    read_ntff(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Header bytes of an empty trace (an empty trace's trailer is 0xFF, four 1-byte varints
// of 0 and the 8-byte checksum: 13 bytes).
std::vector<std::uint8_t> header_bytes(const TempDir& dir) {
  TraceData t = fixture_trace();
  t.instructions.clear();
  t.dmas.clear();
  t.semaphores.clear();
  t.info.total_ps = 0;
  const std::string path = dir.file("empty.ntff");
  write_ntff(path, t);
  auto bytes = read_file(path, Limit::ntff_file_bytes);
  bytes.resize(bytes.size() - 13);
  return bytes;
}

}  // namespace

TEST_CASE("traces: NTFF round trip of the fixture trace", "[traces]") {
  TempDir dir("ntff-roundtrip");
  const TraceData t = fixture_trace();
  write_ntff(dir.file("t.ntff"), t);
  const TraceData back = read_ntff(dir.file("t.ntff"));
  REQUIRE(back.instructions.size() == 4);
  REQUIRE(back.dmas.size() == 6);
  REQUIRE(back.semaphores.size() == 3);
  require_same(t, back);
}

TEST_CASE("traces: NTFF round trip at the edges of every field", "[traces]") {
  TempDir dir("ntff-edges");
  const TraceData t = edge_trace();
  write_ntff(dir.file("t.ntff"), t);
  require_same(t, read_ntff(dir.file("t.ntff")));
}

TEST_CASE("traces: NTFF round trip of random traces", "[traces]") {
  TempDir dir("ntff-random");
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const TraceData t = random_trace(seed, 200);
    write_ntff(dir.file("t.ntff"), t);
    const TraceData back = read_ntff(dir.file("t.ntff"));
    // write_ntff interleaves kinds by time; within a kind the order is kept.
    require_same(t, back);
  }
}

TEST_CASE("traces: NTFF streaming reader gives records in file order", "[traces]") {
  TempDir dir("ntff-stream");
  NtffWriter w(dir.file("s.ntff"), fixture_trace().info);
  const TraceData t = fixture_trace();
  w.add(t.semaphores[2]);
  w.add(t.instructions[1]);
  w.add(t.dmas[0]);
  REQUIRE(w.counts() == RecordCounts{1, 1, 1});
  w.close(500'000);
  NtffReader r(dir.file("s.ntff"));
  REQUIRE(r.info().kernel_name == "traces_fixture");
  Record rec;
  REQUIRE(r.next(rec));
  REQUIRE(std::get<SemaphoreRecord>(rec) == t.semaphores[2]);
  REQUIRE(r.next(rec));
  REQUIRE(std::get<InstructionRecord>(rec) == t.instructions[1]);
  REQUIRE(r.next(rec));
  REQUIRE(std::get<DmaRecord>(rec) == t.dmas[0]);
  REQUIRE_FALSE(r.next(rec));
  REQUIRE_FALSE(r.next(rec));
  REQUIRE(r.info().total_ps == 500'000);
}

TEST_CASE("traces: NTFF output is deterministic and compact", "[traces]") {
  TempDir dir("ntff-determinism");
  write_ntff(dir.file("a.ntff"), random_trace(7, 500));
  write_ntff(dir.file("b.ntff"), random_trace(7, 500));
  REQUIRE(read_file(dir.file("a.ntff"), Limit::ntff_file_bytes) ==
          read_file(dir.file("b.ntff"), Limit::ntff_file_bytes));

  // Back-to-back instructions with no waits, bytes or flops: tag, opcode, index, four
  // small deltas, flags = 11 bytes at most (docs/ntff.md).
  TraceData t = fixture_trace();
  t.instructions.clear();
  t.dmas.clear();
  t.semaphores.clear();
  for (std::uint32_t i = 0; i < 1000; ++i)
    t.instructions.push_back(instr(Engine::vector, Opcode::tensor_tensor, i, i * 1000ull,
                                   i * 1000ull, i * 1000ull + 1000));
  t.info.total_ps = 1'000'000;
  const std::string empty = dir.file("empty.ntff"), full = dir.file("full.ntff");
  write_ntff(full, t);
  t.instructions.clear();
  write_ntff(empty, t);
  const double per_record = static_cast<double>(read_file(full, Limit::ntff_file_bytes).size() -
                                                read_file(empty, Limit::ntff_file_bytes).size()) /
                            1000.0;
  CHECK(per_record <= 11.0);
}

TEST_CASE("traces: NTFF writer is all or nothing", "[traces]") {
  TempDir dir("ntff-atomic");
  const std::string path = dir.file("t.ntff");
  {
    NtffWriter w(path, fixture_trace().info);
    w.add(fixture_trace().instructions[0]);
  }  // destroyed without close()
  REQUIRE_FALSE(std::filesystem::exists(path));
  REQUIRE(std::filesystem::is_empty(dir.path));

  NtffWriter w(path, fixture_trace().info);
  InstructionRecord bad;
  bad.engine = static_cast<Engine>(9);
  REQUIRE_THROWS_WITH(w.add(bad), Catch::Contains("engine out of range"));
  w.add(fixture_trace().instructions[0]);
  REQUIRE_THROWS_WITH(w.close(5), Catch::Contains("before the last record's end"));
  REQUIRE(std::filesystem::is_empty(dir.path));

  TraceInfo long_name;
  long_name.kernel_name = std::string(257, 'x');
  REQUIRE_THROWS_WITH(NtffWriter(path, long_name), Catch::Contains("kernel name longer"));
}

TEST_CASE("traces: NTFF every truncation is refused", "[traces]") {
  TempDir dir("ntff-truncated");
  const auto bytes = fixture_bytes(dir);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::string err = read_error(dir, {bytes.begin(), bytes.begin() + n});
    INFO("cut at " << n);
    REQUIRE_THAT(err, Catch::Contains("damaged.ntff") && Catch::Contains("corrupt NTFF"));
  }
  // Cut exactly after a record: the missing trailer is named.
  const auto header = header_bytes(dir);
  REQUIRE_THAT(read_error(dir, header), Catch::Contains("without a trailer"));
}

TEST_CASE("traces: NTFF every damaged byte is refused", "[traces]") {
  TempDir dir("ntff-flipped");
  const auto bytes = fixture_bytes(dir);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (std::uint8_t flip : {0x01, 0x80, 0xFF}) {
      auto damaged = bytes;
      damaged[i] ^= flip;
      INFO("byte " << i << " xor " << int(flip));
      REQUIRE_THAT(read_error(dir, damaged), Catch::Contains("corrupt NTFF"));
    }
  }
  auto longer = bytes;
  longer.push_back(0);
  REQUIRE_THAT(read_error(dir, longer), Catch::Contains("bytes after the trailer"));
}

TEST_CASE("traces: NTFF reader names the reason", "[traces]") {
  TempDir dir("ntff-reasons");
  auto bytes = fixture_bytes(dir);
  auto with = [&](std::size_t at, std::uint8_t value) {
    auto b = bytes;
    b[at] = value;
    return read_error(dir, b);
  };
  CHECK_THAT(with(1, 'X'), Catch::Contains("bad magic"));
  CHECK_THAT(with(8, 4), Catch::Contains("unsupported version 4 (this reader reads 3)"));
  CHECK_THAT(with(8, 1),
             Catch::Contains("unsupported version 1 (this reader reads 3; record the run again)"));
  CHECK_THAT(with(8, 2),
             Catch::Contains("unsupported version 2 (this reader reads 3; record the run again)"));
  CHECK_THAT(with(11, 1), Catch::Contains("reserved header flags"));
  CHECK_THAT(with(44, 4), Catch::Contains("engine count 4"));
  // Offset 85 is the cycle counter clock (f64le 1.4); a top byte of 0x7F makes it a NaN.
  CHECK_THAT(with(92, 0x7F), Catch::Contains("cycle counter clock out of range"));
  CHECK_THAT(read_error(dir, {}), Catch::Contains("truncated inside the magic"));

  const auto header = header_bytes(dir);
  auto record = [&](std::vector<std::uint8_t> rec) {
    auto b = header;
    b.insert(b.end(), rec.begin(), rec.end());
    return read_error(dir, b);
  };
  CHECK_THAT(record({0x20, 0x80, 0x00}), Catch::Contains("overlong varint in DMA queue"));
  CHECK_THAT(record({0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}),
             Catch::Contains("varint"));
  CHECK_THAT(record({0x20, 0x80, 0x80, 0x04}), Catch::Contains("DMA queue 65536 out of range"));
  CHECK_THAT(record({0x20, 0x00, 16}), Catch::Contains("DMA engine 16 out of range"));
  CHECK_THAT(record({0x20, 0x00, 0, 5}), Catch::Contains("DMA issuer engine 5 out of range"));
  // The first number past the opcode table.
  CHECK_THAT(
      record({0x10, static_cast<std::uint8_t>(neuronsim::isa::kOpcodeCount)}),
      Catch::Contains("opcode " + std::to_string(neuronsim::isa::kOpcodeCount) + " out of range"));
  CHECK_THAT(record({0x15}), Catch::Contains("unknown record tag 21"));
  // tag, opcode, index, ready = 2, start = ready - 1: out of order.
  CHECK_THAT(record({0x10, 0, 0, 4, 1, 0, 0, 0}), Catch::Contains("times out of order"));
  CHECK_THAT(record({0x10, 0, 0, 0, 0, 0, 0, 0, 0x80}),
             Catch::Contains("unknown instruction flags"));
  // A throttle of 1 ps on an instruction that lasts 0.
  CHECK_THAT(record({0x10, 0, 0, 0, 0, 0, 0, 0, 0x40, 1}),
             Catch::Contains("throttle time longer than the instruction"));
  CHECK_THAT(record({0x30, 0, 0, 0, 3}), Catch::Contains("semaphore source kind 3"));
  CHECK_THAT(record({0x30, 0, 0, 0, 1, 5}), Catch::Contains("semaphore source engine 5"));

  // A length field claiming a huge kernel name is refused before anything is allocated.
  auto huge = bytes;
  const std::size_t name_at = 8 + 2 + 2 + 32 + 1 + 40 + 8;  // after the cycle counter clock
  REQUIRE(huge[name_at] == 14);                             // "traces_fixture"
  huge[name_at] = 0xFF;
  huge.insert(huge.begin() + name_at + 1, {0xFF, 0xFF, 0xFF, 0x0F});
  CHECK_THAT(read_error(dir, huge),
             Catch::Contains("the kernel name") && Catch::Contains("out of range (max 256)"));
  // Not there at all.
  REQUIRE_THROWS_WITH(read_ntff(dir.file("missing.ntff")),
                      Catch::Contains("missing.ntff: cannot open"));
}
