#include "engines/dma_descriptors.hpp"

namespace neuronsim::engines {

DescriptorSource descriptor_source(isa::Engine issuer, const isa::DmaCopy& copy,
                                   const params::DmaParams& p) {
  if (copy.prebuilt_descriptors) return DescriptorSource::prebuilt;
  switch (issuer) {
    case isa::Engine::gpsimd:
      return DescriptorSource::software_dge;
    case isa::Engine::sync:
    case isa::Engine::scalar:
      return p.dge_instances > 0 ? DescriptorSource::hardware_dge : DescriptorSource::prebuilt;
    case isa::Engine::tensor:
    case isa::Engine::vector:
      return DescriptorSource::prebuilt;
  }
  return DescriptorSource::prebuilt;  // unreachable: every engine is handled above
}

}  // namespace neuronsim::engines
