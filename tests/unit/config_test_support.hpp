#pragma once
// Helpers of the config tests: every numeric runtime field by name (to compare two configs
// field by field and to check which are set), and scratch JSON files.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "config/target_config.hpp"

namespace config_test {

using Field = std::pair<std::string, double>;

// Every number of TargetConfig (nested structs included), as double: all are exact.
inline std::vector<Field> numeric_fields(const neuronsim::config::TargetConfig& t) {
  const auto& l = t.limits;
  const auto& c = t.cost;
  const auto& d = t.dma;
  return {
      {"tensor_ghz", t.tensor_ghz},
      {"vector_ghz", t.vector_ghz},
      {"scalar_ghz", t.scalar_ghz},
      {"gpsimd_ghz", t.gpsimd_ghz},
      {"limits.partitions", l.partitions},
      {"limits.sbuf_bytes_per_partition", l.sbuf_bytes_per_partition},
      {"limits.psum_bytes_per_partition", l.psum_bytes_per_partition},
      {"limits.psum_bank_bytes", l.psum_bank_bytes},
      {"limits.max_sbuf_free_elems", l.max_sbuf_free_elems},
      {"limits.max_psum_free_elems", l.max_psum_free_elems},
      {"limits.matmul_max_k", l.matmul_max_k},
      {"limits.matmul_max_m", l.matmul_max_m},
      {"limits.matmul_max_n", l.matmul_max_n},
      {"limits.matmul_psum_banks", l.matmul_psum_banks},
      {"limits.tensor_transpose_max", l.tensor_transpose_max},
      {"limits.vector_transpose_max", l.vector_transpose_max},
      {"limits.bn_stats_max_free", l.bn_stats_max_free},
      {"limits.semaphores", l.semaphores},
      {"limits.dma_engines", l.dma_engines},
      {"limits.dma_queues_per_engine", l.dma_queues_per_engine},
      {"limits.partition_start_granule", l.partition_start_granule},
      {"limits.ap_max_free_dims", l.ap_max_free_dims},
      {"limits.ap_max_dim_size", l.ap_max_dim_size},
      {"limits.ap_max_stride", l.ap_max_stride},
      {"cost.min_issue_interval", c.min_issue_interval},
      {"cost.reduce_extra", c.reduce_extra},
      {"cost.dependent_overhead", c.dependent_overhead},
      {"cost.tiny_instruction_elems", c.tiny_instruction_elems},
      {"cost.accumulator_read", c.accumulator_read},
      {"cost.gpsimd_fixed", c.gpsimd_fixed},
      {"cost.vector_reciprocal_factor", c.vector_reciprocal_factor},
      {"cost.bn_aggr_numerator", c.bn_aggr_numerator},
      {"cost.bn_aggr_denominator", c.bn_aggr_denominator},
      {"cost.baseline_elems_per_cycle", c.baseline_elems_per_cycle},
      {"cost.vector_elems_per_cycle_16bit", c.vector_elems_per_cycle_16bit},
      {"cost.vector_elems_per_cycle_other", c.vector_elems_per_cycle_other},
      {"cost.scalar_elems_per_cycle_16bit", c.scalar_elems_per_cycle_16bit},
      {"cost.scalar_elems_per_cycle_other", c.scalar_elems_per_cycle_other},
      {"cost.gpsimd_elems_per_cycle", c.gpsimd_elems_per_cycle},
      {"cost.mm_init_latency", c.mm_init_latency},
      {"cost.fp32_matmul_factor", c.fp32_matmul_factor},
      {"cost.load_stationary_speedup", c.load_stationary_speedup},
      {"cost.tensor_throttle_start_percent", c.tensor_throttle_start_percent},
      {"cost.tensor_throttle_ramp_ns", c.tensor_throttle_ramp_ns},
      {"cost.stride_penalty_bytes", c.stride_penalty_bytes},
      {"cost.stride_penalty_factor", c.stride_penalty_factor},
      {"cost.tensor_cost_percent", c.tensor_cost_percent},
      {"cost.vector_cost_percent", c.vector_cost_percent},
      {"cost.scalar_cost_percent", c.scalar_cost_percent},
      {"cost.gpsimd_cost_percent", c.gpsimd_cost_percent},
      {"dma.engines", d.engines},
      {"dma.queues_per_engine", d.queues_per_engine},
      {"dma.engine_bytes_per_ns", d.engine_bytes_per_ns},
      {"dma.hbm_bytes_per_ns", d.hbm_bytes_per_ns},
      {"dma.fixed_latency_ns", d.fixed_latency_ns},
      {"dma.descriptor_ns", d.descriptor_ns},
      {"dma.efficient_bytes_per_row", d.efficient_bytes_per_row},
      {"dma.small_row_min_efficiency", d.small_row_min_efficiency},
      {"dma.queue_depth", d.queue_depth},
      {"dma.swdge_descriptor_ns", d.swdge_descriptor_ns},
      {"dma.partitions_per_engine", d.partitions_per_engine},
      {"dma.transpose_hbm_efficiency", d.transpose_hbm_efficiency},
      {"dma.transpose_sbuf_efficiency", d.transpose_sbuf_efficiency},
      {"psum_banks", t.psum_banks},
      {"hbm.capacity_bytes", static_cast<double>(t.hbm.capacity_bytes)},
      {"tensor_tflops_bf16", t.tensor_tflops_bf16},
      {"cores_per_chip", t.cores_per_chip},
      {"uninitialised_int_fill", t.uninitialised_int_fill},
      {"tensor_tflops_fp8", t.tensor_tflops_fp8},
      {"tensor_tflops_fp32", t.tensor_tflops_fp32},
      {"limits.dma_max_free_dims", t.limits.dma_max_free_dims},
      {"hbm.chip_bytes_per_ns", t.hbm.chip_bytes_per_ns},
      {"hbm_core_share", t.hbm_core_share},
  };
}

// Counts for which 0 means "the generation has no such mode" (tensor.double_row_speedup on
// v2), so a preset may leave them 0.
inline std::vector<Field> mode_fields(const neuronsim::config::TargetConfig& t) {
  return {
      {"cost.double_row_speedup", t.cost.double_row_speedup},
      {"limits.matmul_double_row_speedup", t.limits.matmul_double_row_speedup},
      {"cost.mx_speedup", t.cost.mx_speedup},  // 0: no MX formats (v2, v3)
      {"limits.mx_speedup", t.limits.mx_speedup},
  };
}

inline std::vector<std::pair<std::string, bool>> flag_fields(
    const neuronsim::config::TargetConfig& t) {
  return {
      {"vector_gpsimd_share_sbuf_port", t.vector_gpsimd_share_sbuf_port},
      {"vector_scalar_share_psum_port", t.vector_scalar_share_psum_port},
      {"psum_same_bank_conflicts", t.psum_same_bank_conflicts},
      {"dma.strict_priority", t.dma.strict_priority},
      {"limits.dma_transpose", t.limits.dma_transpose},
      {"limits.fp8_e4m3fn", t.limits.fp8_e4m3fn},
      {"limits.matmul_bf16_dst", t.limits.matmul_bf16_dst},
      {"cost.fp8_at_16bit_width", t.cost.fp8_at_16bit_width != 0},
      {"cost.tensor_throttle", t.cost.tensor_throttle != 0},
  };
}

// A scratch file, removed at the end of the scope. Names are unique per process and call,
// so tests may run in parallel processes.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& text, const std::string& stem = "target") {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("neuronsim_config_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) +
              "_" + stem + ".json"))
                .string();
    std::ofstream(path_) << text;
  }
  ~ScratchFile() { std::filesystem::remove(path_); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace config_test
