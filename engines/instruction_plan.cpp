#include "engines/instruction_plan.hpp"

#include "isa/cost_model.hpp"

namespace neuronsim::engines {

bool reads_what_was_written(const InstructionPlan& later, const InstructionPlan& earlier) {
  for (const auto& r : later.reads)
    for (const auto& w : earlier.writes)
      if (memory::overlaps(r, w)) return true;
  return false;
}

std::vector<InstructionPlan> plan_stream(const isa::Kernel& k, isa::Engine engine,
                                         const isa::CostParams& cost) {
  const auto& stream = k.stream(engine);
  std::vector<InstructionPlan> plans(stream.size());
  for (std::size_t i = 0; i < stream.size(); ++i) {
    const auto& instr = stream[i];
    auto& plan = plans[i];
    const isa::Operands ops = isa::operands(instr);
    for (const auto* ap : ops.reads) {
      plan.reads.push_back(memory::footprint(k, *ap));
      plan.read_bytes[static_cast<int>(ap->space)] += memory::access_bytes(*ap);
    }
    for (const auto* ap : ops.writes) {
      plan.writes.push_back(memory::footprint(k, *ap));
      plan.write_bytes[static_cast<int>(ap->space)] += memory::access_bytes(*ap);
    }
    isa::CostContext ctx;
    ctx.depends_on_previous = i > 0 && reads_what_was_written(plan, plans[i - 1]);
    plan.depends_on_previous = ctx.depends_on_previous;
    plan.cycles = isa::cycles(k, instr, engine, cost, ctx);
    if (const auto* mm = std::get_if<isa::Matmul>(&instr.op))
      plan.load_cycles = isa::load_stationary_cycles(*mm, cost);
  }
  return plans;
}

KernelPlan plan_kernel(const isa::Kernel& k, const isa::CostParams& cost, memory::PortMap& ports) {
  KernelPlan plan;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const auto engine = static_cast<isa::Engine>(e);
    plan.plans[e] = plan_stream(k, engine, cost);
    PortLists& lists = plan.ports[e];
    lists.first.reserve(plan.plans[e].size() + 1);
    std::vector<memory::Footprint> regions;
    for (const auto& p : plan.plans[e]) {
      lists.first.push_back(static_cast<std::uint32_t>(lists.ports.size()));
      regions.assign(p.reads.begin(), p.reads.end());
      regions.insert(regions.end(), p.writes.begin(), p.writes.end());
      for (memory::Port* port : ports.ports_for(engine, regions))
        lists.ports.push_back(port);
    }
    lists.first.push_back(static_cast<std::uint32_t>(lists.ports.size()));
  }
  return plan;
}

}  // namespace neuronsim::engines
