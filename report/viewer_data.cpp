#include "report/viewer_data.hpp"

#include "traces/source_lines.hpp"

#include <algorithm>
#include <map>

#include "traces/critical_path.hpp"
#include "traces/operand_text.hpp"
#include "traces/record_index.hpp"
#include "traces/signallers.hpp"

namespace neuronsim::report {

std::uint32_t ViewerData::intern(const std::string& s) {
  const auto [it, added] = string_index_.emplace(s, static_cast<std::uint32_t>(strings.size()));
  if (added) strings.push_back(s);
  return it->second;
}

namespace {

using traces::by_start;
using traces::DmaRecord;
using traces::InstructionRecord;
using traces::SemaphoreRecord;
using traces::TraceData;

// Per instruction of the trace: who set the semaphore it waited on longest (trace-local
// indices: kind instruction -> trace.instructions, dma -> trace.dmas), as recorded.
std::vector<Signaller> viewer_signallers(const TraceData& t) {
  std::vector<Signaller> out(t.instructions.size());
  const std::vector<traces::SignallerRef> refs = traces::find_signallers(t);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    using K = traces::SignallerRef::Kind;
    if (refs[i].kind == K::none) continue;
    Signaller& sig = out[i];
    // Signals are applied when the signalling instruction or DMA part ends.
    if (refs[i].kind == K::instruction) {
      sig.kind = Signaller::Kind::instruction;
      sig.time_ps = t.instructions[refs[i].index].end_ps;
    } else {
      sig.kind = Signaller::Kind::dma;
      sig.time_ps = t.dmas[refs[i].index].end_ps;
    }
    sig.index = static_cast<std::uint32_t>(refs[i].index);
  }
  return out;
}

std::string waits_text(const isa::Kernel& k, const isa::Instruction* instr) {
  if (!instr) return "";
  std::string out;
  for (const isa::SemWait& w : instr->waits) {
    if (!out.empty()) out += ", ";
    out += (w.sem < k.semaphores.size() ? k.semaphores[w.sem].name : std::to_string(w.sem)) +
           ">=" + std::to_string(w.value);
  }
  return out;
}

std::int64_t signed_bytes(std::uint64_t b) {
  return static_cast<std::int64_t>(b);
}

std::uint64_t allocation_bytes(const isa::Allocation& a) {
  return a.bytes_per_partition() * a.partitions;
}

// Reserved: every allocation of the kernel from the launch's device start to its end.
// Live: each allocation from the start of the first instruction (or DMA piece of a
// dma_copy) that touches it to the end of the last.
void add_occupancy(ViewerData& v, const TraceData& t, const isa::Kernel& k, std::uint64_t offset_ps,
                   std::uint64_t device_end_ps,
                   const std::vector<std::uint64_t>& dma_end_of_instruction) {
  Occupancy* spaces[] = {nullptr, &v.sbuf, &v.psum};  // by isa::MemSpace
  std::uint64_t reserved[3] = {0, 0, 0};
  for (const isa::Allocation& a : k.allocations) {
    const int s = static_cast<int>(a.space);
    if (s >= 1 && s <= 2) reserved[s] += allocation_bytes(a);
  }
  for (int s = 1; s <= 2; ++s)
    if (reserved[s]) {
      spaces[s]->reserved_changes.emplace_back(offset_ps, signed_bytes(reserved[s]));
      spaces[s]->reserved_changes.emplace_back(device_end_ps, -signed_bytes(reserved[s]));
    }
  struct Use {
    std::uint64_t first = UINT64_MAX, last = 0;
  };
  std::vector<Use> uses(k.allocations.size());
  for (std::size_t i = 0; i < t.instructions.size(); ++i) {
    const InstructionRecord& r = t.instructions[i];
    const std::optional<isa::Instruction> instr = traces::find_instruction(k, r.engine, r.index);
    if (!instr) continue;
    const isa::Operands ops = isa::operands(*instr);
    const std::uint64_t end = std::max(r.end_ps, dma_end_of_instruction[i]);
    for (const auto* list : {&ops.reads, &ops.writes})
      for (const isa::AccessPattern* ap : *list) {
        if (ap->space == isa::MemSpace::hbm || ap->buffer >= uses.size()) continue;
        uses[ap->buffer].first = std::min(uses[ap->buffer].first, r.start_ps);
        uses[ap->buffer].last = std::max(uses[ap->buffer].last, end);
      }
  }
  for (std::size_t a = 0; a < uses.size(); ++a) {
    const int s = static_cast<int>(k.allocations[a].space);
    if (s < 1 || s > 2 || uses[a].first > uses[a].last) continue;
    const std::int64_t b = signed_bytes(allocation_bytes(k.allocations[a]));
    spaces[s]->live_changes.emplace_back(uses[a].first + offset_ps, b);
    spaces[s]->live_changes.emplace_back(uses[a].last + offset_ps, -b);
  }
}

// The critical path of one launch (traces/critical_path.hpp), marked on its records.
// first_instruction / first_dma: where the launch's records start in v.
void mark_critical_path(ViewerData& v, const TraceData& t, std::uint32_t first_instruction,
                        std::uint32_t first_dma) {
  std::vector<std::uint32_t> path;
  for (const traces::CriticalStep& step : traces::critical_path(t)) {
    if (step.kind == traces::CriticalStep::Kind::dma) {
      v.dmas[first_dma + step.index].critical = true;
      continue;
    }
    v.instructions[first_instruction + step.index].critical = true;
    path.push_back(first_instruction + static_cast<std::uint32_t>(step.index));
  }
  v.critical_path.insert(v.critical_path.end(), path.rbegin(), path.rend());
}

std::vector<OccupancyStep> steps_of(std::vector<std::pair<std::uint64_t, std::int64_t>>& changes) {
  std::stable_sort(changes.begin(), changes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<OccupancyStep> out;
  std::int64_t level = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const std::uint64_t t = changes[i].first;
    for (; i < changes.size() && changes[i].first == t; ++i)
      level += changes[i].second;
    const std::uint64_t bytes = level > 0 ? static_cast<std::uint64_t>(level) : 0;
    if (out.empty() || out.back().bytes != bytes) out.push_back({t, bytes});
  }
  changes.clear();
  changes.shrink_to_fit();
  return out;
}

}  // namespace

