#include "sim/register_block.hpp"

#include <cstring>
#include <sstream>
#include <vector>

#include "base/address_range.hpp"
#include "base/error.hpp"
#include "base/little_endian.hpp"
#include "base/text.hpp"
#include "neff/neff.hpp"
#include "neuronsim/tlm.hpp"
#include "sim/core_state.hpp"

namespace neuronsim::detail {

namespace {

// A NEFF larger than this is refused before it is read: the descriptor comes from the
// host, and the core must not allocate whatever a corrupt size says.
constexpr std::uint64_t kMaxNeffBytes = std::uint64_t{1} << 30;

}  // namespace

std::uint64_t RegisterBlock::read(std::uint64_t offset) const {
  switch (offset) {
    case regs::kId:
      return regs::kIdValue;
    case regs::kDescriptor:
      return descriptor_;
    case regs::kStatus:
      return (core_.core.idle() ? 0 : regs::kStatusBusy) |
             (core_.finished << regs::kStatusFinishedShift);
    case regs::kCycles:
      return cycles_;
    case regs::kIntStatus:
      return int_status_;
    case regs::kIntEnable:
      return int_enable_;
    case regs::kErrorCode:
      return error_code_;
    default:  // kDoorbell reads as 0
      return 0;
  }
}

bool RegisterBlock::write(std::uint64_t offset, std::uint64_t value, std::uint64_t mask,
                          bool side_effects) {
  switch (offset) {
    case regs::kDescriptor:
      descriptor_ = (descriptor_ & ~mask) | (value & mask);
      return true;
    case regs::kDoorbell:
      if (side_effects && (value & mask & 1)) ring();
      return true;
    case regs::kIntStatus:
      int_status_ &= ~(value & mask);  // write 1 to clear
      update_irq();
      return true;
    case regs::kIntEnable:
      int_enable_ = (int_enable_ & ~mask) | (value & mask);
      update_irq();
      return true;
    default:
      return false;  // read-only
  }
}

// 4- or 8-byte accesses, naturally aligned, little-endian; a 4-byte access at +4 is the
// upper half of a 64-bit register.
bool RegisterBlock::access(tlm::tlm_generic_payload& trans, bool side_effects) {
  const std::uint64_t address = trans.get_address();
  const unsigned length = trans.get_data_length();
  std::uint8_t* data = trans.get_data_ptr();
  if (!data || trans.get_byte_enable_ptr() || trans.get_streaming_width() < length) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (range_within(address, length, regs::kErrorText,
                   regs::kErrorText + regs::kErrorTextBytes - 1) &&
      length > 0) {
    if (!trans.is_read()) {
      trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return false;
    }
    for (unsigned i = 0; i < length; ++i) {
      const std::uint64_t at = address - regs::kErrorText + i;
      data[i] = at < error_text_.size() ? static_cast<std::uint8_t>(error_text_[at]) : 0;
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
  }
  if ((length != 4 && length != 8) || address % length != 0 || address >= regs::kErrorCode + 8 ||
      address + length > regs::kErrorCode + 8) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  const std::uint64_t offset = address & ~std::uint64_t{7};
  const unsigned shift = static_cast<unsigned>(address - offset) * 8;
  const std::uint64_t mask = length == 8 ? ~std::uint64_t{0} : (std::uint64_t{0xffffffff} << shift);
  if (trans.is_read()) {
    store_le(data, (read(offset) & mask) >> shift, length);
  } else if (trans.is_write()) {
    const std::uint64_t v = load_le(data, length);
    if (!write(offset, v << shift, mask, side_effects)) {
      trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return false;
    }
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void RegisterBlock::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  // A temporally decoupled host's access happens at its local time (IEEE 1666-2011 14.11:
  // the target may wait): the doorbell launches then, and status reads see that moment.
  if (delay > sc_core::SC_ZERO_TIME) {
    sc_core::wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  access(trans, true);
}

unsigned int RegisterBlock::transport_dbg(tlm::tlm_generic_payload& trans) {
  return access(trans, false) ? trans.get_data_length() : 0;
}

void RegisterBlock::ring() {
  const std::uint64_t at = descriptor_;
  const std::string where = std::string(core_.core.name()) + ": descriptor at " + hex(at);
  LaunchRequest request;
  std::uint64_t stage = regs::kErrorDescriptor;
  try {
    std::uint8_t header[descriptor::kHeaderBytes];
    core_.debug_read(at, header, sizeof header);
    if (load_le32(header) != descriptor::kMagic) throw Error(where + ": bad magic");
    if (load_le32(header + 4) != descriptor::kVersion)
      throw Error(where + ": version " + std::to_string(load_le32(header + 4)) + ", expected 1");
    const std::uint64_t neff_address = load_le64(header + 8), neff_bytes = load_le64(header + 16);
    const std::uint32_t count = load_le32(header + 24);
    if (neff_bytes == 0 || neff_bytes > kMaxNeffBytes)
      throw Error(where + ": NEFF size " + std::to_string(neff_bytes) + " is not in 1.." +
                  std::to_string(kMaxNeffBytes));
    if (count > descriptor::kMaxTensors)
      throw Error(where + ": " + std::to_string(count) + " tensors, at most " +
                  std::to_string(descriptor::kMaxTensors));
    // The table and the NEFF are read at the host's addresses: neither may wrap.
    std::uint64_t last = 0;
    if (!range_last(at, descriptor::kHeaderBytes + std::uint64_t{count} * 8, last))
      throw Error(where + ": the tensor table runs past the end of the 64-bit address space");
    if (!range_last(neff_address, neff_bytes, last))
      throw Error(where + ": the NEFF at " + hex(neff_address) + " (" + std::to_string(neff_bytes) +
                  " bytes) runs past the end of the 64-bit address space");
    std::vector<std::uint8_t> table(std::size_t{count} * 8);
    core_.debug_read(at + descriptor::kHeaderBytes, table.data(), table.size());
    std::vector<std::uint8_t> neff_bytes_read(neff_bytes);
    core_.debug_read(neff_address, neff_bytes_read.data(), neff_bytes);
    stage = regs::kErrorNeff;
    const std::string source = where + " (NEFF at " + hex(neff_address) + ")";
    auto kernel = std::make_shared<const isa::Kernel>(neff::read(neff_bytes_read, source).kernel);
    if (kernel->tensors.size() != count)
      throw Error(source + ": the descriptor lists " + std::to_string(count) +
                  " tensor addresses, the kernel has " + std::to_string(kernel->tensors.size()) +
                  " tensors");
    for (std::uint32_t i = 0; i < count; ++i)
      request.tensor_addresses[kernel->tensors[i].name] = load_le64(table.data() + 8 * i);
    request.kernel = std::move(kernel);
    request.source = source;
    request.collect_outputs = false;
    request.on_done = [this](const LaunchResult& r) { launch_finished(r, true); };
    core_.launch(std::move(request));
  } catch (const std::exception& e) {
    SC_REPORT_WARNING("neuronsim", e.what());
    refusal_code_ = stage;
    refusal_reason_ = e.what();
    if (sc_core::sc_is_running())
      refused_.notify(sc_core::SC_ZERO_TIME);
    else
      report_refusal();  // before the simulation starts there is no delta to lose
  }
}

void RegisterBlock::reset() {
  descriptor_ = int_status_ = int_enable_ = error_code_ = cycles_ = 0;
  error_text_.clear();
  update_irq();
}

void RegisterBlock::report_refusal() {
  raise(regs::kIntDone | regs::kIntError, refusal_code_, refusal_reason_);
}

void RegisterBlock::launch_finished(const LaunchResult& result, bool from_doorbell) {
  cycles_ = result.neuroncore_cycle_count;
  if (!from_doorbell) return;
  if (result.ok())
    raise(regs::kIntDone, regs::kErrorNone, "");
  else
    raise(regs::kIntDone | regs::kIntError, regs::kErrorRun, result.error);
}

void RegisterBlock::raise(std::uint64_t bits, std::uint64_t error_code, const std::string& reason) {
  int_status_ |= bits;
  if (error_code != regs::kErrorNone) {
    error_code_ = error_code;
    error_text_ = reason.substr(0, regs::kErrorTextBytes - 1);
  }
  update_irq();
}

void RegisterBlock::update_irq() {
  core_.core.irq.write((int_status_ & int_enable_) != 0);
}

}  // namespace neuronsim::detail
