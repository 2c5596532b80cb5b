// The bundled HBM model (include/neuronsim/hbm.hpp).
#include "neuronsim/hbm.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/address_range.hpp"
#include "base/error.hpp"
#include "memory/address_reservation.hpp"
#include "memory/bandwidth_share.hpp"
#include "memory/lazy_bytes.hpp"
#include "params/dma_params.hpp"
#include "params/hbm_params.hpp"

namespace neuronsim {

namespace detail {

// Untouched chunks read as zero and cost no address space (Hbm::kChunkBytes).
constexpr std::uint64_t kChunkBytes = Hbm::kChunkBytes;

class HbmState {
 public:
  HbmState(const std::string& target, const std::string& generation, const params::HbmParams& hbm,
           const params::DmaParams& dma)
      : size(hbm.capacity_bytes),
        target(target),
        generation(generation),
        port_bytes_per_ns(dma.hbm_bytes_per_ns),
        chip_bytes_per_ns(hbm.chip_bytes_per_ns),
        share("bandwidth", hbm.chip_bytes_per_ns, dma.hbm_bytes_per_ns) {
    if (size == 0) throw Error("config '" + target + "': hbm.capacity_bytes must be positive");
  }

  bool in_range(std::uint64_t address, std::uint64_t length) const {
    return range_fits(address, length, size);
  }
  std::uint64_t chunk_size(std::uint64_t c) const {
    return std::min(kChunkBytes, size - c * kChunkBytes);
  }
  // Chunk c (c * kChunkBytes < size), mapped if it was not.
  std::uint8_t* chunk(std::uint64_t c) {
    if (std::uint8_t* p = mapped(c)) return p;
    std::uint8_t* at = reservation.base() ? reservation.base() + c * kChunkBytes : nullptr;
    return (chunks[c] =
                at ? memory::LazyBytes(chunk_size(c), at) : memory::LazyBytes(chunk_size(c)))
        .data();
  }
  std::uint8_t* mapped(std::uint64_t c) {
    auto it = chunks.find(c);
    return it == chunks.end() ? nullptr : it->second.data();
  }
  // Calls f(chunk pointer or null when untouched, offset into the range, bytes) for each
  // chunk piece of [address, address + length), which is in range.
  template <typename F>
  void pieces(std::uint64_t address, std::uint64_t length, bool touch, F&& f) {
    for (std::uint64_t done = 0; done < length;) {
      const std::uint64_t at = address + done;
      const std::uint64_t c = at / kChunkBytes;
      const std::uint64_t in = at % kChunkBytes;
      const std::uint64_t n = std::min(length - done, chunk_size(c) - in);
      std::uint8_t* base = touch ? chunk(c) : mapped(c);
      f(base ? base + in : nullptr, done, n);
      done += n;
    }
  }
  void store(std::uint64_t address, const std::uint8_t* from, std::uint64_t length) {
    pieces(address, length, true, [&](std::uint8_t* to, std::uint64_t off, std::uint64_t n) {
      if (to != from + off) std::memcpy(to, from + off, n);  // DMI data is already in place
    });
  }
  void load(std::uint64_t address, std::uint8_t* to, std::uint64_t length) {
    pieces(address, length, false, [&](std::uint8_t* from, std::uint64_t off, std::uint64_t n) {
      if (!from)
        std::memset(to + off, 0, n);
      else if (from != to + off)
        std::memcpy(to + off, from, n);
    });
  }
  std::uint64_t& counter(std::vector<std::uint64_t>& v, unsigned port) {
    if (v.size() <= port) v.resize(port + 1);
    return v[port];
  }

