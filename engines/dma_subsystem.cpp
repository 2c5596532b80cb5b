#include "engines/dma_subsystem.hpp"

#include <algorithm>
#include <string>

#include "base/error.hpp"
#include "engines/sim_time.hpp"
#include "memory/footprint.hpp"
#include "semantics/semantics.hpp"

namespace neuronsim::engines {

namespace {
int space_index(isa::MemSpace s) {
  return static_cast<int>(s);
}
}  // namespace

DmaSubsystem::DmaSubsystem(sc_core::sc_module_name name, const params::DmaParams& params,
                           HbmLink& hbm)
    : sc_module(name), params_(params) {
  if (params.engines == 0) throw Error("config: dma.engines must be at least 1");
  if (!(params.engine_bytes_per_ns > 0))
    throw Error("config: dma.engine_bytes_per_ns must be positive");
  if (params.efficient_bytes_per_row > 0 &&
      !(params.small_row_min_efficiency > 0 && params.small_row_min_efficiency <= 1))
    throw Error("config: dma.small_row_min_efficiency must be in (0, 1]");
  for (std::uint32_t e = 0; e < params.engines; ++e)
    engines_.push_back(std::make_unique<DmaEngine>(
        ("dma" + std::to_string(e)).c_str(), e, params_, hbm,
        [this](DmaPart& p) { part_started(p); }, [this](DmaPart& p) { part_done(p); },
        [this](DmaPart& part, std::exception_ptr error) { fail(part, error); }));
}

void DmaSubsystem::begin(LaunchContext& launch, const std::vector<std::uint64_t>& addresses,
                         const std::vector<std::uint8_t*>& write_from,
                         const std::vector<std::uint8_t*>& read_into) {
  launch_ = &launch;
  addresses_ = &addresses;
  write_from_ = &write_from;
  read_into_ = &read_into;
  aborted_ = false;
  queues_.clear();
  queues_.resize(launch.kernel.queues.size());
  next_id_ = 0;
  stats_ = DmaStats{};
  last_completion_ = sc_core::SC_ZERO_TIME;
  dge_free_.assign(params_.dge_instances, sc_core::SC_ZERO_TIME);
  for (auto& e : engines_)
    e->reset();
}

void DmaSubsystem::abort() {
  aborted_ = true;
  if (in_flight_ == 0) drained.notify(sc_core::SC_ZERO_TIME);
}

void DmaSubsystem::fail(std::exception_ptr error) {
  if (launch_) launch_->monitor.fail(error);
}

void DmaSubsystem::fail(const DmaPart& part, std::exception_ptr error) {
  if (!launch_) return;
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    const DmaTransfer& t = *part.transfer;
    fail(std::make_exception_ptr(
        Error(launch_->source + ": " + std::string(isa::engine_name(t.issuer)) + "[" +
              std::to_string(t.issuer_index) + "] dma_copy: " + e.what())));
  } catch (...) {
    fail(error);
  }
}

// Where the part's HBM bytes start: the HBM side's first element of the part's first row.
void DmaSubsystem::place(DmaPart& part, const isa::DmaCopy& copy) const {
  part.reads_hbm = copy.src.space == isa::MemSpace::hbm;
  const isa::AccessPattern& ap = part.reads_hbm ? copy.src : copy.dst;
  const auto& tensor = launch_->kernel.tensors.at(ap.buffer);
  const std::int64_t row =
      static_cast<std::int64_t>(ap.start_partition) +
      std::min<std::int64_t>(part.plan.first_row, std::max<std::uint32_t>(1, ap.partitions) - 1);
  const std::int64_t offset =
      static_cast<std::int64_t>(ap.byte_offset) +
      row * ap.partition_stride * static_cast<std::int64_t>(isa::dtype_size(ap.dtype));
  const std::int64_t last =
      std::max<std::int64_t>(0, static_cast<std::int64_t>(tensor.bytes()) - 1);
  const auto from = static_cast<std::uint64_t>(std::clamp<std::int64_t>(offset, 0, last));
  part.hbm_address = addresses_->at(ap.buffer) + from;
  part.span = tensor.bytes() - from;
  const auto& copies = part.reads_hbm ? *read_into_ : *write_from_;
  part.host = ap.buffer < copies.size() && copies[ap.buffer] ? copies[ap.buffer] + from : nullptr;
}

void DmaSubsystem::claim(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index) {
  const auto& copy = std::get<isa::DmaCopy>(instr.op);
  if (copy.queue >= queues_.size())
    throw Error(std::string(isa::engine_name(issuer)) + "[" + std::to_string(index) +
                "] dma_copy: queue " + std::to_string(copy.queue) + " does not exist");
  QueueState& q = queues_[copy.queue];
  while (params_.queue_depth > 0 && q.outstanding >= params_.queue_depth)
    sc_core::wait(*q.freed);
  if (q.outstanding++ == 0) q.busy_since = sc_core::sc_time_stamp();
}

sc_core::sc_time DmaSubsystem::issuer_time(const isa::Instruction& instr,
                                           isa::Engine issuer) const {
  if (descriptor_source(issuer, std::get<isa::DmaCopy>(instr.op), params_) !=
      DescriptorSource::software_dge)
    return sc_core::SC_ZERO_TIME;
  return from_ns(params_.swdge_descriptor_ns);
}

