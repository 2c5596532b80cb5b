// The shipped target presets: each loads, fills every runtime field, and puts the numbers
// of the reference (neuroncore.md sections 1-4) in the right fields.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/embedded.hpp"
#include "config/schema.hpp"
#include "config/target_config.hpp"
#include "config/target_dump.hpp"
#include "params/cost_params.hpp"
#include "params/hbm_params.hpp"
#include "params/target_limits.hpp"
#include "tests/unit/config_test_support.hpp"

using neuronsim::config::load_target;
using neuronsim::config::TargetConfig;
using neuronsim::isa::Engine;
namespace params = neuronsim::params;

namespace {
constexpr std::uint32_t KiB = 1024;
constexpr std::uint64_t GiB = 1024ull * 1024 * 1024;
}  // namespace

TEST_CASE("config: the presets are trn1, trn2 and trn3", "[config]") {
  CHECK(neuronsim::config::target_names() == std::vector<std::string>{"trn1", "trn2", "trn3"});
}

TEST_CASE("config: every preset loads and sets every runtime field", "[config]") {
  for (const auto& name : neuronsim::config::target_names()) {
    INFO("preset " << name);
    const TargetConfig t = load_target(name);
    CHECK(t.name == name);
    CHECK_FALSE(t.generation.empty());
    CHECK_FALSE(t.description.empty());
    // Every number of the presets is non-zero: zero would mean "not filled".
    for (const auto& [field, value] : config_test::numeric_fields(t)) {
      INFO(field);
      CHECK(value > 0);
    }
    CHECK(t.dma.small_row_min_efficiency <= 1.0);
    CHECK(t.hbm_core_share <= 1.0);
  }
}

TEST_CASE("config: the runtime structs have no field the config leaves unfilled", "[config]") {
  // numeric_fields() lists 21 TargetLimits and 26 CostParams fields, mode_fields() two of
  // each (double_row_speedup, mx_speedup), all uint32 but CostParams' fp32_matmul_factor (a
  // double, last); a field added to those structs changes their size and must be added to
  // the presets too. TargetLimits: + 3 flags (dma_transpose, fp8_e4m3fn, matmul_bf16_dst, in
  // flag_fields()), padded together to a uint32. CostParams: + 2 flags (fp8_at_16bit_width,
  // tensor_throttle, in flag_fields()), 29 uint32 padded to 30 for the double's alignment.
  CHECK(sizeof(neuronsim::params::TargetLimits) == 24 * sizeof(std::uint32_t));
  CHECK(sizeof(neuronsim::params::CostParams) == 30 * sizeof(std::uint32_t) + sizeof(double));
  // HbmParams: capacity (uint64) and chip bandwidth (double), both in numeric_fields().
  CHECK(sizeof(neuronsim::params::HbmParams) == sizeof(std::uint64_t) + sizeof(double));
}

