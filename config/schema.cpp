// The parameter table of a target config; see config/schema.hpp.
#include "config/schema.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "isa/access_pattern.hpp"

namespace neuronsim::config::schema {
namespace {

using nlohmann::json;

constexpr std::uint64_t kU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kI32 = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kI8 = std::numeric_limits<std::int8_t>::max();
constexpr std::uint64_t kU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kNone = 0;
// An engine's cost in percent of the model's: up to 100x slower, so cycles * percent stays
// far inside 64 bits for any instruction the limits allow.
constexpr std::uint64_t kPercentMax = 10000;  // max_int of a non-integer parameter

// Values reach apply() already checked and normalised, so these conversions are exact.
std::uint32_t u32(const json& v) {
  return v.get<std::uint32_t>();
}
std::uint64_t u64(const json& v) {
  return v.get<std::uint64_t>();
}
double real(const json& v) {
  return v.get<double>();
}
bool flag(const json& v) {
  return v.get<bool>();
}

using K = Kind;
using T = TargetConfig;

const std::vector<Param> kParams = {
    {"chip", "neuron_cores", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.cores_per_chip = u32(v); }},

    {"clocks", "tensor_ghz", "GHz", K::positive_real, kNone,
     [](T& t, const json& v) { t.tensor_ghz = real(v); }},
    {"clocks", "vector_ghz", "GHz", K::positive_real, kNone,
     [](T& t, const json& v) { t.vector_ghz = real(v); }},
    {"clocks", "scalar_ghz", "GHz", K::positive_real, kNone,
     [](T& t, const json& v) { t.scalar_ghz = real(v); }},
    {"clocks", "gpsimd_ghz", "GHz", K::positive_real, kNone,
     [](T& t, const json& v) { t.gpsimd_ghz = real(v); }},
    {"clocks", "cycle_counter_ghz", "GHz", K::positive_real, kNone,
     [](T& t, const json& v) { t.cycle_counter_ghz = real(v); }},

