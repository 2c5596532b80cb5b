#include "memory/port_map.hpp"

#include <algorithm>
#include <string>

namespace neuronsim::memory {

namespace {
int index(isa::Engine e) {
  return static_cast<int>(e);
}
}  // namespace

PortMap::PortMap(const PortRules& rules) : rules_(rules) {
  auto make = [&](const std::string& name) {
    owned_.push_back(std::make_unique<Port>(name));
    return owned_.back().get();
  };
  for (int i = 0; i < isa::kEngineCount; ++i) {
    const std::string engine(isa::engine_name(static_cast<isa::Engine>(i)));
    sbuf_[i] = make("sbuf:" + engine);
    psum_[i] = make("psum:" + engine);
  }
  if (rules.vector_gpsimd_share_sbuf)
    sbuf_[index(isa::Engine::gpsimd)] = sbuf_[index(isa::Engine::vector)];
  if (rules.vector_scalar_share_psum)
    psum_[index(isa::Engine::scalar)] = psum_[index(isa::Engine::vector)];
  if (rules.psum_same_bank_conflicts)
    for (std::uint32_t b = 0; b < rules.psum_banks; ++b)
      psum_banks_.push_back(make("psum-bank" + std::to_string(b)));
}

void PortMap::reset() {
  for (auto& p : owned_)
    p->reset();
}

std::vector<Port*> PortMap::ports_for(isa::Engine engine, const std::vector<Footprint>& regions) {
  std::vector<Port*> ports;
  auto add = [&](Port* p) {
    if (std::find(ports.begin(), ports.end(), p) == ports.end()) ports.push_back(p);
  };
  for (const auto& r : regions) {
    if (r.space == isa::MemSpace::sbuf) add(sbuf_[index(engine)]);
    if (r.space != isa::MemSpace::psum) continue;
    add(psum_[index(engine)]);
    if (psum_banks_.empty() || rules_.psum_bank_bytes == 0 || r.end_byte <= r.first_byte) continue;
    const std::uint64_t first = r.first_byte / rules_.psum_bank_bytes;
    const std::uint64_t last = (r.end_byte - 1) / rules_.psum_bank_bytes;
    for (std::uint64_t b = first; b <= last && b < psum_banks_.size(); ++b)
      add(psum_banks_[b]);
  }
  return ports;
}

}  // namespace neuronsim::memory
