#include "whatif/reliefs.hpp"

#include <array>
#include <utility>

namespace neuronsim::whatif {

namespace {

using nlohmann::json;

Relief make(ResourceKind kind, std::string resource, std::string relief, json values) {
  Relief r;
  r.kind = kind;
  r.resource = std::move(resource);
  r.relief = std::move(relief);
  r.patch.values = std::move(values);
  r.patch.source = "whatif: " + r.resource + ", " + r.relief;
  return r;
}

double real(const config::ResolvedTarget& t, const char* section, const char* key) {
  return t.at(section, key).value.get<double>();
}

}  // namespace

std::vector<Relief> config_reliefs(const config::ResolvedTarget& base, bool sequence) {
  std::vector<Relief> out;
  // The compute engines; Sync runs nothing that takes cycles (cost/cost_model.hpp).
  constexpr std::array<isa::Engine, 4> engines = {isa::Engine::tensor, isa::Engine::vector,
                                                  isa::Engine::scalar, isa::Engine::gpsimd};
  for (isa::Engine e : engines) {
    const std::string section(isa::engine_name(e));
    const std::uint64_t percent = base.at(section, "cost_percent").value.get<std::uint64_t>();
    for (const auto& [relief, value] :
         {std::pair<const char*, std::uint64_t>{"cost halved", (percent + 1) / 2},
          std::pair<const char*, std::uint64_t>{"cost removed", 0}}) {
      Relief r = make(ResourceKind::engine, section + " engine", relief,
                      {{section, {{"cost_percent", value}}}});
      r.engine = e;
      out.push_back(std::move(r));
    }
  }
  out.push_back(
      make(ResourceKind::dma, "DMA engines", "bandwidth doubled",
           {{"dma", {{"engine_bytes_per_ns", 2 * real(base, "dma", "engine_bytes_per_ns")}}}}));
  out.push_back(
      make(ResourceKind::dma, "DMA fixed costs", "removed",
           {{"dma",
             {{"fixed_latency_ns", 0.0}, {"descriptor_ns", 0.0}, {"swdge_descriptor_ns", 0.0}}}}));
  // Every row of every transfer at full rate (engines/dma_split.cpp: a row shorter than
  // efficient_bytes_per_row moves at that fraction of the rate).
  out.push_back(make(ResourceKind::dma, "DMA descriptors", "short rows at full rate",
                     {{"dma", {{"efficient_bytes_per_row", 1}}}}));
  out.push_back(
      make(ResourceKind::hbm, "HBM", "bandwidth doubled",
           {{"hbm", {{"chip_bandwidth_gbps", 2 * real(base, "hbm", "chip_bandwidth_gbps")}}}}));
  // Both together: a kernel whose DMA engines and HBM share are near equal is limited by
  // the other as soon as one is relieved.
  out.push_back(
      make(ResourceKind::dma, "DMA engines and HBM", "bandwidth doubled",
           {{"dma", {{"engine_bytes_per_ns", 2 * real(base, "dma", "engine_bytes_per_ns")}}},
            {"hbm", {{"chip_bandwidth_gbps", 2 * real(base, "hbm", "chip_bandwidth_gbps")}}}}));
  // A stationary load of at most matmul_max_m columns in one cycle (cost/cost_model.cpp:
  // ceil(M / load_stationary_speedup)).
  {
    Relief r =
        make(ResourceKind::engine, "tensor engine stationary loads", "one cycle each",
             {{"tensor", {{"load_stationary_speedup", base.at("tensor", "matmul_max_m").value}}}});
    r.engine = isa::Engine::tensor;
    out.push_back(std::move(r));
  }
  // The PE array's throttle (cost/tensor_throttle.hpp), where the target has one.
  if (base.at("tensor", "throttle").value.get<bool>()) {
    Relief r = make(ResourceKind::engine, "tensor engine throttle", "removed",
                    {{"tensor", {{"throttle", false}}}});
    r.engine = isa::Engine::tensor;
    out.push_back(std::move(r));
  }
  // Port sharing the target has (memory/port_map.hpp); a target without it has nothing
  // to relieve there.
  const std::array<std::pair<const char*, const char*>, 3> shared_ports = {{
      {"vector_gpsimd_share_sbuf", "SBUF port shared by Vector and GpSimd"},
      {"vector_scalar_share_psum", "PSUM port shared by Vector and Scalar"},
      {"psum_same_bank_conflicts", "PSUM banks (same-bank accesses conflict)"},
  }};
  for (const auto& [key, resource] : shared_ports)
    if (base.at("ports", key).value.get<bool>())
      out.push_back(
          make(ResourceKind::port, resource, "sharing removed", {{"ports", {{key, false}}}}));
  if (sequence) {
    Relief r = make(
        ResourceKind::host, "host dispatch", "removed",
        {{"host", {{"framework_dispatch_ns", 0.0}, {"runtime_call_ns", 0.0}, {"sync_ns", 0.0}}}});
    r.host_only = true;
    out.push_back(std::move(r));
  }
  return out;
}

std::string change_text(const config::Patch& patch) {
  std::string out;
  for (const auto& [section, params] : patch.values.items())
    for (const auto& [key, value] : params.items())
      out += (out.empty() ? "" : ", ") + section + "." + key + " = " + value.dump();
  return out;
}

}  // namespace neuronsim::whatif