std::uint32_t add_viewer_launch(ViewerData& v, const TraceData& t, const isa::Kernel& k,
                                std::uint32_t launch, std::uint64_t offset_ps,
                                std::uint64_t device_end_ps) {
  const std::vector<long> issuer_of_dma = traces::dma_issuers(t);
  std::vector<std::uint64_t> dma_end_of_instruction(t.instructions.size(), 0);
  for (std::size_t d = 0; d < t.dmas.size(); ++d) {
    if (issuer_of_dma[d] < 0) continue;
    auto& end = dma_end_of_instruction[static_cast<std::size_t>(issuer_of_dma[d])];
    end = std::max(end, t.dmas[d].end_ps);
  }
  add_occupancy(v, t, k, offset_ps, device_end_ps, dma_end_of_instruction);

  if (!v.complete || v.instructions.size() + t.instructions.size() > kMaxViewerInstructions) {
    v.complete = false;
    v.instructions.clear();
    v.instructions.shrink_to_fit();
    v.dmas.clear();
    v.dmas.shrink_to_fit();
    v.critical_path.clear();
    return kNoIndex;
  }
  const auto first_instruction = static_cast<std::uint32_t>(v.instructions.size());
  const auto first_dma = static_cast<std::uint32_t>(v.dmas.size());

  // Queues are named by the kernel; one name is one queue across launches.
  auto queue_index = [&](std::uint16_t q) {
    const std::string name = q < k.queues.size() ? k.queues[q].name : "q" + std::to_string(q);
    const auto at = static_cast<std::size_t>(
        std::find(v.queue_names.begin(), v.queue_names.end(), name) - v.queue_names.begin());
    if (at == v.queue_names.size()) v.queue_names.push_back(name);
    return static_cast<std::uint16_t>(at);
  };
  std::map<std::uint16_t, std::uint16_t> queue_of;
  for (std::size_t d = 0; d < t.dmas.size(); ++d) {
    const DmaRecord& r = t.dmas[d];
    auto q = queue_of.find(r.queue);
    if (q == queue_of.end()) q = queue_of.emplace(r.queue, queue_index(r.queue)).first;
    DmaPiece piece;
    piece.launch = launch;
    piece.queue = q->second;
    piece.start_ps = r.start_ps + offset_ps;
    piece.end_ps = r.end_ps + offset_ps;
    piece.bytes = r.bytes;
    if (issuer_of_dma[d] >= 0)
      piece.issuer = first_instruction + static_cast<std::uint32_t>(issuer_of_dma[d]);
    v.dmas.push_back(piece);
  }

  const std::vector<Signaller> signallers = viewer_signallers(t);
  for (std::size_t i = 0; i < t.instructions.size(); ++i) {
    const InstructionRecord& r = t.instructions[i];
    const std::optional<isa::Instruction> instr = traces::find_instruction(k, r.engine, r.index);
    InstructionDetail d;
    d.launch = launch;
    d.engine = r.engine;
    d.opcode = r.opcode;
    d.pc = r.index;
    d.source_line = instr ? instr->source_line : 0;
    if (const isa::SourceLocation loc = k.stream(r.engine).location(r.index); instr && loc.known())
      d.location = v.intern(traces::location_text(k, loc));
    d.operands = v.intern(instr ? traces::operand_text(k, *instr) : "?");
    d.waits = v.intern(waits_text(k, instr ? &*instr : nullptr));
    if (const traces::SemaphoreWaitRecord* longest = traces::longest_wait(r))
      d.waited =
          v.intern(longest->semaphore < k.semaphores.size() ? k.semaphores[longest->semaphore].name
                                                            : std::to_string(longest->semaphore));
    d.ready_ps = r.ready_ps + offset_ps;
    d.start_ps = r.start_ps + offset_ps;
    d.end_ps = r.end_ps + offset_ps;
    d.start_cycle = r.start_cycle;
    d.end_cycle = r.end_cycle;
    d.semaphore_wait_ps = r.semaphore_wait_ps;
    d.port_wait_ps = r.port_wait_ps;
    d.dma_wait_ps = r.dma_wait_ps;
    d.throttle_ps = r.throttle_ps;
    d.bytes = r.bytes;
    d.flops = r.flops;
    d.signaller = signallers[i];
    if (d.signaller.kind != Signaller::Kind::none) d.signaller.time_ps += offset_ps;
    if (d.signaller.kind == Signaller::Kind::instruction) d.signaller.index += first_instruction;
    if (d.signaller.kind == Signaller::Kind::dma) d.signaller.index += first_dma;
    v.instructions.push_back(d);
  }
  mark_critical_path(v, t, first_instruction, first_dma);
  return first_instruction;
}

void finish_viewer(ViewerData& v) {
  for (Occupancy* o : {&v.sbuf, &v.psum}) {
    o->reserved = steps_of(o->reserved_changes);
    o->live = steps_of(o->live_changes);
  }
}

}  // namespace neuronsim::report
