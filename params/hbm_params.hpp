#pragma once
// The numbers the HBM model (include/neuronsim/hbm.hpp, memory/hbm.cpp) reads besides the
// per-core bandwidth of DmaParams (dma.hbm_bytes_per_ns). Filled from the target config
// (config/targets/*.json, section "hbm"), which documents each with its unit and source;
// every field starts at zero here.
#include <cstdint>

namespace neuronsim::params {

// HBM of one chip (reference section 1).
struct HbmParams {
  std::uint64_t capacity_bytes = 0;  // hbm.capacity_bytes
  double chip_bytes_per_ns = 0;      // hbm.chip_bandwidth_gbps: all ports together
};

}  // namespace neuronsim::params
