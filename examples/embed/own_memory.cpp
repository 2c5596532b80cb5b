// `embed memory KERNEL.neff`: one NeuronCore on a memory model of this program's own, the
// kind a platform already has: a byte array behind a simple_target_socket whose
// b_transport copies through the payload's data pointer (the TLM-2.0 base protocol) and
// annotates a fixed latency, with no DMI and no knowledge of neuronsim's extensions. The
// core stages its tensors through transport_dbg and its DMA parts carry their bytes; the
// output matches the other scenarios'.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "embed.hpp"

namespace embed {
namespace {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Memory(sc_core::sc_module_name name, std::uint64_t bytes, sc_core::sc_time latency)
      : sc_module(name), socket("socket"), bytes_(bytes), latency_(latency) {
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
  }
  std::uint64_t transactions() const { return transactions_; }

 private:
  bool in_range(std::uint64_t address, std::uint64_t n) const {
    return address <= bytes_.size() && n <= bytes_.size() - address;
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const std::uint64_t n = t.get_data_length(), width = t.get_streaming_width();
    if (!t.get_data_ptr() || width == 0 || !in_range(t.get_address(), width) ||
        t.get_byte_enable_ptr()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    std::uint8_t* mine = bytes_.data() + t.get_address();
    for (std::uint64_t at = 0; at < n; at += width) {  // streaming: the window repeats
      const std::uint64_t k = std::min(width, n - at);
      if (t.is_read()) std::memcpy(t.get_data_ptr() + at, mine, k);
      if (t.is_write()) std::memcpy(mine, t.get_data_ptr() + at, k);
    }
    ++transactions_;
    delay += latency_;
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) {
    if (!t.get_data_ptr() || !in_range(t.get_address(), t.get_data_length())) return 0;
    std::uint8_t* mine = bytes_.data() + t.get_address();
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mine, t.get_data_length());
    if (t.is_write()) std::memcpy(mine, t.get_data_ptr(), t.get_data_length());
    return t.get_data_length();
  }

  std::vector<std::uint8_t> bytes_;
  sc_core::sc_time latency_;
  std::uint64_t transactions_ = 0;
};

}  // namespace

int run_own_memory(const std::string& neff_path) {
  const auto kernel = neuronsim::load_neff(neff_path);
  const neuronsim::TargetConfig config = neuronsim::load_target(kernel->target);
  // Room for every tensor on its own 4 KiB page: the core's window is this memory's size.
  std::uint64_t bytes = 0;
  for (const auto& t : kernel->tensors)
    bytes += (t.bytes() + 4095) / 4096 * 4096;
  Memory memory("memory", bytes, sc_core::SC_ZERO_TIME);
  neuronsim::NeuronCore core("core", config);
  core.hbm.bind(memory.socket);

  neuronsim::LaunchRequest request;
  request.kernel = kernel;
  request.source = neff_path;
  for (const auto& t : kernel->tensors)
    if (t.role == neuronsim::isa::TensorRole::input) request.inputs[t.name] = fill(t);
  const neuronsim::LaunchHandle launch = core.launch(std::move(request));
  sc_core::sc_start();

  const neuronsim::LaunchResult& r = launch->result();
  if (!r.ok()) {
    std::cerr << "embed: memory: " << r.error << "\n";
    return 1;
  }
  std::cout << std::fixed << std::setprecision(3) << "memory: " << config.name << " core on a "
            << bytes << "-byte memory of its own (no DMI): " << r.total_ns << " ns, "
            << memory.transactions() << " transactions";
  for (const auto& t : kernel->tensors)
    if (r.outputs.count(t.name))
      std::cout << "; output " << t.name << " " << summarise(t, r.outputs.at(t.name)).text();
  std::cout << "\n";
  return 0;
}

}  // namespace embed
