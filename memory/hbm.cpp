// The bundled HBM model (include/neuronsim/hbm.hpp).
#include "neuronsim/hbm.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "memory/bandwidth_share.hpp"

namespace neuronsim {

namespace detail {

class HbmState {
 public:
  HbmState(const config::TargetConfig& config)
      : size(config.hbm_bytes),
        port_bytes_per_ns(config.dma.hbm_bytes_per_ns),
        share("bandwidth", config.hbm_chip_bytes_per_ns, config.dma.hbm_bytes_per_ns) {
    if (size == 0) throw Error("config '" + config.name + "': hbm.capacity_bytes must be positive");
    // Reserved, not committed: untouched pages cost nothing and read as zero.
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw Error("hbm: cannot reserve " + std::to_string(size) +
                  " bytes of address space for the target's HBM: " + std::strerror(errno));
    data = static_cast<unsigned char*>(p);
  }
  ~HbmState() { ::munmap(data, size); }
  HbmState(const HbmState&) = delete;
  HbmState& operator=(const HbmState&) = delete;

  bool in_range(std::uint64_t address, std::uint64_t length) const {
    return address <= size && length <= size - address;
  }
  std::uint64_t& counter(std::vector<std::uint64_t>& v, unsigned port) {
    if (v.size() <= port) v.resize(port + 1);
    return v[port];
  }

  std::uint64_t size;
  double port_bytes_per_ns;
  unsigned char* data = nullptr;
  memory::BandwidthShare share;
  std::vector<std::uint64_t> read, written;
  // Completion events of b_transport calls, reused: one is taken per call and given back
  // once it has fired (no event made and destroyed per DMA part).
  std::vector<std::unique_ptr<sc_core::sc_event>> events;
};

}  // namespace detail

Hbm::Hbm(sc_core::sc_module_name name, const config::TargetConfig& config)
    : sc_module(name), socket("socket"), state_(std::make_unique<detail::HbmState>(config)) {
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
  std::memcpy(state_->data + address, data, bytes);
}

void Hbm::read(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) const {
  if (!state_->in_range(address, bytes))
    throw Error(std::string(name()) + ": read of " + std::to_string(bytes) + " bytes at " +
                std::to_string(address) + " is outside the HBM");
  std::memcpy(data, state_->data + address, bytes);
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
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
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
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Hbm::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  auto& s = *state_;
  if (trans.get_address() >= s.size) return false;
  dmi.set_dmi_ptr(s.data);
  dmi.set_start_address(0);
  dmi.set_end_address(s.size - 1);
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
    std::memcpy(trans.get_data_ptr(), s.data + address, length);
  else if (trans.is_write())
    std::memcpy(s.data + address, trans.get_data_ptr(), length);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned int>(length);
}

}  // namespace neuronsim
