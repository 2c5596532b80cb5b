// NtffReader: NTFF bytes -> records (docs/ntff.md), streamed through a fixed buffer, every
// field checked. Errors name the file, the byte offset and the reason.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/little_endian.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::traces {

using namespace ntff;

struct NtffReader::Source {
  static constexpr std::size_t kBufferBytes = 1 << 20;

  std::string path;
  std::ifstream in;
  std::vector<std::uint8_t> buf = std::vector<std::uint8_t>(kBufferBytes);
  std::size_t pos = 0, len = 0;
  std::uint64_t buffer_offset = 0;  // file offset of buf[0]
  std::uint64_t checksum = kFnvOffset;

  std::uint64_t offset() const { return buffer_offset + pos; }

  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(path + ": corrupt NTFF at byte " + std::to_string(offset()) + ": " + reason);
  }

  bool refill() {
    buffer_offset += len;
    pos = 0;
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    len = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw Error(path + ": read failed");
    return len > 0;
  }
  bool at_end() { return pos == len && !refill(); }

  std::uint8_t u8(const char* what) {
    if (pos == len && !refill()) fail(std::string("truncated inside ") + what);
    const std::uint8_t b = buf[pos++];
    checksum = (checksum ^ b) * kFnvPrime;
    return b;
  }
  // LEB128, at most 10 bytes, no redundant trailing zero groups.
  std::uint64_t varint(const char* what) {
    std::uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
      const std::uint8_t b = u8(what);
      if (i == 9 && b > 1) fail(std::string("varint overflows 64 bits in ") + what);
      v |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
      if (!(b & 0x80)) {
        if (i > 0 && b == 0) fail(std::string("overlong varint in ") + what);
        return v;
      }
    }
    fail(std::string("varint longer than 10 bytes in ") + what);
  }
  std::uint64_t bounded(const char* what, std::uint64_t max) {
    const std::uint64_t v = varint(what);
    if (v > max)
      fail(std::string(what) + " " + std::to_string(v) + " out of range (max " +
           std::to_string(max) + ")");
    return v;
  }
  // Deltas are modulo 2^64 by design (docs/ntff.md); the order checks catch forgeries.
  std::uint64_t delta(const char* what, std::uint64_t base) {
    return base + unzigzag(varint(what));
  }
  std::uint64_t u64le(const char* what) {
    std::uint8_t bytes[8];
    for (std::uint8_t& b : bytes)
      b = u8(what);
    return load_le64(bytes);
  }
  std::string text(const char* what, std::size_t max) {
    const auto n = static_cast<std::size_t>(bounded(what, max));
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
      s += static_cast<char>(u8(what));
    return s;
  }
  isa::Engine engine(const char* what) {
    const std::uint8_t e = u8(what);
    if (e >= isa::kEngineCount)
      fail(std::string(what) + " engine " + std::to_string(e) + " out of range");
    return static_cast<isa::Engine>(e);
  }
  SignalSource source(const char* what) {
    SignalSource src;
    const std::uint8_t kind = u8(what);
    switch (kind) {
      case static_cast<std::uint8_t>(SignalSource::Kind::initial):
        return src;
      case static_cast<std::uint8_t>(SignalSource::Kind::engine):
        src.kind = SignalSource::Kind::engine;
        src.engine = engine(what);
        src.instruction = static_cast<std::uint32_t>(bounded(what, 0xFFFFFFFF));
        return src;
      case static_cast<std::uint8_t>(SignalSource::Kind::dma_queue):
        src.kind = SignalSource::Kind::dma_queue;
        src.queue = static_cast<std::uint16_t>(bounded(what, 0xFFFF));
        src.engine = engine(what);
        src.instruction = static_cast<std::uint32_t>(bounded(what, 0xFFFFFFFF));
        return src;
    }
    fail(std::string(what) + " kind " + std::to_string(kind) + " out of range");
  }
};

