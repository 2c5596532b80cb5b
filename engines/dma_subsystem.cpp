#include "engines/dma_subsystem.hpp"

#include <string>

#include "engines/sim_time.hpp"
#include "isa/error.hpp"
#include "isa/semantics.hpp"
#include "memory/footprint.hpp"

namespace neuronsim::engines {

namespace {
int space_index(isa::MemSpace s) {
  return static_cast<int>(s);
}
}  // namespace

DmaSubsystem::DmaSubsystem(sc_core::sc_module_name name, const isa::Kernel& kernel,
                           const isa::DmaParams& params, memory::MemoryImage* memory,
                           Semaphores& semaphores, WriteWatch& written, const Observers& observers,
                           FailureSink& failure)
    : sc_module(name),
      kernel_(kernel),
      params_(params),
      memory_(memory),
      semaphores_(semaphores),
      written_(written),
      observers_(observers),
      failure_(failure),
      bandwidth_("hbm_bandwidth", params.hbm_bytes_per_ns),
      queues_(kernel.queues.size()) {
  if (params.engines == 0) throw Error("config: dma.engines must be at least 1");
  if (!(params.engine_bytes_per_ns > 0))
    throw Error("config: dma.engine_bytes_per_ns must be positive");
  if (params.efficient_bytes_per_row > 0 &&
      !(params.small_row_min_efficiency > 0 && params.small_row_min_efficiency <= 1))
    throw Error("config: dma.small_row_min_efficiency must be in (0, 1]");
  for (std::uint32_t e = 0; e < params.engines; ++e)
    engines_.push_back(std::make_unique<DmaEngine>(
        ("dma" + std::to_string(e)).c_str(), params_, bandwidth_, failure_,
        [this](DmaPart& p) { part_started(p); }, [this](DmaPart& p) { part_done(p); }));
}

void DmaSubsystem::issue(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index) {
  const auto& copy = std::get<isa::DmaCopy>(instr.op);
  if (copy.queue >= queues_.size())
    throw Error(std::string(isa::engine_name(issuer)) + "[" + std::to_string(index) +
                "] dma_copy: queue " + std::to_string(copy.queue) + " does not exist");
  QueueState& q = queues_[copy.queue];
  while (params_.queue_depth > 0 && q.outstanding >= params_.queue_depth)
    sc_core::wait(*q.freed);

  auto t = std::make_unique<DmaTransfer>();
  t->id = next_id_++;
  t->instruction = &instr;
  t->copy = &copy;
  t->issuer = issuer;
  t->issuer_index = index;
  t->queued = sc_core::sc_time_stamp();
  const double efficiency = dma_efficiency(copy, params_);
  const bool hbm = copy.src.space == isa::MemSpace::hbm || copy.dst.space == isa::MemSpace::hbm;
  for (const auto& plan : split_transfer(copy, kernel_.queues[copy.queue], params_)) {
    auto part = std::make_unique<DmaPart>();
    part->transfer = t.get();
    part->plan = plan;
    part->efficiency = efficiency;
    part->touches_hbm = hbm;
    t->parts.push_back(std::move(part));
  }
  t->parts_left = t->parts.size();
  if (q.outstanding++ == 0) q.busy_since = sc_core::sc_time_stamp();
  DmaTransfer& ref = *t;
  transfers_.emplace(t->id, std::move(t));
  if (ref.parts.empty()) {
    complete(ref);
    return;
  }
  for (auto& part : ref.parts)
    engines_[part->plan.dma_engine]->enqueue(part.get());
}

DmaRecord DmaSubsystem::record(const DmaPart& part) const {
  const DmaTransfer& t = *part.transfer;
  DmaRecord r;
  r.transfer = t.id;
  r.queue = t.copy->queue;
  r.dma_engine = part.plan.dma_engine;
  r.hw_queue = part.plan.hw_queue;
  r.first_row = part.plan.first_row;
  r.rows = part.plan.rows;
  r.bytes = part.plan.bytes;
  r.src_space = t.copy->src.space;
  r.dst_space = t.copy->dst.space;
  r.issuer = t.issuer;
  r.issuer_index = t.issuer_index;
  r.queued_ps = to_ps(t.queued);
  r.start_ps = to_ps(part.start);
  return r;
}

void DmaSubsystem::part_started(DmaPart& part) {
  if (observers_.empty()) return;
  const DmaRecord r = record(part);
  for (auto* o : observers_)
    o->on_dma_start(r);
}

void DmaSubsystem::part_done(DmaPart& part) {
  counters_.parts++;
  if (!observers_.empty()) {
    DmaRecord r = record(part);
    r.end_ps = to_ps(sc_core::sc_time_stamp());
    for (auto* o : observers_)
      o->on_dma_end(r);
  }
  DmaTransfer& t = *part.transfer;
  if (--t.parts_left == 0) complete(t);
}

void DmaSubsystem::complete(DmaTransfer& t) {
  const isa::DmaCopy& copy = *t.copy;
  if (memory_) isa::execute(kernel_, *t.instruction, *memory_);
  written_.note(memory::footprint(kernel_, copy.dst));
  counters_.transfers++;
  counters_.bytes += dma_transfer_bytes(copy);
  counters_.read_bytes[space_index(copy.src.space)] += memory::access_bytes(copy.src);
  counters_.write_bytes[space_index(copy.dst.space)] += memory::access_bytes(copy.dst);
  if (copy.accumulate)  // read-add-write reads the destination too
    counters_.read_bytes[space_index(copy.dst.space)] += memory::access_bytes(copy.dst);
  counters_.last_completion = sc_core::sc_time_stamp();

  SignalSource source;
  source.kind = SignalSource::Kind::dma_queue;
  source.engine = t.issuer;
  source.instruction = t.issuer_index;
  source.queue = copy.queue;
  for (const auto& s : t.instruction->signals)
    semaphores_.apply(s, source);

  QueueState& q = queues_[copy.queue];
  if (--q.outstanding == 0) q.busy += sc_core::sc_time_stamp() - q.busy_since;
  q.freed->notify(sc_core::SC_ZERO_TIME);
  transfers_.erase(t.id);  // frees t and its parts
}

sc_core::sc_time DmaSubsystem::queue_busy_time(std::size_t queue) const {
  return queues_.at(queue).busy;
}

sc_core::sc_time DmaSubsystem::engine_busy_time(std::size_t dma_engine) const {
  return engines_.at(dma_engine)->busy_time();
}

}  // namespace neuronsim::engines
