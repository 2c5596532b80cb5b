// `embed regs KERNEL.neff`: a host drives one NeuronCore the way a driver would, through
// memory, registers and an interrupt line only (neuronsim/tlm.hpp has the register map
// and the kernel descriptor format). It puts the NEFF, the input tensors and a kernel
// descriptor in HBM, writes the descriptor's address, rings the doorbell, sleeps until
// irq rises, reads the status and the cycle count, clears the interrupt and reads the
// outputs back. It never calls the core: it only reads the NEFF file for the kernel's
// tensor list (names, sizes, roles, the descriptor's order).
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "embed.hpp"

namespace embed {
namespace {

namespace regs = neuronsim::regs;
namespace descriptor = neuronsim::descriptor;
using neuronsim::isa::TensorRole;

void put_le(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint64_t value, int size) {
  for (int i = 0; i < size; ++i)
    bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

class RegisterHost : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<RegisterHost> reg_socket;  // to the core's `regs`
  tlm_utils::simple_initiator_socket<RegisterHost> hbm_socket;  // to the Hbm's `socket`
  sc_core::sc_in<bool> irq;                                     // the core's `irq`
  // Why the run failed; empty once it has succeeded.
  std::string error;

  SC_HAS_PROCESS(RegisterHost);
  RegisterHost(sc_core::sc_module_name name, std::vector<std::uint8_t> neff,
               const neuronsim::Kernel& kernel)
      : sc_module(name),
        reg_socket("reg_socket"),
        hbm_socket("hbm_socket"),
        irq("irq"),
        neff_(std::move(neff)),
        kernel_(kernel) {
    SC_THREAD(run);
  }

 private:
  void run() {
    error = "did not finish";
    try {
      drive();
      error.clear();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }

  void drive() {
    // HBM layout, each piece on a 4 KiB boundary: NEFF, descriptor, every tensor.
    std::uint64_t next = 0;
    auto place = [&](std::uint64_t bytes) {
      const std::uint64_t at = next;
      next = (at + bytes + 4095) / 4096 * 4096;
      return at;
    };
    const auto& tensors = kernel_.tensors;
    const std::uint64_t neff_at = place(neff_.size());
    const std::uint64_t descriptor_at = place(descriptor::kHeaderBytes + 8 * tensors.size());
    std::vector<std::uint64_t> tensor_at;
    for (const auto& t : tensors)
      tensor_at.push_back(place(t.bytes()));

    write_memory(neff_at, neff_);
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].role == TensorRole::input) write_memory(tensor_at[i], fill(tensors[i]));
    std::vector<std::uint8_t> d(descriptor::kHeaderBytes + 8 * tensors.size());
    put_le(d, 0, descriptor::kMagic, 4);
    put_le(d, 4, descriptor::kVersion, 4);
    put_le(d, 8, neff_at, 8);
    put_le(d, 16, neff_.size(), 8);
    put_le(d, 24, tensors.size(), 4);
    for (std::size_t i = 0; i < tensors.size(); ++i)
      put_le(d, descriptor::kHeaderBytes + 8 * i, tensor_at[i], 8);
    write_memory(descriptor_at, d);
    std::cout << "regs: NEFF (" << neff_.size() << " bytes) at 0x0, descriptor at 0x" << std::hex
              << descriptor_at << std::dec << ", " << tensors.size() << " tensors up to 0x"
              << std::hex << next << std::dec << "\n";

    if (read_register(regs::kId) != regs::kIdValue) throw std::runtime_error("not a NeuronCore");
    write_register(regs::kDescriptor, descriptor_at);
    write_register(regs::kIntEnable, regs::kIntDone | regs::kIntError);
    const sc_core::sc_time rung = sc_core::sc_time_stamp();
    write_register(regs::kDoorbell, 1);
    if (!irq.read()) wait(irq.posedge_event());

    const std::uint64_t status = read_register(regs::kIntStatus);
    const std::uint64_t cycles = read_register(regs::kCycles);
    const std::uint64_t error_code = read_register(regs::kErrorCode);
    const std::uint64_t launches = read_register(regs::kStatus) >> regs::kStatusFinishedShift;
    std::cout << "regs: irq after " << std::fixed << std::setprecision(3)
              << (sc_core::sc_time_stamp() - rung).to_seconds() * 1e9 << " ns: int_status 0x"
              << std::hex << status << std::dec << ", error_code " << error_code << ", cycles "
              << cycles << ", launches finished " << launches << "\n";
    write_register(regs::kIntStatus, status);  // write 1 to clear
    wait(sc_core::SC_ZERO_TIME);               // irq follows in the next delta
    std::cout << "regs: interrupt cleared, irq " << (irq.read() ? "still high" : "low") << "\n";
    if (status != regs::kIntDone || error_code != regs::kErrorNone || irq.read())
      throw std::runtime_error("the launch failed (error code " + std::to_string(error_code) + ")");

    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (tensors[i].role != TensorRole::output) continue;
      std::vector<std::uint8_t> bytes(tensors[i].bytes());
      read_memory(tensor_at[i], bytes);
      std::cout << "regs: output " << describe(tensors[i]) << ": "
                << summarise(tensors[i], bytes).text() << "\n";
    }
  }