NtffReader::NtffReader(const std::string& path) : src_(std::make_unique<Source>()) {
  src_->path = path;
  check_input_file(path, Limit::ntff_file_bytes);  // a regular file, never a device or FIFO
  src_->in.open(path, std::ios::binary);
  if (!src_->in) throw Error(path + ": cannot open: " + std::strerror(errno));
  read_header();
}

NtffReader::~NtffReader() = default;

void NtffReader::read_header() {
  Source& s = *src_;
  for (std::uint8_t m : kMagic)
    if (s.u8("the magic") != m) s.fail("not an NTFF file (bad magic)");
  // A braced list is evaluated left to right: the low byte is read first.
  const std::uint8_t version_bytes[2] = {s.u8("the version"), s.u8("the version")};
  const std::uint16_t version = load_le16(version_bytes);
  if (version != kNtffVersion)
    s.fail("unsupported version " + std::to_string(version) + " (this reader reads " +
           std::to_string(kNtffVersion) +
           (version >= 1 && version < kNtffVersion ? "; record the run again" : "") + ")");
  if (s.u8("the header flags") != 0 || s.u8("the header flags") != 0)
    s.fail("reserved header flags are set");
  for (auto& b : info_.neff_hash)
    b = s.u8("the NEFF hash");
  const std::uint8_t engines = s.u8("the engine count");
  if (engines != isa::kEngineCount)
    s.fail("engine count " + std::to_string(engines) + " (expected 5)");
  for (double& ghz : info_.engine_ghz) {
    const std::uint64_t bits = s.u64le("the engine clocks");
    std::memcpy(&ghz, &bits, sizeof ghz);
    if (!std::isfinite(ghz) || ghz < 0 || ghz > kMaxClockGhz)
      s.fail("engine clock out of range [0, 1000] GHz");
  }
  const std::uint64_t counter_bits = s.u64le("the cycle counter clock");
  std::memcpy(&info_.cycle_counter_ghz, &counter_bits, sizeof info_.cycle_counter_ghz);
  if (!std::isfinite(info_.cycle_counter_ghz) || info_.cycle_counter_ghz < 0 ||
      info_.cycle_counter_ghz > kMaxClockGhz)
    s.fail("cycle counter clock out of range [0, 1000] GHz");
  info_.kernel_name = s.text("the kernel name", kMaxKernelName);
  info_.target = s.text("the target name", kMaxTarget);
}