TEST_CASE("config: trn1 holds the NeuronCore-v2 numbers of the reference", "[config]") {
  const TargetConfig t = load_target("trn1");
  CHECK(t.generation == "NeuronCore-v2");
  // Section 1.
  CHECK(t.tensor_ghz == 2.8);
  CHECK(t.vector_ghz == 1.12);
  CHECK(t.scalar_ghz == 1.4);
  CHECK(t.gpsimd_ghz == 1.4);
  CHECK(t.cores_per_chip == 2);
  CHECK(t.limits.partitions == 128);
  CHECK(t.limits.sbuf_bytes_per_partition == 192 * KiB);
  CHECK(t.limits.partitions * t.limits.sbuf_bytes_per_partition == 24 * KiB * KiB);
  CHECK(t.psum_banks == 8);
  CHECK(t.limits.psum_bank_bytes == 2 * KiB);
  // Derived: 8 banks x 2 KiB; 128 partitions of it make 2 MiB.
  CHECK(t.limits.psum_bytes_per_partition == 16 * KiB);
  CHECK(t.hbm.capacity_bytes == 32 * GiB);
  CHECK(t.hbm.chip_bytes_per_ns == 820);
  CHECK(t.dma.engines == 16);
  CHECK(t.limits.dma_engines == 16);
  CHECK(t.dma.queues_per_engine == 16);
  CHECK(t.limits.dma_queues_per_engine == 16);
  CHECK(t.dma.engine_bytes_per_ns == 17);
  CHECK(t.tensor_tflops_bf16 == 92);
  CHECK(t.tensor_tflops_fp8 == 92);
  CHECK(t.tensor_tflops_fp32 == 23);
  CHECK(t.cost.vector_elems_per_cycle_16bit == 128);
  CHECK(t.cost.scalar_elems_per_cycle_16bit == 128);
  CHECK(t.cost.gpsimd_elems_per_cycle == 128);  // 8 cores x 512 bits / 32
  // Section 2.
  CHECK(t.limits.max_sbuf_free_elems == 65536);
  CHECK(t.limits.max_psum_free_elems == 4096);
  CHECK(t.limits.partition_start_granule == 32);
  CHECK(t.limits.ap_max_free_dims == 4);
  CHECK(t.limits.ap_max_dim_size == 65535);
  CHECK(t.limits.ap_max_stride == 32767);
  CHECK(t.vector_gpsimd_share_sbuf_port);
  CHECK(t.vector_scalar_share_psum_port);
  CHECK_FALSE(t.psum_same_bank_conflicts);
  CHECK(t.cost.stride_penalty_bytes == 16);
  CHECK(t.cost.stride_penalty_factor == 2);
  CHECK(t.uninitialised_int_fill == 4);
  // Section 3.
  CHECK(t.limits.matmul_max_k == 128);
  CHECK(t.limits.matmul_max_m == 128);
  CHECK(t.limits.matmul_max_n == 512);
  CHECK(t.limits.matmul_psum_banks == 1);
  CHECK(t.limits.tensor_transpose_max == 128);
  CHECK(t.limits.vector_transpose_max == 32);
  CHECK(t.limits.dma_max_free_dims == 4);
  // Section 4.
  CHECK(t.cost.min_issue_interval == 64);
  CHECK(t.cost.mm_init_latency == 64);
  CHECK(t.cost.reduce_extra == 64);
  CHECK(t.cost.dependent_overhead == 100);
  CHECK(t.cost.accumulator_read == 64);
  CHECK(t.cost.gpsimd_fixed == 150);
  CHECK(t.cost.vector_reciprocal_factor == 8);
  CHECK(t.cost.bn_aggr_numerator == 13);
  CHECK(t.cost.bn_aggr_denominator == 3);
  CHECK(t.cost.baseline_elems_per_cycle == 128);
  CHECK(t.cost.fp32_matmul_factor == 4);
  CHECK(t.cost.load_stationary_speedup == 4);
  CHECK(t.cost.double_row_speedup == 0);  // NKI nc_matmul: no performance mode on v2
  CHECK(t.limits.matmul_double_row_speedup == 0);
  CHECK(t.limits.mx_speedup == 0);  // NKI quantize_mx / nc_matmul_mx: NeuronCore-v4+ only
  CHECK(t.dma.efficient_bytes_per_row == 2048);
  CHECK_FALSE(t.dma.strict_priority);
  CHECK_FALSE(t.limits.dma_transpose);  // v2's DMA engines do not transpose
  // Derived: one core's share of the chip's HBM bandwidth, 820 GB/s / 2 cores.
  CHECK(t.dma.hbm_bytes_per_ns == Approx(410));
}

TEST_CASE("config: trn2 holds the NeuronCore-v3 numbers of the reference", "[config]") {
  const TargetConfig t = load_target("trn2");
  CHECK(t.generation == "NeuronCore-v3");
  CHECK(t.tensor_ghz == 2.4);
  CHECK(t.vector_ghz == 0.96);
  CHECK(t.scalar_ghz == 1.2);
  CHECK(t.gpsimd_ghz == 1.2);
  CHECK(t.cores_per_chip == 8);
  CHECK(t.limits.sbuf_bytes_per_partition == 224 * KiB);
  CHECK(t.limits.partitions * t.limits.sbuf_bytes_per_partition == 28 * KiB * KiB);
  CHECK(t.psum_banks == 8);
  CHECK(t.hbm.capacity_bytes == 96 * GiB);
  CHECK(t.dma.engine_bytes_per_ns == 23);
  CHECK(t.cost.vector_elems_per_cycle_16bit == 512);
  CHECK(t.cost.vector_elems_per_cycle_other == 256);
  CHECK(t.cost.scalar_elems_per_cycle_16bit == 128);
  CHECK(t.cost.double_row_speedup == 2);  // Trainium2 guide: double FP8, 2x throughput
  CHECK(t.limits.matmul_double_row_speedup == 2);
  CHECK(t.limits.mx_speedup == 0);  // NKI quantize_mx / nc_matmul_mx: v3 has no MX formats
  CHECK(t.tensor_tflops_bf16 == 79);
  CHECK(t.tensor_tflops_fp8 == 158);
  CHECK(t.dma.descriptor_ns == 600);  // hardware DGE, section 4
  // v3's own dependent overhead, not v2's 100: 266 ScalarE cycles between dependent
  // one-element instructions (NKI performance guide, Opt #5a) - MIN_II 64.
  CHECK(t.cost.dependent_overhead == 202);
  CHECK_FALSE(t.vector_gpsimd_share_sbuf_port);
  CHECK_FALSE(t.vector_scalar_share_psum_port);
  CHECK(t.psum_same_bank_conflicts);
  CHECK(t.dma.hbm_bytes_per_ns == Approx(2900.0 / 8));
}

