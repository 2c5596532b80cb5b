#include "sim/neuron_core.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "engines/sim_time.hpp"
#include "isa/error.hpp"

namespace neuronsim::sim {

namespace detail {
void systemc_link_anchor();  // systemc_link.cpp
}  // namespace detail

namespace {

bool g_core_built = false;  // SystemC: one elaboration per process

memory::PortRules port_rules(const TargetConfig& c) {
  memory::PortRules r;
  r.vector_gpsimd_share_sbuf = c.vector_gpsimd_share_sbuf_port;
  r.vector_scalar_share_psum = c.vector_scalar_share_psum_port;
  r.psum_same_bank_conflicts = c.psum_same_bank_conflicts;
  r.psum_banks = c.psum_banks;
  r.psum_bank_bytes = c.limits.psum_bank_bytes;
  return r;
}

}  // namespace

void claim_simulation() {
  if (g_core_built)
    throw Error("only one simulation per process: SystemC cannot elaborate a second NeuronCore");
  g_core_built = true;
  setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}

NeuronCore::NeuronCore(sc_core::sc_module_name name, const isa::Kernel& kernel,
                       const TargetConfig& config, const CoreOptions& options)
    : sc_module(name),
      kernel_(kernel),
      config_(config),
      observers_(options.observers),
      source_(options.source) {
  g_core_built = true;
  detail::systemc_link_anchor();
  // SystemC's info messages ("simulation stopped by user") are not ours to print.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  for (int e = 0; e < isa::kEngineCount; ++e)
    if (!(config_.clock_ghz(static_cast<isa::Engine>(e)) > 0))
      throw Error("config '" + config_.name + "': the " +
                  std::string(isa::engine_name(static_cast<isa::Engine>(e))) +
                  " clock must be positive");
  if (!options.timing_only)
    memory_ = std::make_unique<memory::MemoryImage>(kernel_, config_.limits, options.fill);
  ports_ = std::make_unique<memory::PortMap>(port_rules(config_));
  semaphores_ = std::make_unique<engines::Semaphores>(kernel_.semaphores, observers_);
  dma_ = std::make_unique<engines::DmaSubsystem>("dma", kernel_, config_.dma, memory_.get(),
                                                 *semaphores_, written_, observers_, failure_);
  context_.reset(new engines::CoreContext{kernel_, config_.cost, memory_.get(), *ports_,
                                          *semaphores_, *dma_, observers_, failure_, written_});
  auto& ctx = *context_;
  auto clock = [&](isa::Engine e) { return config_.clock_ghz(e); };
  using isa::Engine;
  engines_[static_cast<int>(Engine::tensor)] =
      std::make_unique<engines::TensorEngine>("tensor", clock(Engine::tensor), ctx);
  engines_[static_cast<int>(Engine::vector)] =
      std::make_unique<engines::VectorEngine>("vector", clock(Engine::vector), ctx);
  engines_[static_cast<int>(Engine::scalar)] =
      std::make_unique<engines::ScalarEngine>("scalar", clock(Engine::scalar), ctx);
  engines_[static_cast<int>(Engine::gpsimd)] =
      std::make_unique<engines::GpSimdEngine>("gpsimd", clock(Engine::gpsimd), ctx);
  engines_[static_cast<int>(Engine::sync)] =
      std::make_unique<engines::SyncEngine>("sync", clock(Engine::sync), ctx);
}

NeuronCore::~NeuronCore() = default;

void NeuronCore::run() {
  sc_core::sc_start();
  failure_.rethrow_if_failed();
  total_ = dma_->counters().last_completion;
  for (const auto& e : engines_)
    total_ = std::max(total_, e->counters().finished_at);
  bool all_done =
      std::all_of(engines_.begin(), engines_.end(), [](const auto& e) { return e->finished(); });
  if (!all_done || dma_->outstanding() > 0) {
    total_ = sc_core::sc_time_stamp();
    throw Error(deadlock_report());
  }
}

std::string NeuronCore::deadlock_report() const {
  std::ostringstream out;
  if (!source_.empty()) out << source_ << ": ";
  out << "kernel '" << kernel_.name << "': deadlock at " << std::fixed << std::setprecision(3)
      << engines::to_ns(sc_core::sc_time_stamp()) << " ns: no engine can make progress";
  auto sem_name = [&](std::uint16_t s) {
    const std::string& n = kernel_.semaphores[s].name;
    return "'" + (n.empty() ? "#" + std::to_string(s) : n) + "'";
  };
  for (const auto& e : engines_) {
    if (e->finished()) continue;
    const std::size_t i = e->current_index();
    const auto& instr = kernel_.stream(e->engine())[i];
    out << "\n  " << isa::engine_name(e->engine()) << "[" << i << "] "
        << isa::opcode_name(instr.opcode());
    if (instr.source_line) out << " (line " << instr.source_line << ")";
    bool any = false;
    for (const auto& w : instr.waits) {
      const std::uint32_t v = semaphores_->value(w.sem);
      if (v >= w.value) continue;
      out << (any ? ", " : ": waits for semaphore ") << sem_name(w.sem) << " = " << v
          << ", wants >= " << w.value;
      any = true;
    }
    if (!any) out << ": blocked (state " << static_cast<int>(e->state()) << ")";
  }
  if (dma_->outstanding() > 0)
    out << "\n  " << dma_->outstanding() << " DMA transfer(s) unfinished";
  return out.str();
}

}  // namespace neuronsim::sim