bool NtffReader::next(Record& out) {
  if (done_) return false;
  Source& s = *src_;
  if (counts_.instructions + counts_.dmas + counts_.semaphores >= limit(Limit::trace_records))
    check_limit(Limit::trace_records, counts_.instructions + counts_.dmas + counts_.semaphores + 1,
                src_->path);
  if (s.at_end())
    s.fail("truncated: the file ends after " +
           std::to_string(counts_.instructions + counts_.dmas + counts_.semaphores) +
           " records without a trailer");
  const std::uint8_t tag = s.u8("a record tag");
  if (tag >= kTagInstruction && tag < kTagInstruction + isa::kEngineCount) {
    const std::size_t e = tag - kTagInstruction;
    InstructionRecord r;
    r.engine = static_cast<isa::Engine>(e);
    const std::uint8_t op = s.u8("an instruction record");
    if (op >= isa::kOpcodeCount)
      s.fail("instruction opcode " + std::to_string(op) + " out of range");
    r.opcode = static_cast<isa::Opcode>(op);
    const auto index_delta =
        static_cast<std::int64_t>(unzigzag(s.bounded("instruction index", 0xFFFFFFFF)));
    r.index = state_.next_index[e] + static_cast<std::uint32_t>(index_delta);
    r.ready_ps = s.delta("instruction ready time", state_.end_ps[e]);
    r.start_ps = s.delta("instruction start time", r.ready_ps);
    r.end_ps = s.delta("instruction end time", r.start_ps);
    r.start_cycle = s.delta("instruction start cycle", state_.end_cycle[e]);
    r.end_cycle = s.delta("instruction end cycle", r.start_cycle);
    if (r.start_ps < r.ready_ps || r.end_ps < r.start_ps || r.end_cycle < r.start_cycle)
      s.fail("instruction times out of order (needs ready <= start <= end)");
    const std::uint8_t flags = s.u8("instruction flags");
    if (flags & ~kKnownFlags) s.fail("unknown instruction flags " + std::to_string(flags));
    if (flags & kHasSemaphoreWait) r.semaphore_wait_ps = s.varint("semaphore wait");
    if (flags & kHasPortWait) r.port_wait_ps = s.varint("port wait");
    if (flags & kHasDmaWait) r.dma_wait_ps = s.varint("DMA wait");
    if (flags & kHasSemaphoreWaits) {
      // Each wait takes at least five bytes of the file, so the file's size bounds them.
      const auto n = s.bounded("semaphore wait count", kMaxSemaphoreWaits);
      if (n == 0) s.fail("semaphore wait flag set with no waits");
      for (std::uint64_t w = 0; w < n; ++w) {
        SemaphoreWaitRecord wait;
        wait.semaphore = static_cast<std::uint16_t>(s.bounded("waited semaphore", 0xFFFF));
        wait.wanted = static_cast<std::uint32_t>(s.bounded("wanted semaphore value", 0xFFFFFFFF));
        wait.value_at_ready =
            static_cast<std::uint32_t>(s.bounded("semaphore value at ready", 0xFFFFFFFF));
        wait.waited_ps = s.varint("semaphore waited time");
        wait.last_signaller = s.source("semaphore wait signaller");
        r.semaphore_waits.push_back(wait);
      }
    }
    if (flags & kHasBytes) {
      const std::uint8_t mask = s.u8("byte count mask");
      if (mask & 0xC0) s.fail("unknown byte count mask bits");
      for (int m = 0; m < 3; ++m)
        if (mask & (1 << m)) r.bytes.read[m] = s.varint("read bytes");
      for (int m = 0; m < 3; ++m)
        if (mask & (1 << (3 + m))) r.bytes.written[m] = s.varint("written bytes");
    }
    if (flags & kHasFlops) r.flops = s.varint("flops");
    if (flags & kHasThrottle) {
      r.throttle_ps = s.varint("throttle time");
      if (r.throttle_ps > r.end_ps - r.start_ps)
        s.fail("instruction throttle time longer than the instruction");
    }
    state_.next_index[e] = r.index + 1;
    state_.end_ps[e] = r.end_ps;
    state_.end_cycle[e] = r.end_cycle;
    latest_end_ps_ = std::max(latest_end_ps_, r.end_ps);
    ++counts_.instructions;
    out = r;
    return true;
  }
  if (tag == kTagDma) {
    DmaRecord r;
    r.queue = static_cast<std::uint16_t>(s.bounded("DMA queue", 0xFFFF));
    r.dma_engine = s.u8("a DMA record");
    if (r.dma_engine >= 16)
      s.fail("DMA engine " + std::to_string(r.dma_engine) + " out of range (0..15)");
    const std::uint8_t issuer = s.u8("a DMA record");
    if (issuer >= isa::kEngineCount)
      s.fail("DMA issuer engine " + std::to_string(issuer) + " out of range");
    r.issuer = static_cast<isa::Engine>(issuer);
    r.issuer_index = static_cast<std::uint32_t>(s.bounded("DMA issuer index", 0xFFFFFFFF));
    r.issue_ps = s.delta("DMA issue time", state_.dma_issue_ps);
    r.start_ps = s.delta("DMA start time", r.issue_ps);
    r.end_ps = s.delta("DMA end time", r.start_ps);
    if (r.start_ps < r.issue_ps || r.end_ps < r.start_ps)
      s.fail("DMA times out of order (needs issue <= start <= end)");
    const std::uint8_t spaces = s.u8("a DMA record");
    if ((spaces & 0x0F) > 2 || (spaces >> 4) > 2)
      s.fail("DMA memory space out of range (byte " + std::to_string(spaces) + ")");
    r.src = static_cast<isa::MemSpace>(spaces & 0x0F);
    r.dst = static_cast<isa::MemSpace>(spaces >> 4);
    r.bytes = s.varint("DMA bytes");
    state_.dma_issue_ps = r.issue_ps;
    latest_end_ps_ = std::max(latest_end_ps_, r.end_ps);
    ++counts_.dmas;
    out = r;
    return true;
  }
  if (tag == kTagSemaphore) {
    SemaphoreRecord r;
    r.time_ps = s.delta("semaphore time", state_.semaphore_ps);
    r.semaphore = static_cast<std::uint16_t>(s.bounded("semaphore id", 0xFFFF));
    r.value = static_cast<std::uint32_t>(s.bounded("semaphore value", 0xFFFFFFFF));
    r.source = s.source("semaphore source");
    state_.semaphore_ps = r.time_ps;
    latest_end_ps_ = std::max(latest_end_ps_, r.time_ps);
    ++counts_.semaphores;
    out = r;
    return true;
  }
  if (tag == kTagTrailer) {
    read_trailer();
    done_ = true;
    return false;
  }
  s.fail("unknown record tag " + std::to_string(tag));
}

