// A core's HBM window at the end of elaboration (sim/core_state.hpp): sized from the bound
// memory when CoreOptions left it open, and refused when it overlaps another core's window
// in the same memory (two bare cores on one memory would otherwise place their tensors at
// the same addresses and overwrite each other's).
#include <algorithm>
#include <map>
#include <vector>

#include "base/address_range.hpp"
#include "base/error.hpp"
#include "base/text.hpp"
#include "sim/core_state.hpp"

namespace neuronsim::detail {

namespace {

// The cores of each simulation context whose windows are settled, in elaboration order.
std::map<const sc_core::sc_simcontext*, std::vector<CoreState*>>& settled_cores() {
  static auto* cores = new std::map<const sc_core::sc_simcontext*, std::vector<CoreState*>>();
  return *cores;
}

}  // namespace

bool CoreState::probe_readable(std::uint64_t address) {
  std::uint8_t byte = 0;
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(address);
  trans.set_data_ptr(&byte);
  trans.set_data_length(1);
  trans.set_streaming_width(1);
  return hbm_transport_dbg(trans) == 1;
}

const std::uint8_t* CoreState::probe_dmi(std::uint64_t address) {
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(address);
  tlm::tlm_dmi dmi;
  if (!hbm_direct_mem_ptr(trans, dmi) || !dmi.get_dmi_ptr() ||
      !range_within(address, 1, dmi.get_start_address(), dmi.get_end_address()))
    return nullptr;
  return dmi.get_dmi_ptr() + (address - dmi.get_start_address());
}

void CoreState::end_of_elaboration() {
  const std::string me = core.name();
  const std::uint64_t base = options.hbm_window_base;
  if (!window_known) {
    // The memory's extent from the base: the last byte that still reads, found by doubling
    // and then halving the distance (about 2 x 64 one-byte debug reads; a memory with holes
    // should be given an explicit window).
    if (!probe_readable(base))
      throw Error(me +
                  ": the memory bound to hbm does not answer a debug read at the window "
                  "base " +
                  hex(base) + "; give CoreOptions::hbm_window_bytes");
    const std::uint64_t most = UINT64_MAX - base;  // the farthest offset there is
    std::uint64_t good = 0, bad = 0;               // offsets: readable; not (0: not found)
    for (std::uint64_t step = 1; bad == 0 && good<most; step = step> most / 2 ? most : step * 2) {
      if (probe_readable(base + step))
        good = step;
      else
        bad = step;
    }
    while (bad != 0 && bad - good > 1) {
      const std::uint64_t mid = good + (bad - good) / 2;
      (probe_readable(base + mid) ? good : bad) = mid;
    }
    window_last = base + good;
    window_known = true;
  }
  auto& cores = settled_cores()[sc_core::sc_get_curr_simcontext()];
  for (CoreState* other : cores) {
    const std::uint64_t first = std::max(base, other->options.hbm_window_base);
    if (!ranges_overlap(base, window_last, other->options.hbm_window_base, other->window_last))
      continue;
    if (options.share_window && other->options.share_window) continue;
    // The same memory exactly when both are granted DMI to the same host byte; a memory
    // that grants no DMI cannot be told apart, so it counts as the same.
    const std::uint8_t *mine = probe_dmi(first), *theirs = other->probe_dmi(first);
    if (mine && theirs && mine != theirs) continue;
    throw Error(me + ": its HBM window [" + hex(base) + ", " + hex(window_last) + "] overlaps " +
                other->core.name() + "'s [" + hex(other->options.hbm_window_base) + ", " +
                hex(other->window_last) +
                "] in the same memory: give each core its own "
                "CoreOptions::hbm_window_base and hbm_window_bytes, or set share_window on both");
  }
  cores.push_back(this);
}

CoreState::~CoreState() {
  for (auto it = settled_cores().begin(); it != settled_cores().end();) {
    auto& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), this), v.end());
    it = v.empty() ? settled_cores().erase(it) : std::next(it);
  }
}

}  // namespace neuronsim::detail
