// The runtime target config: the resolved JSON layer (config_resolve.hpp) converted into
// TargetConfig through the parameter table (config/schema.hpp).
#include "config/target_config.hpp"

#include <algorithm>

#include "base/error.hpp"
#include "config/resolve.hpp"
#include "config/schema.hpp"
#include "config/target_dump.hpp"

namespace neuronsim::config {

double TargetConfig::clock_ghz(isa::Engine e) const {
  switch (e) {
    case isa::Engine::tensor:
      return tensor_ghz;
    case isa::Engine::vector:
      return vector_ghz;
    case isa::Engine::scalar:
      return scalar_ghz;
    case isa::Engine::gpsimd:
      return gpsimd_ghz;
    case isa::Engine::sync:
      return gpsimd_ghz;
  }
  return gpsimd_ghz;  // unreachable: every engine is handled above
}

TargetConfig load_target(const std::string& name_or_path,
                         const std::vector<std::string>& overrides) {
  return to_target_config(resolve_target(name_or_path, overrides));
}

TargetConfig load_target_with(const std::string& name_or_path, const std::string& overrides_json,
                              const std::string& source) {
  nlohmann::json values;
  try {
    values = nlohmann::json::parse(overrides_json);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(source + ": not JSON: " + e.what());
  }
  if (!values.is_object())
    throw Error(source + ": overrides are a JSON object of sections, as an override file holds");
  return to_target_config(resolve_target(name_or_path, {}, {Patch{source, values}}));
}

TargetConfig to_target_config(const ResolvedTarget& r) {
  TargetConfig t;
  t.name = r.name;
  t.generation = r.generation;
  t.description = r.description;
  for (const auto& p : schema::params())
    p.apply(t, r.at(std::string(p.section), std::string(p.key)).value);
  // One core's HBM bandwidth: its share of the chip's (reference section 1; the share is
  // a chosen parameter, docs/config.md).
  t.dma.hbm_bytes_per_ns = t.hbm.chip_bytes_per_ns * t.hbm_core_share;
  // Each DMA engine serves a fixed group of consecutive SBUF partitions: 128 / 16 = 8
  // (nki/about/nki-dma-overview.rst, "Performance Considerations").
  t.dma.partitions_per_engine =
      std::max<std::uint32_t>(1, (t.limits.partitions + t.dma.engines - 1) / t.dma.engines);
  // PSUM per partition is its banks (reference section 1: 8 x 2 KiB = 16 KiB); resolve.cpp
  // checks the product fits 32 bits.
  t.limits.psum_bytes_per_partition = t.psum_banks * t.limits.psum_bank_bytes;
  return t;
}

nlohmann::json dump_target(const std::string& name_or_path,
                           const std::vector<std::string>& overrides) {
  const ResolvedTarget r = resolve_target(name_or_path, overrides);
  nlohmann::json out;
  out["base"] = r.base;
  out["name"] = r.name;
  out["generation"] = r.generation;
  out["description"] = r.description;
  for (const auto& [section, params] : r.sections)
    for (const auto& [key, p] : params)
      out[section][key] = {{"value", p.value}, {"unit", p.unit}, {"doc", p.doc}};
  return out;
}

std::vector<std::string> target_names() {
  return preset_names();
}

}  // namespace neuronsim::config
