#pragma once
// Target configuration, in two layers: the JSON presets config/targets/{trn1,trn2,trn3}.json
// (every number with its unit and a one-line doc; a user file may override any field;
// unknown keys and bad values are errors that name them), loaded once into this validated
// runtime struct. Nothing in engines/ or memory/ holds a literal hardware number.
// docs/config.md lists every parameter with its source.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/engine.hpp"
#include "params/cost_params.hpp"
#include "params/dma_params.hpp"
#include "params/hbm_params.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::config {

// What the host adds around each kernel launch (sequence/host_model.hpp, docs/host-model.md):
// the framework's op dispatch on the CPU, the runtime call that submits the NEFF, and the
// host noticing a completion. None of it is published as a number; docs/host-model.md
// says why each default was chosen.
struct HostParams {
  double framework_dispatch_ns = 0;  // host.framework_dispatch_ns
  double runtime_call_ns = 0;        // host.runtime_call_ns
  double sync_ns = 0;                // host.sync_ns: host sees a device completion
  bool async = false;                // host.async: host runs ahead of the device
  std::uint32_t queue_depth = 0;     // host.queue_depth: launches in flight when async
};

struct TargetConfig {
  std::string name;        // "trn1", "trn2", "trn3"
  std::string generation;  // "NeuronCore-v2", ...
  // Engine clocks in GHz (reference section 1). The Sync engine has no clock of its own:
  // nothing it runs takes cycles (see clock_ghz).
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0;
  // The clock the hardware profiler's neuroncore_cycle_count counts at (docs/config.md,
  // clocks.cycle_counter_ghz): the unit of every neuroncore_cycle_count neuronsim reports.
  double cycle_counter_ghz = 0;
  params::TargetLimits limits;
  params::CostParams cost;
  params::DmaParams dma;
  params::HbmParams hbm;
  // Memory ports (reference section 2).
  bool vector_gpsimd_share_sbuf_port = false;  // v2: Vector and GpSimd share the SBUF port
  bool vector_scalar_share_psum_port = false;  // v2: Vector and Scalar share the PSUM port
  bool psum_same_bank_conflicts = false;       // v3+: only same-bank PSUM accesses conflict
  std::uint32_t psum_banks = 0;                // accumulation banks per partition

  // Peak Tensor engine TFLOPS per core by matmul input dtype (reference section 1): the
  // denominators of MFU (profile/peak_flops.hpp).
  double tensor_tflops_bf16 = 0;  // bf16, fp16, tf32
  double tensor_tflops_fp8 = 0;   // both inputs fp8
  double tensor_tflops_fp32 = 0;  // fp32

  // --- Further numbers of reference sections 1-3 (JSON section.key in comments).
  std::string description;                  // one line, for `neuronsim config --list`
  std::uint32_t cores_per_chip = 0;         // chip.neuron_cores
  std::int32_t uninitialised_int_fill = 0;  // sbuf.uninitialised_int_fill (floats read NaN)
  // DMA and HBM (sections 1, 3). dma.hbm_bytes_per_ns = hbm.chip_bytes_per_ns * share.
  double hbm_core_share = 0;  // hbm.core_share, (0, 1]

  // --- The host and runtime around a launch (JSON section "host"; docs/host-model.md).
  HostParams host;

  // An engine's clock. The Sync engine's is not published (reference section 1) and nothing
  // it runs takes cycles (a dma_copy's time is the DMA model's, a nop is a synchronisation
  // point), so it is no parameter: its times are counted in cycles of the GpSimd clock, a
  // sequencer like it, for traces and statistics only.
  double clock_ghz(isa::Engine e) const;
};

// `name_or_path`: a preset name ("trn1", "trn2", "trn3") or a path to a JSON file that
// names a preset in "base" and overrides some of its fields. Each of `overrides` is a
// further JSON file applied in order. Throws neuronsim::Error naming key and reason.
TargetConfig load_target(const std::string& name_or_path,
                         const std::vector<std::string>& overrides = {});
// The same with overrides given in memory: `overrides_json` is the text of an override
// file ({"dma": {"engines": 8}}), checked as one would be, `source` naming it in messages
// ("overrides: dma.engines: ..."). For embedders that configure in code: set parameters
// here rather than in TargetConfig's fields, whose derived values (a core's HBM share,
// the DMA partition groups) only a resolve computes.
TargetConfig load_target_with(const std::string& name_or_path, const std::string& overrides_json,
                              const std::string& source = "overrides");
std::vector<std::string> target_names();

}  // namespace neuronsim::config