void NtffReader::read_trailer() {
  Source& s = *src_;
  info_.total_ps = s.varint("the trailer");
  RecordCounts claimed;
  claimed.instructions = s.varint("the trailer");
  claimed.dmas = s.varint("the trailer");
  claimed.semaphores = s.varint("the trailer");
  const std::uint64_t expected = s.checksum;
  const std::uint64_t stored = s.u64le("the trailer checksum");
  if (!(claimed == counts_))
    s.fail("trailer counts (" + std::to_string(claimed.instructions) + " instructions, " +
           std::to_string(claimed.dmas) + " DMA, " + std::to_string(claimed.semaphores) +
           " semaphore records) differ from the records read (" +
           std::to_string(counts_.instructions) + ", " + std::to_string(counts_.dmas) + ", " +
           std::to_string(counts_.semaphores) + ")");
  if (stored != expected) s.fail("checksum mismatch (the file is damaged)");
  if (latest_end_ps_ > info_.total_ps)
    s.fail("a record ends at " + std::to_string(latest_end_ps_) +
           " ps, after the trailer's total time " + std::to_string(info_.total_ps) + " ps");
  if (!s.at_end()) s.fail("bytes after the trailer");
}

TraceData read_ntff(const std::string& path) {
  NtffReader reader(path);
  TraceData t;
  Record r;
  while (reader.next(r)) {
    if (auto* i = std::get_if<InstructionRecord>(&r))
      t.instructions.push_back(*i);
    else if (auto* d = std::get_if<DmaRecord>(&r))
      t.dmas.push_back(*d);
    else
      t.semaphores.push_back(std::get<SemaphoreRecord>(r));
  }
  t.info = reader.info();
  return t;
}

void write_ntff(const std::string& path, const TraceData& trace) {
  NtffWriter w(path, trace.info);
  // Interleave the kinds by time (instruction and DMA ends, semaphore updates), the
  // order a run produces them in; ties keep instructions, DMA, semaphores in that order.
  std::size_t i = 0, d = 0, s = 0;
  const auto& I = trace.instructions;
  const auto& D = trace.dmas;
  const auto& S = trace.semaphores;
  while (i < I.size() || d < D.size() || s < S.size()) {
    const std::uint64_t ti = i < I.size() ? I[i].end_ps : UINT64_MAX;
    const std::uint64_t td = d < D.size() ? D[d].end_ps : UINT64_MAX;
    const std::uint64_t ts = s < S.size() ? S[s].time_ps : UINT64_MAX;
    if (i < I.size() && ti <= td && ti <= ts)
      w.add(I[i++]);
    else if (d < D.size() && td <= ts)
      w.add(D[d++]);
    else
      w.add(S[s++]);
  }
  w.close(trace.info.total_ps);
}

}  // namespace neuronsim::traces
