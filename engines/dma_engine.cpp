#include "engines/dma_engine.hpp"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "base/error.hpp"
#include "engines/sim_time.hpp"
#include "engines/thread_stack.hpp"
#include "memory/bandwidth_share.hpp"
#include "neuronsim/tlm.hpp"

namespace neuronsim::engines {

DmaEngine::DmaEngine(sc_core::sc_module_name name, std::uint32_t index,
                     const params::DmaParams& params, HbmLink& hbm, PartHook on_start,
                     PartHook on_done, FailHook on_fail)
    : sc_module(name),
      index_(index),
      params_(params),
      hbm_(hbm),
      on_start_(std::move(on_start)),
      on_done_(std::move(on_done)),
      on_fail_(std::move(on_fail)),
      queues_(std::max<std::uint32_t>(1, params.queues_per_engine)),
      nonempty_((queues_.size() + 63) / 64, 0) {
  payload_.set_extension(new DmaRateExtension);
  SC_THREAD(run);
  set_stack_size(kThreadStackBytes);
}

void DmaEngine::enqueue(DmaPart* part) {
  const std::size_t q = part->plan.hw_queue % queues_.size();
  queues_[q].push_back(part);
  nonempty_[q / 64] |= std::uint64_t{1} << (q % 64);
  work_.notify(sc_core::SC_ZERO_TIME);
}

DmaEngineStats DmaEngine::stats() const {
  return {index_, to_ps(busy_)};
}

void DmaEngine::reset() {
  next_queue_ = 0;
  busy_ = sc_core::SC_ZERO_TIME;
}

DmaPart* DmaEngine::next_part(sc_core::sc_time& earliest) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  earliest = sc_core::SC_ZERO_TIME;
  const std::size_t n = queues_.size();
  const std::size_t first = params_.strict_priority ? 0 : next_queue_;
  // The non-empty queues of [begin, end) in order: the head of the first ready one is
  // taken, the others' heads give `earliest`.
  DmaPart* taken = nullptr;
  auto visit = [&](std::size_t begin, std::size_t end) {
    for (std::size_t w = begin / 64; w * 64 < end; ++w) {
      std::uint64_t bits = nonempty_[w];
      if (w == begin / 64) bits &= ~std::uint64_t{0} << (begin % 64);
      if (end - w * 64 < 64) bits &= (std::uint64_t{1} << (end - w * 64)) - 1;
      for (; bits != 0; bits &= bits - 1) {
        const std::size_t q = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
        DmaPart* part = queues_[q].front();
        if (part->ready > now) {
          if (earliest == sc_core::SC_ZERO_TIME || part->ready < earliest) earliest = part->ready;
          continue;
        }
        queues_[q].pop_front();
        if (queues_[q].empty()) nonempty_[w] &= ~(std::uint64_t{1} << (q % 64));
        next_queue_ = (q + 1) % n;
        taken = part;
        return true;
      }
    }
    return false;
  };
  if (!visit(first, n)) visit(0, first);
  return taken;
}

void DmaEngine::move(DmaPart& part) {
  const double cap = params_.engine_bytes_per_ns * part.efficiency;
  const auto bytes = static_cast<double>(part.plan.bytes);
  if (!part.touches_hbm) {
    sc_core::wait(memory::transfer_time(bytes, cap));
    return;
  }
  auto* rate = payload_.get_extension<DmaRateExtension>();
  rate->cap_bytes_per_ns = cap;
  rate->dma_engine = index_;
  rate->applied = false;
  payload_.set_command(part.reads_hbm ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  payload_.set_address(part.hbm_address);
  // The bytes travel in the payload (IEEE 1666-2011 14.17): the part's own range of the
  // core's copy when it holds all of them, else a range of `width` bytes streamed.
  const std::uint64_t width = std::min(part.plan.bytes, part.span);
  std::uint8_t* data = part.host;
  if (!data || width < part.plan.bytes) {
    scratch_.resize(part.plan.bytes);
    if (!part.reads_hbm) {
      if (part.host)
        std::memcpy(scratch_.data(), part.host, width);
      else
        peek(part, width);
      for (std::uint64_t at = width; at < part.plan.bytes; at += width)
        std::memcpy(scratch_.data() + at, scratch_.data(), std::min(width, part.plan.bytes - at));
    }
    data = scratch_.data();
  }
  payload_.set_data_ptr(data);
  payload_.set_data_length(static_cast<unsigned int>(part.plan.bytes));
  payload_.set_streaming_width(static_cast<unsigned int>(width));
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  hbm_.b_transport(payload_, delay);
  if (delay > sc_core::SC_ZERO_TIME) sc_core::wait(delay);
  if (payload_.is_response_error()) {
    std::ostringstream what;
    what << name() << ": HBM " << (part.reads_hbm ? "read" : "write") << " of " << part.plan.bytes
         << " bytes at 0x" << std::hex << part.hbm_address << " failed: the memory answered "
         << payload_.get_response_string();
    throw Error(what.str());
  }
  // A target that does not apply the rate limit is a latency: the part streams at its
  // engine's rate and takes the target's time (its waits and annotated delay) on top.
  if (!rate->applied) sc_core::wait(memory::transfer_time(bytes, cap));
}

void DmaEngine::peek(const DmaPart& part, std::uint64_t bytes) {
  try {
    hbm_.peek(part.hbm_address, scratch_.data(), bytes);
  } catch (const Error& e) {
    std::ostringstream what;
    what << name() << ": HBM write of " << part.plan.bytes << " bytes at 0x" << std::hex
         << part.hbm_address << " failed: a timing-only write carries the bytes already there, "
         << "and the memory did not give them (" << e.what() << ")";
    throw Error(what.str());
  }
}

void DmaEngine::run() {
  for (;;) {
    sc_core::sc_time earliest;
    DmaPart* part = next_part(earliest);
    if (!part) {
      if (earliest == sc_core::SC_ZERO_TIME)
        sc_core::wait(work_);
      else
        sc_core::wait(earliest - sc_core::sc_time_stamp(), work_);
      continue;
    }
    part->start = sc_core::sc_time_stamp();
    try {
      on_start_(*part);
      move(*part);
    } catch (const sc_core::sc_unwind_exception&) {
      throw;
    } catch (...) {
      on_fail_(*part, std::current_exception());  // the part still completes, without effect
    }
    busy_ += sc_core::sc_time_stamp() - part->start;
    on_done_(*part);  // may free the part; never throws
  }
}

}  // namespace neuronsim::engines
