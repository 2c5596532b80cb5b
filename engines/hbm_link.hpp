#pragma once
// How a core's DMA engines reach HBM: the core forwards these transactions to its TLM-2.0
// initiator socket (include/neuronsim/tlm.hpp says what they carry).
#include <cstdint>

#include <systemc>
#include <tlm>

namespace neuronsim::engines {

class HbmLink {
 public:
  virtual ~HbmLink() = default;
  virtual void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) = 0;
  // The memory's bytes at [address, address + bytes), without time (transport_dbg): what a
  // timing-only launch's writes carry, so that they leave the memory as it was. Throws
  // neuronsim::Error when the memory does not answer.
  virtual void peek(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) = 0;
};

}  // namespace neuronsim::engines
