// NtffWriter: records -> NTFF bytes (docs/ntff.md), streamed through OutputFile.
#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::traces {

namespace {

using namespace ntff;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": cannot write NTFF: " + what);
}

// Takes a C string so that the common, passing case builds no std::string.
void check(bool ok, const std::string& path, const char* what) {
  if (!ok) fail(path, what);
}

// The fields a kind does not use must be 0: the reader gives them 0, and a record must read
// back as it was written.
void check_source(const SignalSource& s, const std::string& path, const char* what) {
  using K = SignalSource::Kind;
  if (s.kind > K::dma_queue) fail(path, std::string(what) + " kind out of range");
  if (static_cast<int>(s.engine) >= isa::kEngineCount)
    fail(path, std::string(what) + " engine out of range");
  const SignalSource unused_zero = s.kind == K::initial ? SignalSource{}
                                   : s.kind == K::engine
                                       ? SignalSource{s.kind, s.engine, s.instruction, 0}
                                       : s;
  if (!(s == unused_zero)) fail(path, std::string(what) + " sets fields its kind does not use");
}

void put_source(Encoder& enc, const SignalSource& s) {
  enc.u8(static_cast<std::uint8_t>(s.kind));
  switch (s.kind) {
    case SignalSource::Kind::initial:
      return;
    case SignalSource::Kind::engine:
      enc.u8(static_cast<std::uint8_t>(s.engine));
      enc.varint(s.instruction);
      return;
    case SignalSource::Kind::dma_queue:
      enc.varint(s.queue);
      enc.u8(static_cast<std::uint8_t>(s.engine));
      enc.varint(s.instruction);
      return;
  }
}

}  // namespace

NtffWriter::NtffWriter(const std::string& path, const TraceInfo& info) : out_(path) {
  check(info.kernel_name.size() <= kMaxKernelName, path, "kernel name longer than 256 bytes");
  check(info.target.size() <= kMaxTarget, path, "target name longer than 64 bytes");
  enc_.raw(kMagic.data(), kMagic.size());
  enc_.u16le(kNtffVersion);
  enc_.u16le(0);  // flags, reserved
  enc_.raw(info.neff_hash.data(), info.neff_hash.size());
  enc_.u8(isa::kEngineCount);
  for (double ghz : info.engine_ghz) {
    if (!std::isfinite(ghz) || ghz < 0 || ghz > kMaxClockGhz)
      fail(path, "engine clock " + std::to_string(ghz) + " GHz out of range [0, 1000]");
    std::uint64_t bits;
    std::memcpy(&bits, &ghz, sizeof bits);
    enc_.u64le(bits);
  }
  const double counter = info.cycle_counter_ghz;
  if (!std::isfinite(counter) || counter < 0 || counter > kMaxClockGhz)
    fail(path, "cycle counter clock " + std::to_string(counter) + " GHz out of range [0, 1000]");
  std::uint64_t counter_bits;
  std::memcpy(&counter_bits, &counter, sizeof counter_bits);
  enc_.u64le(counter_bits);
  enc_.text(info.kernel_name);
  enc_.text(info.target);
  emit();
}

NtffWriter::~NtffWriter() {
  abandon();
}

void NtffWriter::emit() {
  const auto& b = enc_.bytes();
  checksum_ = fnv1a(checksum_, b.data(), b.size());
  out_.write(b.data(), b.size());
  enc_.clear();
}

