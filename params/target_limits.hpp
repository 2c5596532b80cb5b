#pragma once
// The capacities and limits of one target that validation checks a kernel against
// (reference sections 1-3). Filled from the target config (config/target_config.hpp); params/
// has no default hardware numbers of its own.
#include <cstdint>

namespace neuronsim::params {

struct TargetLimits {
  std::uint32_t partitions = 0;                 // SBUF/PSUM partitions (lanes)
  std::uint32_t sbuf_bytes_per_partition = 0;   // bytes
  std::uint32_t psum_bytes_per_partition = 0;   // bytes
  std::uint32_t psum_bank_bytes = 0;            // bytes per partition per bank
  std::uint32_t max_sbuf_free_elems = 0;        // one instruction's free size in SBUF
  std::uint32_t max_psum_free_elems = 0;        // one instruction's free size in PSUM
  std::uint32_t matmul_max_k = 0;               // contraction partitions
  std::uint32_t matmul_max_m = 0;               // stationary free size
  std::uint32_t matmul_max_n = 0;               // moving free size within one PSUM bank (fp32)
  std::uint32_t matmul_psum_banks = 0;          // PSUM banks one matmul's moving size may span
  std::uint32_t matmul_double_row_speedup = 0;  // perf_mode double_row's rate; 0: no such mode
  std::uint32_t mx_speedup = 0;                 // MX matmul rate; 0: no quantize_mx / matmul_mx
  std::uint32_t tensor_transpose_max = 0;       // Tensor engine (through the array) transpose edge
  std::uint32_t vector_transpose_max = 0;       // Vector engine transpose edge
  std::uint32_t bn_stats_max_free = 0;          // bn_stats free size
  std::uint32_t semaphores = 0;                 // semaphores per core
  std::uint32_t dma_engines = 0;                // DMA engines per core
  std::uint32_t dma_queues_per_engine = 0;      // queues per DMA engine
  // Access patterns and tile placement (reference section 2).
  std::uint32_t partition_start_granule = 0;  // g: <= g partitions start at a multiple of g,
                                              // <= 2g at a multiple of 2g, more at 0
  std::uint32_t ap_max_free_dims = 0;         // free dims of a pattern (<= kMaxFreeDims)
  std::uint32_t ap_max_dim_size = 0;          // elements of one free dim
  std::uint32_t ap_max_stride = 0;            // stride in -(ap_max_stride + 1)..ap_max_stride
  std::uint32_t dma_max_free_dims = 0;  // free dims of a dma_copy's patterns (<= kMaxFreeDims)
  bool dma_transpose = false;           // the DMA engines transpose 2-byte data (v3+)
  bool fp8_e4m3fn = false;              // OCP fp8 E4M3FN is a native dtype (v4+)
  bool matmul_bf16_dst = false;         // nc_matmul may write a bf16 PSUM tile (v4+)
};

}  // namespace neuronsim::params
