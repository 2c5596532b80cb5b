#pragma once
// How a core's DMA engines reach HBM: the core forwards these transactions to its TLM-2.0
// initiator socket (include/neuronsim/tlm.hpp says what they carry).
#include <systemc>
#include <tlm>

namespace neuronsim::engines {

class HbmLink {
 public:
  virtual ~HbmLink() = default;
  virtual void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) = 0;
};

}  // namespace neuronsim::engines