void NtffWriter::add(const InstructionRecord& r) {
  const auto e = static_cast<std::size_t>(r.engine);
  check(e < isa::kEngineCount, out_.path(), "instruction record engine out of range");
  check(static_cast<int>(r.opcode) < isa::kOpcodeCount, out_.path(),
        "instruction record opcode out of range");
  check(r.semaphore_waits.size() <= kMaxSemaphoreWaits, out_.path(),
        "instruction record has more than 65535 semaphore waits");
  for (const SemaphoreWaitRecord& w : r.semaphore_waits)
    check_source(w.last_signaller, out_.path(), "instruction record semaphore wait signaller");
  check(r.ready_ps <= r.start_ps && r.start_ps <= r.end_ps && r.start_cycle <= r.end_cycle,
        out_.path(), "instruction record times out of order (needs ready <= start <= end)");
  enc_.u8(static_cast<std::uint8_t>(kTagInstruction + e));
  enc_.u8(static_cast<std::uint8_t>(r.opcode));
  enc_.varint(zigzag(static_cast<std::uint64_t>(
      static_cast<std::int64_t>(static_cast<std::int32_t>(r.index - state_.next_index[e])))));
  enc_.delta(r.ready_ps, state_.end_ps[e]);
  enc_.delta(r.start_ps, r.ready_ps);
  enc_.delta(r.end_ps, r.start_ps);
  enc_.delta(r.start_cycle, state_.end_cycle[e]);
  enc_.delta(r.end_cycle, r.start_cycle);

  std::uint8_t flags = 0;
  if (r.semaphore_wait_ps) flags |= kHasSemaphoreWait;
  if (r.port_wait_ps) flags |= kHasPortWait;
  if (r.dma_wait_ps) flags |= kHasDmaWait;
  if (!r.semaphore_waits.empty()) flags |= kHasSemaphoreWaits;
  if (!(r.bytes == ByteCounts{})) flags |= kHasBytes;
  if (r.flops) flags |= kHasFlops;
  if (r.throttle_ps) flags |= kHasThrottle;
  enc_.u8(flags);
  if (flags & kHasSemaphoreWait) enc_.varint(r.semaphore_wait_ps);
  if (flags & kHasPortWait) enc_.varint(r.port_wait_ps);
  if (flags & kHasDmaWait) enc_.varint(r.dma_wait_ps);
  if (flags & kHasSemaphoreWaits) {
    enc_.varint(r.semaphore_waits.size());
    for (const SemaphoreWaitRecord& w : r.semaphore_waits) {
      enc_.varint(w.semaphore);
      enc_.varint(w.wanted);
      enc_.varint(w.value_at_ready);
      enc_.varint(w.waited_ps);
      put_source(enc_, w.last_signaller);
    }
  }
  if (flags & kHasBytes) {
    std::uint8_t mask = 0;
    for (int s = 0; s < 3; ++s) {
      if (r.bytes.read[s]) mask |= static_cast<std::uint8_t>(1 << s);
      if (r.bytes.written[s]) mask |= static_cast<std::uint8_t>(1 << (3 + s));
    }
    enc_.u8(mask);
    for (int s = 0; s < 3; ++s)
      if (r.bytes.read[s]) enc_.varint(r.bytes.read[s]);
    for (int s = 0; s < 3; ++s)
      if (r.bytes.written[s]) enc_.varint(r.bytes.written[s]);
  }
  if (flags & kHasFlops) enc_.varint(r.flops);
  if (flags & kHasThrottle) enc_.varint(r.throttle_ps);

  latest_end_ps_ = std::max(latest_end_ps_, r.end_ps);
  state_.next_index[e] = r.index + 1;
  state_.end_ps[e] = r.end_ps;
  state_.end_cycle[e] = r.end_cycle;
  ++counts_.instructions;
  emit();
}

void NtffWriter::add(const DmaRecord& r) {
  check(r.dma_engine < 16, out_.path(), "DMA record dma_engine out of range (0..15)");
  check(static_cast<int>(r.issuer) < isa::kEngineCount, out_.path(),
        "DMA record issuer out of range");
  check(r.src <= isa::MemSpace::psum && r.dst <= isa::MemSpace::psum, out_.path(),
        "DMA record memory space out of range");
  check(r.issue_ps <= r.start_ps && r.start_ps <= r.end_ps, out_.path(),
        "DMA record times out of order (needs issue <= start <= end)");
  enc_.u8(kTagDma);
  enc_.varint(r.queue);
  enc_.u8(r.dma_engine);
  enc_.u8(static_cast<std::uint8_t>(r.issuer));
  enc_.varint(r.issuer_index);
  enc_.delta(r.issue_ps, state_.dma_issue_ps);
  enc_.delta(r.start_ps, r.issue_ps);
  enc_.delta(r.end_ps, r.start_ps);
  enc_.u8(static_cast<std::uint8_t>(static_cast<int>(r.src) | static_cast<int>(r.dst) << 4));
  enc_.varint(r.bytes);
  latest_end_ps_ = std::max(latest_end_ps_, r.end_ps);
  state_.dma_issue_ps = r.issue_ps;
  ++counts_.dmas;
  emit();
}

void NtffWriter::add(const SemaphoreRecord& r) {
  check_source(r.source, out_.path(), "semaphore record source");
  enc_.u8(kTagSemaphore);
  enc_.delta(r.time_ps, state_.semaphore_ps);
  enc_.varint(r.semaphore);
  enc_.varint(r.value);
  put_source(enc_, r.source);
  latest_end_ps_ = std::max(latest_end_ps_, r.time_ps);
  state_.semaphore_ps = r.time_ps;
  ++counts_.semaphores;
  emit();
}

void NtffWriter::close(std::uint64_t total_ps) {
  check(!closed_, out_.path(), "closed twice");
  if (total_ps < latest_end_ps_) {
    abandon();
    fail(out_.path(), "total time " + std::to_string(total_ps) +
                          " ps is before the last record's end " + std::to_string(latest_end_ps_) +
                          " ps");
  }
  enc_.u8(kTagTrailer);
  enc_.varint(total_ps);
  enc_.varint(counts_.instructions);
  enc_.varint(counts_.dmas);
  enc_.varint(counts_.semaphores);
  emit();
  enc_.u64le(checksum_);
  out_.write(enc_.bytes().data(), enc_.bytes().size());
  enc_.clear();
  out_.commit();
  closed_ = true;
}

void NtffWriter::abandon() {
  if (!closed_) out_.abandon();
}

}  // namespace neuronsim::traces
