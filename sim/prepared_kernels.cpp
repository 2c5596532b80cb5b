#include "sim/prepared_kernels.hpp"

#include "validate/validate.hpp"

namespace neuronsim::detail {

PreparedKernels::Entry* PreparedKernels::find(const isa::Kernel* kernel) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->kernel.get() == kernel) {
      entries_.splice(entries_.begin(), entries_, it);
      return &entries_.front();
    }
  return nullptr;
}

PreparedKernels::Entry& PreparedKernels::insert(const std::shared_ptr<const isa::Kernel>& kernel) {
  Entry e;
  e.kernel = kernel;
  for (int s = 0; s < isa::kEngineCount; ++s)
    e.instructions += kernel->stream(static_cast<isa::Engine>(s)).size();
  entries_.push_front(std::move(e));
  std::uint64_t kept = 0;
  std::size_t count = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const bool keep =
        count == 0 || (count < max_kernels_ && kept + it->instructions <= max_instructions_);
    if (!keep) {
      it = entries_.erase(it);
      continue;
    }
    kept += it->instructions;
    ++count;
    ++it;
  }
  return entries_.front();
}

bool PreparedKernels::check(const std::shared_ptr<const isa::Kernel>& kernel,
                            const config::TargetConfig& config, const std::string& source) {
  if (find(kernel.get())) return false;
  isa::validate(*kernel, config.limits, source);
  insert(kernel);
  return true;
}

std::shared_ptr<const engines::KernelPlan> PreparedKernels::plan(
    const std::shared_ptr<const isa::Kernel>& kernel, const config::TargetConfig& config,
    memory::PortMap& ports) {
  Entry* e = find(kernel.get());
  if (!e) e = &insert(kernel);  // evicted since check(): it was valid then and still is
  if (!e->plan)
    e->plan = std::make_shared<const engines::KernelPlan>(
        engines::plan_kernel(*kernel, config.cost, ports));
  return e->plan;
}

}  // namespace neuronsim::detail
