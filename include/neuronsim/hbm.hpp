#pragma once
// neuronsim::Hbm: the bundled HBM model, a TLM-2.0 target (docs/embedding.md). Every
// initiator bound to `socket` is a port of its own. Bandwidth is shared max-min fairly
// between the ports, each taking at most the per-core share of the target config
// (dma.hbm_bytes_per_ns), and within a port between its transfers, each at most its
// DmaRateExtension cap; all ports together take at most the chip's bandwidth
// (hbm.chip_bandwidth_gbps). A transfer's bytes take as long as the rate they get,
// recomputed whenever a transfer starts or ends (event-driven, no ticking).
// Storage comes in 64 MiB chunks mapped when first touched (a run needs no reservation of
// the whole capacity); b_transport moves the bytes its payload carries (the base
// protocol), DMI grants one chunk at a time, transport_dbg reads and writes.
#include <cstdint>
#include <memory>
#include <string>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "neuronsim/tlm.hpp"

// Declared only: the model (memory/hbm.cpp) reads the params/ structs, never the target
// config; the constructor from a config (sim/hbm_config.cpp) hands it those. Include
// <neuronsim/config.hpp> for TargetConfig itself.
namespace neuronsim::config {
struct TargetConfig;
}  // namespace neuronsim::config
namespace neuronsim::params {
struct DmaParams;
struct HbmParams;
}  // namespace neuronsim::params

namespace neuronsim {

using config::TargetConfig;

namespace detail {
class HbmState;
}  // namespace detail

class Hbm : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Hbm> socket;

  // Storage is mapped in chunks of this many bytes when first touched, and a DMI grant is one
  // chunk. The chunks lie side by side in the host's memory when the whole capacity's
  // address space could be reserved (no memory is taken for it), so a core serves a tensor
  // across chunks with one pointer; under an address-space limit (ulimit -v) that refuses
  // the reservation, each chunk is mapped on its own and a tensor across two is staged by
  // the core. A simulator's storage choice, not a hardware number: large enough that
  // a kernel's tensors rarely cross a chunk, small enough that the eight windows of a trn2
  // Device touch 8 x 64 MiB (a run under ulimit -v 4194304).
  static constexpr std::uint64_t kChunkBytes = std::uint64_t{64} << 20;

  // Capacity and bandwidths from `config` (hbm.*, dma.hbm_bytes_per_ns).
  Hbm(sc_core::sc_module_name name, const TargetConfig& config);
  ~Hbm() override;

  std::uint64_t size() const;  // bytes
  // Backdoor access without time, for loaders and checkers (what transport_dbg does).
  // Throws neuronsim::Error for a range outside the HBM.
  void write(std::uint64_t address, const std::uint8_t* data, std::uint64_t bytes);
  void read(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) const;
  // Bytes moved through b_transport on port `port` (its binding order), by command.
  std::uint64_t bytes_read(unsigned port) const;
  std::uint64_t bytes_written(unsigned port) const;
  // Which figures it shares bandwidth by: its own target config's, for every port. A core
  // of another NeuronCore generation bound to it gets these, not its own target's: the
  // Hbm says so once per port (SC_REPORT_WARNING "neuronsim/hbm", with this text).
  std::string figures() const;
  const char* kind() const override { return "neuronsim::Hbm"; }

 private:
  // The model's own constructor: `target` and `generation` name the config in errors and
  // in figures().
  Hbm(sc_core::sc_module_name name, const std::string& target, const std::string& generation,
      const params::HbmParams& hbm, const params::DmaParams& dma);
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int port, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int port, tlm::tlm_generic_payload& trans);

  std::unique_ptr<detail::HbmState> state_;
};

}  // namespace neuronsim
