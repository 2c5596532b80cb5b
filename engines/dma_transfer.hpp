#pragma once
// A dma_copy in flight: the instruction that issued it and its per-DMA-engine parts.
#include <cstdint>
#include <vector>

#include <systemc>

#include "engines/dma_split.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::engines {

struct DmaTransfer;

struct DmaPart {
  DmaTransfer* transfer = nullptr;
  DmaPartPlan plan;
  double efficiency = 1;
  bool touches_hbm = false;
  bool reads_hbm = false;         // HBM is the source (else the destination)
  std::uint64_t hbm_address = 0;  // the part's first HBM byte in device HBM
  // The core's copy of the bytes from hbm_address (DMI or staged), null when timing only,
  // and how many bytes of the tensor there are from hbm_address to its end.
  std::uint8_t* host = nullptr;
  std::uint64_t span = 0;
  sc_core::sc_time ready;  // earliest first byte: descriptors at the engine + latency
  sc_core::sc_time start;  // its first byte moved (the data phase began)
};

struct DmaTransfer {
  std::uint32_t id = 0;  // issue order, from 0
  // A copy: the issuing engine decodes its stream one instruction at a time.
  isa::Instruction instruction;
  const isa::DmaCopy* copy = nullptr;
  isa::Engine issuer = isa::Engine::sync;
  std::uint32_t issuer_index = 0;
  sc_core::sc_time queued;  // issue time
  // Filled before any part is queued and never resized while in flight, so pointers to
  // the parts stay valid; a completed transfer is reused (DmaSubsystem's pool).
  std::vector<DmaPart> parts;
  std::size_t parts_left = 0;
  // Data into HBM is made when the first part starts, so the parts carry it (the base
  // protocol: the data travels in the payload); data into SBUF or PSUM at completion.
  bool executed = false;
};

}  // namespace neuronsim::engines
