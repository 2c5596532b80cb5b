#include "engines/instruction_plan.hpp"

#include "cost/cost_model.hpp"

namespace neuronsim::engines {

void access_bytes(const isa::Instruction& instr, traces::BytesBySpace& read,
                  traces::BytesBySpace& written) {
  isa::for_each_access(instr, [&](const isa::AccessPattern& ap, bool is_write) {
    (is_write ? written : read)[static_cast<int>(ap.space)] += memory::access_bytes(ap);
  });
}

namespace {

// Footprints of one instruction's operands, kept while planning the next one.
struct Footprints {
  std::vector<memory::Footprint> reads, writes;
  void of(const isa::Kernel& k, const isa::Instruction& instr) {
    reads.clear();
    writes.clear();
    isa::for_each_access(instr, [&](const isa::AccessPattern& ap, bool is_write) {
      (is_write ? writes : reads).push_back(memory::footprint(k, ap));
    });
  }
};

// Reads of `later` overlap writes of `earlier` (the dependence test of CostContext).
bool reads_what_was_written(const Footprints& later, const Footprints& earlier) {
  for (const auto& r : later.reads)
    for (const auto& w : earlier.writes)
      if (memory::overlaps(r, w)) return true;
  return false;
}

// Plans one stream in one pass over its records; with `ports`, also lists the ports each
// instruction holds (its reads' regions, then its writes', as isa::operands lists them).
std::vector<InstructionPlan> plan_one_stream(const isa::Kernel& k, isa::Engine engine,
                                             const params::CostParams& cost, memory::PortMap* ports,
                                             PortLists* lists) {
  const auto& stream = k.stream(engine);
  std::vector<InstructionPlan> plans(stream.size());
  if (lists) lists->first.reserve(stream.size() + 1);
  isa::InstructionStream::Reader reader(stream);
  isa::Instruction instr;
  Footprints now, previous;
  std::vector<memory::Footprint> regions;
  for (std::size_t i = 0; reader.next(instr); ++i) {
    auto& plan = plans[i];
    now.of(k, instr);
    isa::CostContext ctx;
    ctx.depends_on_previous = i > 0 && reads_what_was_written(now, previous);
    plan.depends_on_previous = ctx.depends_on_previous;
    plan.cycles = isa::cycles(k, instr, engine, cost, ctx);
    if (const auto load = isa::load_stationary_cycles(instr, cost))
      plan.load_cycles = static_cast<std::uint32_t>(*load);
    if (lists) {
      lists->first.push_back(static_cast<std::uint32_t>(lists->ports.size()));
      regions.assign(now.reads.begin(), now.reads.end());
      regions.insert(regions.end(), now.writes.begin(), now.writes.end());
      for (memory::Port* port : ports->ports_for(engine, regions))
        lists->ports.push_back(port);
    }
    std::swap(now, previous);
  }
  if (lists) lists->first.push_back(static_cast<std::uint32_t>(lists->ports.size()));
  return plans;
}

}  // namespace

std::vector<InstructionPlan> plan_stream(const isa::Kernel& k, isa::Engine engine,
                                         const params::CostParams& cost) {
  return plan_one_stream(k, engine, cost, nullptr, nullptr);
}

KernelPlan plan_kernel(const isa::Kernel& k, const params::CostParams& cost,
                       memory::PortMap& ports) {
  KernelPlan plan;
  for (int e = 0; e < isa::kEngineCount; ++e)
    plan.plans[e] = plan_one_stream(k, static_cast<isa::Engine>(e), cost, &ports, &plan.ports[e]);
  return plan;
}

}  // namespace neuronsim::engines