void DmaSubsystem::submit(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index) {
  const auto& copy = std::get<isa::DmaCopy>(instr.op);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (free_.empty()) {
    pool_.push_back(std::make_unique<DmaTransfer>());
    free_.push_back(pool_.back().get());
  }
  DmaTransfer* t = free_.back();
  free_.pop_back();
  ++in_flight_;
  t->id = next_id_++;
  t->instruction = instr;
  t->copy = &std::get<isa::DmaCopy>(t->instruction.op);  // the transfer's own copy
  t->issuer = issuer;
  t->issuer_index = index;
  t->queued = now;
  t->executed = false;

  // The descriptors reach the DMA engines when a hardware DGE block has made them (the
  // block free soonest; blocks serve transfers in issue order), else at once.
  sc_core::sc_time descriptors = now;
  if (descriptor_source(issuer, copy, params_) == DescriptorSource::hardware_dge &&
      !dge_free_.empty()) {
    auto block = std::min_element(dge_free_.begin(), dge_free_.end());
    descriptors = std::max(now, *block) + from_ns(params_.descriptor_ns);
    *block = descriptors;
  }
  const sc_core::sc_time ready = descriptors + from_ns(params_.fixed_latency_ns);

  const double efficiency = dma_efficiency(copy, params_);
  const bool hbm = copy.src.space == isa::MemSpace::hbm || copy.dst.space == isa::MemSpace::hbm;
  split_transfer(launch_->kernel, copy, params_, plans_);
  t->parts.clear();
  for (const DmaPartPlan& plan : plans_) {
    DmaPart& part = t->parts.emplace_back();
    part.transfer = t;
    part.plan = plan;
    part.efficiency = efficiency;
    part.touches_hbm = hbm;
    part.ready = ready;
    if (hbm) place(part, copy);
  }
  t->parts_left = t->parts.size();
  if (t->parts.empty()) {
    complete(*t);
    return;
  }
  for (DmaPart& part : t->parts)
    engines_[part.plan.dma_engine]->enqueue(&part);
}

traces::DmaRecord DmaSubsystem::record(const DmaPart& part) const {
  const DmaTransfer& t = *part.transfer;
  traces::DmaRecord r;
  r.transfer = t.id;
  r.queue = t.copy->queue;
  r.dma_engine = part.plan.dma_engine;
  r.hw_queue = part.plan.hw_queue;
  r.first_row = part.plan.first_row;
  r.rows = part.plan.rows;
  r.bytes = part.plan.bytes;
  r.src = t.copy->src.space;
  r.dst = t.copy->dst.space;
  r.issuer = t.issuer;
  r.issuer_index = t.issuer_index;
  r.issue_ps = to_ps(t.queued - launch_->origin);
  r.start_ps = to_ps(part.start - launch_->origin);
  return r;
}

void DmaSubsystem::execute(DmaTransfer& t) {
  if (t.executed) return;
  t.executed = true;
  if (launch_->memory) isa::execute(launch_->kernel, t.instruction, *launch_->memory);
}

void DmaSubsystem::part_started(DmaPart& part) {
  if (aborted_) return;
  if (part.touches_hbm && !part.reads_hbm) {
    try {
      execute(*part.transfer);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  if (launch_->observers.empty()) return;
  const traces::DmaRecord r = record(part);
  for (auto* o : launch_->observers)
    o->on_dma_start(r);
}

void DmaSubsystem::part_done(DmaPart& part) {
  stats_.parts++;
  if (!aborted_ && !launch_->observers.empty()) {
    try {
      traces::DmaRecord r = record(part);
      r.end_ps = to_ps(launch_->since_start());
      for (auto* o : launch_->observers)
        o->on_dma_end(r);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  DmaTransfer& t = *part.transfer;
  if (--t.parts_left == 0) complete(t);
}

void DmaSubsystem::complete(DmaTransfer& t) {
  const isa::DmaCopy& copy = *t.copy;
  LaunchContext& launch = *launch_;
  if (!aborted_) {
    try {
      execute(t);
      launch.written.note(memory::footprint(launch.kernel, copy.dst));
      stats_.transfers++;
      stats_.bytes += dma_transfer_bytes(copy);
      stats_.read_bytes[space_index(copy.src.space)] += dma_side_bytes(copy, copy.src);
      stats_.write_bytes[space_index(copy.dst.space)] += dma_side_bytes(copy, copy.dst);
      if (copy.accumulate)  // read-add-write reads the destination too
        stats_.read_bytes[space_index(copy.dst.space)] += dma_side_bytes(copy, copy.dst);
      last_completion_ = launch.since_start();

      traces::SignalSource source;
      source.kind = traces::SignalSource::Kind::dma_queue;
      source.engine = t.issuer;
      source.instruction = t.issuer_index;
      source.queue = copy.queue;
      for (const auto& s : t.instruction.signals)
        launch.semaphores.apply(s, source);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  QueueState& q = queues_[copy.queue];
  if (--q.outstanding == 0) q.busy += sc_core::sc_time_stamp() - q.busy_since;
  q.freed->notify(sc_core::SC_ZERO_TIME);
  free_.push_back(&t);  // t and its parts are reused by a later submit()
  --in_flight_;
  if (aborted_) {
    if (in_flight_ == 0) drained.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  launch.monitor.progress();
}

HbmStats DmaSubsystem::hbm_stats() const {
  const int hbm = space_index(isa::MemSpace::hbm);
  return {stats_.read_bytes[hbm], stats_.write_bytes[hbm]};
}

std::vector<DmaQueueStats> DmaSubsystem::queue_stats() const {
  std::vector<DmaQueueStats> out;
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    const std::string& name = launch_->kernel.queues[q].name;
    out.push_back({name.empty() ? std::to_string(q) : name, to_ps(queues_[q].busy)});
  }
  return out;
}

std::vector<DmaEngineStats> DmaSubsystem::engine_stats() const {
  std::vector<DmaEngineStats> out;
  for (const auto& e : engines_)
    out.push_back(e->stats());
  return out;
}

}  // namespace neuronsim::engines