  // Registers: timed accesses (the core's block answers with no delay).
  void access_register(tlm::tlm_command command, std::uint64_t offset, std::uint8_t* data) {
    tlm::tlm_generic_payload trans;
    trans.set_command(command);
    trans.set_address(offset);
    trans.set_data_ptr(data);
    trans.set_data_length(8);
    trans.set_streaming_width(8);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    reg_socket->b_transport(trans, delay);
    if (trans.is_response_error())
      throw std::runtime_error("register access at " + std::to_string(offset) + ": " +
                               trans.get_response_string());
    wait(delay);
  }
  std::uint64_t read_register(std::uint64_t offset) {
    std::uint8_t data[8];
    access_register(tlm::TLM_READ_COMMAND, offset, data);
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i)
      value = (value << 8) | data[i];
    return value;
  }
  void write_register(std::uint64_t offset, std::uint64_t value) {
    std::uint8_t data[8];
    for (int i = 0; i < 8; ++i)
      data[i] = static_cast<std::uint8_t>(value >> (8 * i));
    access_register(tlm::TLM_WRITE_COMMAND, offset, data);
  }

  // Memory: debug transport, as a loader does (no simulated time).
  void access_memory(tlm::tlm_command command, std::uint64_t address, std::uint8_t* data,
                     std::uint64_t bytes) {
    tlm::tlm_generic_payload trans;
    trans.set_command(command);
    trans.set_address(address);
    trans.set_data_ptr(data);
    trans.set_data_length(static_cast<unsigned int>(bytes));
    trans.set_streaming_width(static_cast<unsigned int>(bytes));
    if (hbm_socket->transport_dbg(trans) != bytes)
      throw std::runtime_error("HBM access of " + std::to_string(bytes) + " bytes at " +
                               std::to_string(address) + " failed");
  }
  void write_memory(std::uint64_t address, std::vector<std::uint8_t> bytes) {
    access_memory(tlm::TLM_WRITE_COMMAND, address, bytes.data(), bytes.size());
  }
  void read_memory(std::uint64_t address, std::vector<std::uint8_t>& bytes) {
    access_memory(tlm::TLM_READ_COMMAND, address, bytes.data(), bytes.size());
  }

  std::vector<std::uint8_t> neff_;
  const neuronsim::Kernel& kernel_;
};

}  // namespace

int run_register_host(const std::string& neff_path) {
  std::ifstream file(neff_path, std::ios::binary);
  if (!file) throw std::runtime_error(neff_path + ": cannot open");
  std::vector<std::uint8_t> neff(std::istreambuf_iterator<char>(file), {});
  const auto kernel = neuronsim::load_neff(neff_path);  // for its tensor list
  const neuronsim::TargetConfig config = neuronsim::load_target(kernel->target);

  neuronsim::Hbm hbm("hbm", config);
  neuronsim::NeuronCore core("core", config);
  RegisterHost host("host", std::move(neff), *kernel);
  core.hbm.bind(hbm.socket);         // HBM port 0
  host.hbm_socket.bind(hbm.socket);  // HBM port 1
  host.reg_socket.bind(core.regs);
  host.irq.bind(core.irq);

  sc_core::sc_start();  // returns when the host is done and the core idle
  std::cout << "regs: " << config.name << " core, kernel '" << kernel->name << "', simulated time "
            << sc_core::sc_time_stamp().to_seconds() * 1e9 << " ns, the core's HBM traffic "
            << hbm.bytes_read(0) << " bytes read, " << hbm.bytes_written(0) << " written\n";
  if (!host.error.empty()) {
    std::cerr << "embed: regs: " << host.error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace embed
