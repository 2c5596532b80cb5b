#pragma once
// Who makes a dma_copy's descriptors, and what it costs (nki/deep-dives/nki-dge.rst;
// nki/guides/architecture/trainium2_arch.rst, "Descriptor Generation Engine"). Plain
// functions of the issuing engine and DmaParams (no SystemC).
#include "isa/engine.hpp"
#include "isa/instruction.hpp"
#include "params/dma_params.hpp"

namespace neuronsim::engines {

enum class DescriptorSource {
  // Prebuilt by the host when the NEFF is loaded and read from HBM by the DMA ring
  // (dge_mode none, a dma_copy's prebuilt_descriptors): nothing at run time beyond the
  // ring's latency.
  prebuilt,
  // A hardware DGE block, commanded by the Sync or Scalar engine (NeuronCore-v3+,
  // dma.dge_instances > 0): descriptor_ns per dma_copy on one of the blocks, which run
  // beside the engines (the issuer moves on).
  hardware_dge,
  // Software DGE: the GpSimd engine generates them, spending swdge_descriptor_ns of its
  // own time per dma_copy.
  software_dge,
};

// A copy with prebuilt_descriptors has them prebuilt; otherwise GpSimd-issued transfers use
// software DGE (the only issuer that runs it), Sync and Scalar a hardware DGE where the
// target has one, and everything else prebuilt descriptors.
DescriptorSource descriptor_source(isa::Engine issuer, const isa::DmaCopy& copy,
                                   const params::DmaParams& p);

}  // namespace neuronsim::engines