  std::uint64_t size;
  std::string target, generation;
  double port_bytes_per_ns, chip_bytes_per_ns;
  std::vector<bool> foreign_port_told;  // by port: warned of a core of another generation
  // The whole capacity's address space, so that chunk c is mapped at base + c * kChunkBytes
  // and chunks next to each other serve one DMI range (memory/address_reservation.hpp);
  // declared before the chunks, which give their ranges back to it when destroyed.
  memory::AddressReservation reservation{static_cast<std::size_t>(size)};
  // The chunks touched so far, by number (a map: a capacity of up to 2^64 bytes costs
  // nothing for the chunks never touched).
  std::unordered_map<std::uint64_t, memory::LazyBytes> chunks;
  memory::BandwidthShare share;
  std::vector<std::uint64_t> read, written;
  // Completion events of b_transport calls, reused: one is taken per call and given back
  // once it has fired (no event made and destroyed per DMA part).
  std::vector<std::unique_ptr<sc_core::sc_event>> events;
};

}  // namespace detail

Hbm::Hbm(sc_core::sc_module_name name, const std::string& target, const std::string& generation,
         const params::HbmParams& hbm, const params::DmaParams& dma)
    : sc_module(name),
      socket("socket"),
      state_(std::make_unique<detail::HbmState>(target, generation, hbm, dma)) {
  socket.register_b_transport(this, &Hbm::b_transport);
  socket.register_get_direct_mem_ptr(this, &Hbm::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Hbm::transport_dbg);
}

Hbm::~Hbm() = default;

std::uint64_t Hbm::size() const {
  return state_->size;
}

void Hbm::write(std::uint64_t address, const std::uint8_t* data, std::uint64_t bytes) {
  if (!state_->in_range(address, bytes))
    throw Error(std::string(name()) + ": write of " + std::to_string(bytes) + " bytes at " +
                std::to_string(address) + " is outside the HBM");
  state_->store(address, data, bytes);
}

void Hbm::read(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) const {
  if (!state_->in_range(address, bytes))
    throw Error(std::string(name()) + ": read of " + std::to_string(bytes) + " bytes at " +
                std::to_string(address) + " is outside the HBM");
  state_->load(address, data, bytes);
}

std::uint64_t Hbm::bytes_read(unsigned port) const {
  return port < state_->read.size() ? state_->read[port] : 0;
}

std::uint64_t Hbm::bytes_written(unsigned port) const {
  return port < state_->written.size() ? state_->written[port] : 0;
}

void Hbm::b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  auto& s = *state_;
  const std::uint64_t length = trans.get_data_length();
  if (!s.in_range(trans.get_address(), length)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // The base protocol (IEEE 1666-2011 14.17): the data travels in the payload.
  if (!trans.get_data_ptr() || length == 0) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  const std::uint64_t width = trans.get_streaming_width();
  if (width == 0 || width > length || !s.in_range(trans.get_address(), width)) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const auto p = static_cast<unsigned>(port);
  if (trans.is_read()) s.counter(s.read, p) += length;
  if (trans.is_write()) s.counter(s.written, p) += length;
  // Catch up with the initiator's local time first: bandwidth is shared in real time.
  if (delay > sc_core::SC_ZERO_TIME) {
    sc_core::wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  auto* rate = trans.get_extension<DmaRateExtension>();
  if (rate && rate->initiator_generation && s.generation != rate->initiator_generation) {
    if (s.foreign_port_told.size() <= p) s.foreign_port_told.resize(p + 1);
    if (!s.foreign_port_told[p]) {
      s.foreign_port_told[p] = true;
      SC_REPORT_WARNING(
          "neuronsim/hbm",
          (std::string(name()) + ": port " + std::to_string(p) + " carries the traffic of a " +
           rate->initiator_target + " (" + rate->initiator_generation + ") core; " + figures())
              .c_str());
    }
  }
  if (s.events.empty()) s.events.push_back(std::make_unique<sc_core::sc_event>());
  std::unique_ptr<sc_core::sc_event> done = std::move(s.events.back());
  s.events.pop_back();
  memory::BandwidthShare::Flow flow;
  flow.remaining_bytes = static_cast<double>(length);
  flow.cap_bytes_per_ns = rate && rate->cap_bytes_per_ns > 0 ? rate->cap_bytes_per_ns
                          : s.port_bytes_per_ns > 0          ? s.port_bytes_per_ns
                                                             : 1.0e9;  // no limit at all
  flow.port = p;
  flow.done = done.get();
  s.share.start(flow);
  sc_core::wait(*done);
  s.events.push_back(std::move(done));
  if (rate) rate->applied = true;
  // The bytes move when the transfer's time is up; a streaming width below the length
  // repeats the window [address, address + width) (14.17).
  for (std::uint64_t done = 0; done < length; done += width) {
    const std::uint64_t n = std::min(width, length - done);
    if (trans.is_read()) s.load(trans.get_address(), trans.get_data_ptr() + done, n);
    if (trans.is_write()) s.store(trans.get_address(), trans.get_data_ptr() + done, n);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::string Hbm::figures() const {
  const auto& s = *state_;
  std::ostringstream m;
  m << "this Hbm gives every port the figures of " << s.target << " (" << s.generation
    << "): at most " << s.port_bytes_per_ns << " bytes/ns per port (dma.hbm_bytes_per_ns), "
    << s.chip_bytes_per_ns << " bytes/ns in all (hbm.chip_bandwidth_gbps), " << s.size
    << " bytes (hbm.capacity_bytes)";
  return m.str();
}

bool Hbm::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  auto& s = *state_;
  if (trans.get_address() >= s.size) return false;
  // One chunk per grant: storage is mapped chunk by chunk (kChunkBytes).
  const std::uint64_t c = trans.get_address() / kChunkBytes;
  dmi.set_dmi_ptr(s.chunk(c));
  dmi.set_start_address(c * kChunkBytes);
  dmi.set_end_address(c * kChunkBytes + s.chunk_size(c) - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  trans.set_dmi_allowed(true);
  return true;
}

unsigned int Hbm::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  auto& s = *state_;
  const std::uint64_t address = trans.get_address();
  const std::uint64_t length = trans.get_data_length();
  if (!s.in_range(address, length) || !trans.get_data_ptr()) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (trans.is_read())
    s.load(address, trans.get_data_ptr(), length);
  else if (trans.is_write())
    s.store(address, trans.get_data_ptr(), length);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned int>(length);
}

}  // namespace neuronsim