    {"sbuf", "partitions", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.partitions = u32(v); }},
    {"sbuf", "bytes_per_partition", "bytes", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.sbuf_bytes_per_partition = u32(v); }},
    // At most int8's largest value, so every integer dtype holds the fill as it is.
    {"sbuf", "uninitialised_int_fill", "value", K::counter_int, kI8,
     [](T& t, const json& v) { t.uninitialised_int_fill = v.get<std::int32_t>(); }},

    {"psum", "banks", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.psum_banks = u32(v); }},
    {"psum", "bank_bytes", "bytes", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.psum_bank_bytes = u32(v); }},

    {"limits", "max_sbuf_free_elems", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.max_sbuf_free_elems = u32(v); }},
    {"limits", "max_psum_free_elems", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.max_psum_free_elems = u32(v); }},
    {"limits", "partition_start_granule", "partitions", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.partition_start_granule = u32(v); }},
    // An access pattern holds kMaxFreeDims dims; 4 sizes of at most 65535 multiply to less
    // than 2^64, the width of a free size; a stride is an int32.
    {"limits", "ap_max_free_dims", "count", K::positive_int, isa::kMaxFreeDims,
     [](T& t, const json& v) { t.limits.ap_max_free_dims = u32(v); }},
    {"limits", "ap_max_dim_size", "elements", K::positive_int, kU16,
     [](T& t, const json& v) { t.limits.ap_max_dim_size = u32(v); }},
    {"limits", "ap_max_stride", "elements", K::positive_int, kI32,
     [](T& t, const json& v) { t.limits.ap_max_stride = u32(v); }},
    {"limits", "fp8_e4m3fn", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.limits.fp8_e4m3fn = flag(v); }},

    {"tensor", "matmul_max_k", "partitions", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.matmul_max_k = u32(v); }},
    {"tensor", "matmul_max_m", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.matmul_max_m = u32(v); }},
    {"tensor", "matmul_max_n", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.matmul_max_n = u32(v); }},
    {"tensor", "matmul_psum_banks", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.matmul_psum_banks = u32(v); }},
    {"tensor", "matmul_bf16_dst", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.limits.matmul_bf16_dst = flag(v); }},
    {"tensor", "transpose_max", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.tensor_transpose_max = u32(v); }},
    {"tensor", "mm_init_latency", "cycles", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.mm_init_latency = u32(v); }},
    {"tensor", "fp32_matmul_factor", "ratio", K::positive_real, kNone,
     [](T& t, const json& v) { t.cost.fp32_matmul_factor = real(v); }},
    {"tensor", "load_stationary_speedup", "ratio", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.load_stationary_speedup = u32(v); }},
    // One number for both models: validation refuses perf_mode double_row where it is 0,
    // the cost model divides a double_row matmul's stream by it.
    {"tensor", "double_row_speedup", "ratio", K::counter_int, kU32,
     [](T& t, const json& v) {
       t.cost.double_row_speedup = u32(v);
       t.limits.matmul_double_row_speedup = u32(v);
     }},
    // One number for both models, as double_row_speedup: validation refuses quantize_mx and
    // nc_matmul_mx where it is 0, the cost model divides an MX matmul's four contraction rows
    // per partition by it.
    {"tensor", "mx_speedup", "ratio", K::counter_int, kU32,
     [](T& t, const json& v) {
       t.cost.mx_speedup = u32(v);
       t.limits.mx_speedup = u32(v);
     }},
    {"tensor", "throttle", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.cost.tensor_throttle = flag(v) ? 1 : 0; }},
    {"tensor", "throttle_start_percent", "percent", K::positive_int, 100,
     [](T& t, const json& v) { t.cost.tensor_throttle_start_percent = u32(v); }},
    {"tensor", "throttle_ramp_ns", "ns", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.tensor_throttle_ramp_ns = u32(v); }},
    {"tensor", "tflops_bf16", "TFLOPS", K::positive_real, kNone,
     [](T& t, const json& v) { t.tensor_tflops_bf16 = real(v); }},
    {"tensor", "tflops_fp8", "TFLOPS", K::positive_real, kNone,
     [](T& t, const json& v) { t.tensor_tflops_fp8 = real(v); }},
    {"tensor", "tflops_fp32", "TFLOPS", K::positive_real, kNone,
     [](T& t, const json& v) { t.tensor_tflops_fp32 = real(v); }},
    {"tensor", "cost_percent", "percent", K::counter_int, kPercentMax,
     [](T& t, const json& v) { t.cost.tensor_cost_percent = u32(v); }},

    {"cost", "min_issue_interval", "cycles", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.min_issue_interval = u32(v); }},
    {"cost", "baseline_elems_per_cycle", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.baseline_elems_per_cycle = u32(v); }},
    {"cost", "reduce_extra", "cycles", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.reduce_extra = u32(v); }},
    {"cost", "dependent_overhead", "cycles", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.dependent_overhead = u32(v); }},
    {"cost", "tiny_instruction_elems", "elements", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.tiny_instruction_elems = u32(v); }},

    {"vector", "elems_per_cycle_16bit", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.vector_elems_per_cycle_16bit = u32(v); }},
    {"vector", "elems_per_cycle_other", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.vector_elems_per_cycle_other = u32(v); }},
    {"vector", "fp8_at_16bit_width", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.cost.fp8_at_16bit_width = flag(v) ? 1 : 0; }},
    {"vector", "reciprocal_factor", "cycles/element", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.vector_reciprocal_factor = u32(v); }},
    {"vector", "bn_aggr_numerator", "ratio", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.bn_aggr_numerator = u32(v); }},
    {"vector", "bn_aggr_denominator", "ratio", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.bn_aggr_denominator = u32(v); }},
    {"vector", "transpose_max", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.vector_transpose_max = u32(v); }},
    {"vector", "bn_stats_max_free", "elements", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.bn_stats_max_free = u32(v); }},
    {"vector", "cost_percent", "percent", K::counter_int, kPercentMax,
     [](T& t, const json& v) { t.cost.vector_cost_percent = u32(v); }},

    {"scalar", "elems_per_cycle_16bit", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.scalar_elems_per_cycle_16bit = u32(v); }},
    {"scalar", "elems_per_cycle_other", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.scalar_elems_per_cycle_other = u32(v); }},
    {"scalar", "accumulator_read", "cycles", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.accumulator_read = u32(v); }},
    {"scalar", "cost_percent", "percent", K::counter_int, kPercentMax,
     [](T& t, const json& v) { t.cost.scalar_cost_percent = u32(v); }},

    {"gpsimd", "elems_per_cycle", "elements/cycle", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.gpsimd_elems_per_cycle = u32(v); }},
    {"gpsimd", "fixed_cycles", "cycles", K::counter_int, kU32,
     [](T& t, const json& v) { t.cost.gpsimd_fixed = u32(v); }},
    {"gpsimd", "cost_percent", "percent", K::counter_int, kPercentMax,
     [](T& t, const json& v) { t.cost.gpsimd_cost_percent = u32(v); }},

    {"ports", "vector_gpsimd_share_sbuf", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.vector_gpsimd_share_sbuf_port = flag(v); }},
    {"ports", "vector_scalar_share_psum", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.vector_scalar_share_psum_port = flag(v); }},
    {"ports", "psum_same_bank_conflicts", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.psum_same_bank_conflicts = flag(v); }},
    {"ports", "stride_penalty_bytes", "bytes", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.stride_penalty_bytes = u32(v); }},
    {"ports", "stride_penalty_factor", "ratio", K::positive_int, kU32,
     [](T& t, const json& v) { t.cost.stride_penalty_factor = u32(v); }},

    // The DMA engine and queue counts are both limits (validation) and DMA-model inputs.
    {"dma", "engines", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.dma.engines = t.limits.dma_engines = u32(v); }},
    {"dma", "queues_per_engine", "count", K::positive_int, kU32,
     [](T& t,
        const json& v) { t.dma.queues_per_engine = t.limits.dma_queues_per_engine = u32(v); }},
    {"dma", "queue_depth", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.dma.queue_depth = u32(v); }},
    {"dma", "engine_bytes_per_ns", "B/ns", K::positive_real, kNone,
     [](T& t, const json& v) { t.dma.engine_bytes_per_ns = real(v); }},
    {"dma", "fixed_latency_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.dma.fixed_latency_ns = real(v); }},
    {"dma", "descriptor_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.dma.descriptor_ns = real(v); }},
    {"dma", "dge_instances", "count", K::counter_int, kU32,
     [](T& t, const json& v) { t.dma.dge_instances = u32(v); }},
    {"dma", "swdge_descriptor_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.dma.swdge_descriptor_ns = real(v); }},
    {"dma", "efficient_bytes_per_row", "bytes", K::positive_int, kU32,
     [](T& t, const json& v) { t.dma.efficient_bytes_per_row = u32(v); }},
    {"dma", "small_row_min_efficiency", "fraction", K::fraction, kNone,
     [](T& t, const json& v) { t.dma.small_row_min_efficiency = real(v); }},
    {"dma", "transpose", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.limits.dma_transpose = flag(v); }},
    {"dma", "transpose_hbm_efficiency", "fraction", K::fraction, kNone,
     [](T& t, const json& v) { t.dma.transpose_hbm_efficiency = real(v); }},
    {"dma", "transpose_sbuf_efficiency", "fraction", K::fraction, kNone,
     [](T& t, const json& v) { t.dma.transpose_sbuf_efficiency = real(v); }},
    {"dma", "strict_priority", "flag", K::flag, kNone,
     [](T& t, const json& v) { t.dma.strict_priority = flag(v); }},
    {"dma", "max_pattern_dims", "count", K::positive_int, isa::kMaxFreeDims,
     [](T& t, const json& v) { t.limits.dma_max_free_dims = u32(v); }},

    {"hbm", "capacity_bytes", "bytes", K::positive_int, kU64,
     [](T& t, const json& v) { t.hbm.capacity_bytes = u64(v); }},
    {"hbm", "chip_bandwidth_gbps", "GB/s", K::positive_real, kNone,
     [](T& t, const json& v) { t.hbm.chip_bytes_per_ns = real(v); }},
    {"hbm", "core_share", "fraction", K::fraction, kNone,
     [](T& t, const json& v) { t.hbm_core_share = real(v); }},

    {"sync", "semaphores", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.limits.semaphores = u32(v); }},

    {"host", "framework_dispatch_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.host.framework_dispatch_ns = real(v); }},
    {"host", "runtime_call_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.host.runtime_call_ns = real(v); }},
    {"host", "sync_ns", "ns", K::latency_real, kNone,
     [](T& t, const json& v) { t.host.sync_ns = real(v); }},
    {"host", "async", "flag", K::flag, kNone, [](T& t, const json& v) { t.host.async = flag(v); }},
    {"host", "queue_depth", "count", K::positive_int, kU32,
     [](T& t, const json& v) { t.host.queue_depth = u32(v); }},
};

bool is_integer_kind(Kind k) {
  return k == Kind::positive_int || k == Kind::counter_int;
}

}  // namespace

const std::vector<Param>& params() {
  return kParams;
}

const Param* find(std::string_view section, std::string_view key) {
  for (const auto& p : kParams)
    if (p.section == section && p.key == key) return &p;
  return nullptr;
}

bool is_section(std::string_view section) {
  for (const auto& p : kParams)
    if (p.section == section) return true;
  return false;
}

std::vector<std::string> section_names() {
  std::vector<std::string> names;
  for (const auto& p : kParams)
    if (names.empty() || names.back() != p.section) names.emplace_back(p.section);
  return names;
}

std::vector<std::string> keys_of(std::string_view section) {
  std::vector<std::string> keys;
  for (const auto& p : kParams)
    if (p.section == section) keys.emplace_back(p.key);
  return keys;
}

bool check_value(const Param& p, const json& value, json& normalised, std::string& reason) {
  if (p.kind == Kind::flag) {
    if (!value.is_boolean()) {
      reason = "must be true or false";
      return false;
    }
    normalised = value;
    return true;
  }
  if (!value.is_number()) {
    reason = is_integer_kind(p.kind) ? "must be an integer" : "must be a number";
    return false;
  }
  const double d = value.get<double>();
  if (is_integer_kind(p.kind)) {
    if (value.is_number_float() && d != std::floor(d)) {
      reason = "must be an integer";
      return false;
    }
    if (d < 0 || (value.is_number_integer() && !value.is_number_unsigned() &&
                  value.get<std::int64_t>() < 0)) {
      reason = "must not be negative";
      return false;
    }
    if (p.kind == Kind::positive_int && d == 0) {
      reason = "must be positive (at least 1)";
      return false;
    }
    // Doubles above 2^64 and unsigned values above the field's range are both too big.
    if (d > static_cast<double>(p.max_int) ||
        (value.is_number_unsigned() && value.get<std::uint64_t>() > p.max_int)) {
      reason = "is too large (at most " + std::to_string(p.max_int) + ")";
      return false;
    }
    normalised =
        value.is_number_unsigned() ? value.get<std::uint64_t>() : static_cast<std::uint64_t>(d);
    return true;
  }
  if (d < 0) {
    reason = "must not be negative";
    return false;
  }
  if ((p.kind == Kind::positive_real || p.kind == Kind::fraction) && d == 0) {
    reason = "must be positive";
    return false;
  }
  if (p.kind == Kind::fraction && d > 1) {
    reason = "must be a fraction in (0, 1]";
    return false;
  }
  const RealRange r = real_range(p);
  if (!std::isfinite(d) || d < r.lo || d > r.hi) {
    std::ostringstream why;
    why << "is outside the sane range " << r.lo << " .. " << r.hi << " " << p.unit << " (" << r.why
        << ")";
    reason = why.str();
    return false;
  }
  if (std::fpclassify(d) == FP_SUBNORMAL) {  // 0 .. 1e9 ns would otherwise let 5e-324 in
    reason = "is a denormal number";
    return false;
  }
  normalised = d;
  return true;
}

RealRange real_range(const Param& p) {
  // Bounds far outside any real NeuronCore, so a what-if study has room, but tight enough
  // that no value is denormal, no rate is so small that one byte or cycle takes longer
  // than the simulation can count, and no latency alone outlasts a second (docs/config.md,
  // "Sane ranges").
  const std::string_view u = p.unit;
  if (u == "GHz") return {0.01, 100, "10 MHz to 100 GHz"};
  if (u == "B/ns" || u == "GB/s") return {0.001, 1e6, "1 MB/s to 1 PB/s"};
  if (u == "TFLOPS") return {0.001, 1e6, "1 GFLOP/s to 1 EFLOP/s"};
  if (u == "ns") return {0, 1e9, "at most one second"};
  if (u == "fraction") return {1e-6, 1, "at least one millionth"};
  return {0, std::numeric_limits<double>::max(), "any finite number"};
}

}  // namespace neuronsim::config::schema
