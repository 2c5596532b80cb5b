#pragma once
// Target configuration, in two layers: the JSON presets sim/targets/{trn1,trn2,trn3}.json
// (every number with its unit and a one-line doc; a user file may override any field;
// unknown keys and bad values are errors that name them), loaded once into this validated
// runtime struct. Nothing in engines/ or memory/ holds a literal hardware number.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/cost_params.hpp"
#include "isa/engine.hpp"
#include "isa/target_limits.hpp"

namespace neuronsim::sim {

struct TargetConfig {
  std::string name;        // "trn1", "trn2", "trn3"
  std::string generation;  // "NeuronCore-v2", ...
  // Engine clocks in GHz (reference section 1). The Sync engine and the DMA subsystem's
  // sequencing run on sync_ghz.
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0, sync_ghz = 0;
  isa::TargetLimits limits;
  isa::CostParams cost;
  isa::DmaParams dma;
  // Memory ports (reference section 2).
  bool vector_gpsimd_share_sbuf_port = false;  // v2: Vector and GpSimd share the SBUF port
  bool vector_scalar_share_psum_port = false;  // v2: Vector and Scalar share the PSUM port
  bool psum_same_bank_conflicts = false;       // v3+: only same-bank PSUM accesses conflict
  std::uint32_t psum_banks = 0;                // accumulation banks per partition
  std::uint64_t hbm_bytes = 0;                 // HBM capacity per chip, bytes
  double tensor_tflops_bf16 = 0;               // peak, for MFU estimates

  double clock_ghz(isa::Engine e) const;
};

// `name_or_path`: a preset name ("trn1", "trn2", "trn3") or a path to a JSON file that
// names a preset in "base" and overrides some of its fields. Each of `overrides` is a
// further JSON file applied in order. Throws neuronsim::Error naming key and reason.
TargetConfig load_target(const std::string& name_or_path,
                         const std::vector<std::string>& overrides = {});
// The full config of a preset (every field, with unit and doc), as JSON.
nlohmann::json dump_target(const std::string& name_or_path,
                           const std::vector<std::string>& overrides = {});
std::vector<std::string> target_names();

}  // namespace neuronsim::sim