TEST_CASE("config: trn3 holds the NeuronCore-v4 numbers of the reference", "[config]") {
  const TargetConfig t = load_target("trn3");
  CHECK(t.generation == "NeuronCore-v4");
  CHECK(t.tensor_ghz == 2.4);
  CHECK(t.vector_ghz == 1.2);
  CHECK(t.limits.sbuf_bytes_per_partition == 256 * KiB);
  CHECK(t.limits.partitions * t.limits.sbuf_bytes_per_partition == 32 * KiB * KiB);
  CHECK(t.hbm.capacity_bytes == 144 * GiB);
  CHECK(t.dma.engine_bytes_per_ns == 33);
  CHECK(t.cost.scalar_elems_per_cycle_16bit == 256);
  CHECK(t.cost.scalar_elems_per_cycle_other == 128);
  CHECK(t.cost.vector_elems_per_cycle_16bit == 512);
  CHECK(t.cost.gpsimd_elems_per_cycle == 128);
  CHECK(t.cost.double_row_speedup == 2);  // NKI nc_matmul: v4 keeps the double_row mode
  CHECK(t.cost.mx_speedup == 4);          // MXFP matmul deep dive: 4x the BF16 throughput
  CHECK(t.tensor_tflops_fp8 == 315);
  CHECK(t.cost.dependent_overhead == 202);  // no v4 figure: v3's, not v2's
  CHECK(t.dma.strict_priority);
}

TEST_CASE("config: clock_ghz gives each engine its own clock", "[config]") {
  const TargetConfig t = load_target("trn1");
  CHECK(t.clock_ghz(Engine::tensor) == 2.8);
  CHECK(t.clock_ghz(Engine::vector) == 1.12);
  CHECK(t.clock_ghz(Engine::scalar) == 1.4);
  CHECK(t.clock_ghz(Engine::gpsimd) == 1.4);
  // The Sync engine runs nothing that takes cycles; its times count in GpSimd cycles.
  CHECK(t.clock_ghz(Engine::sync) == t.gpsimd_ghz);
}

TEST_CASE("config: the presets need no files at run time", "[config]") {
  // Embedded at build time: loading works from a directory without config/targets.
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  TargetConfig t;
  CHECK_NOTHROW(t = load_target("trn2"));
  std::filesystem::current_path(previous);
  CHECK(t.tensor_ghz == 2.4);
}

TEST_CASE("config: the embedded presets are the files in config/targets", "[config]") {
  namespace embedded = neuronsim::config::embedded;
  REQUIRE(embedded::kTargetFileCount == 3);
  for (std::size_t i = 0; i < embedded::kTargetFileCount; ++i) {
    const auto& file = embedded::kTargetFiles[i];
    std::ifstream in(std::string(NEURONSIM_SOURCE_DIR) + "/config/targets/" +
                     std::string(file.name) + ".json");
    std::stringstream text;
    text << in.rdbuf();
    INFO(file.name);
    CHECK(text.str() == file.text);
  }
}

TEST_CASE("config: every parameter has a unit, a doc and an entry in docs/config.md", "[config]") {
  std::ifstream in(std::string(NEURONSIM_SOURCE_DIR) + "/docs/config.md");
  std::stringstream docs;
  docs << in.rdbuf();
  REQUIRE_FALSE(docs.str().empty());
  for (const auto& name : neuronsim::config::target_names()) {
    const auto dump = neuronsim::config::dump_target(name);
    for (const auto& p : neuronsim::config::schema::params()) {
      const std::string section(p.section), key(p.key);
      INFO(name << " " << section << "." << key);
      REQUIRE(dump.contains(section));
      REQUIRE(dump[section].contains(key));
      CHECK(dump[section][key]["unit"] == std::string(p.unit));
      CHECK_FALSE(dump[section][key]["doc"].get<std::string>().empty());
      CHECK(docs.str().find("`" + section + "." + key + "`") != std::string::npos);
    }
  }
}
