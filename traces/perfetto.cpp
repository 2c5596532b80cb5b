// TraceData -> Chrome JSON trace for Perfetto (perfetto.hpp), written event by event.
#include "traces/perfetto.hpp"

#include "traces/source_lines.hpp"

#include "base/text.hpp"

#include <algorithm>
#include <map>

#include "traces/format.hpp"
#include "traces/operand_text.hpp"
#include "traces/perfetto_tracks.hpp"
#include "traces/signallers.hpp"

namespace neuronsim::traces {

namespace {

using perfetto::Layout;

std::uint64_t mid(std::uint64_t start, std::uint64_t end) {
  // Flow ends bind to the slice enclosing their timestamp; the middle of a slice is inside
  // it, never on a boundary shared with a neighbour.
  return end > start ? start + (end - start) / 2 : start;
}

class EventWriter {
 public:
  EventWriter(TextSink& out, int pid) : out_(out), pid_(std::to_string(pid)) {}
  // `body`: the fields after "ph", "pid", "tid".
  void event(char ph, int tid, const std::string& body) {
    std::string s = first_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
    first_ = false;
    s += ph;
    s += "\",\"pid\":" + pid_ + ",\"tid\":" + std::to_string(tid) + "," + body + "}";
    out_ << s;
  }

 private:
  TextSink& out_;
  std::string pid_;
  bool first_ = true;
};

std::string arg(const char* name, const std::string& raw) {
  return std::string(",\"") + name + "\":" + raw;
}

std::string instruction_slice(const InstructionRecord& r, const isa::Kernel* k) {
  std::string s =
      "\"ts\":" + ps_as_us(r.start_ps) + ",\"dur\":" + ps_as_us(r.end_ps - r.start_ps) +
      ",\"name\":" + json_string(isa::opcode_name(r.opcode)) +
      ",\"cat\":\"instruction\",\"args\":{\"opcode\":" + json_string(isa::opcode_name(r.opcode)) +
      arg("pc", std::to_string(r.index));
  const std::optional<isa::Instruction> instr =
      k ? find_instruction(*k, r.engine, r.index) : std::nullopt;
  if (instr && instr->opcode() == r.opcode) {
    s += arg("operands", json_string(operand_text(*k, *instr)));
    if (instr->source_line) s += arg("source_line", std::to_string(instr->source_line));
    if (const isa::SourceLocation loc = k->stream(r.engine).location(r.index); loc.known())
      s += arg("source", json_string(location_text(*k, loc)));
  }
  if (r.semaphore_wait_ps) s += arg("semaphore_wait_ns", ps_as_ns(r.semaphore_wait_ps));
  if (r.port_wait_ps) s += arg("port_wait_ns", ps_as_ns(r.port_wait_ps));
  if (r.dma_wait_ps) s += arg("dma_queue_wait_ns", ps_as_ns(r.dma_wait_ps));
  if (r.throttle_ps) s += arg("throttle_ns", ps_as_ns(r.throttle_ps));
  if (const SemaphoreWaitRecord* longest = longest_wait(r);
      longest && longest->last_signaller.kind != SignalSource::Kind::initial)
    s += arg("waited_for", json_string(source_name(k, longest->last_signaller)));
  static const char* names[3][2] = {{"hbm_read_bytes", "hbm_write_bytes"},
                                    {"sbuf_read_bytes", "sbuf_write_bytes"},
                                    {"psum_read_bytes", "psum_write_bytes"}};
  for (int m = 0; m < 3; ++m) {
    if (r.bytes.read[m]) s += arg(names[m][0], std::to_string(r.bytes.read[m]));
    if (r.bytes.written[m]) s += arg(names[m][1], std::to_string(r.bytes.written[m]));
  }
  if (r.flops) s += arg("flops", std::to_string(r.flops));
  return s + "}";
}

std::string dma_slice(const DmaRecord& r, const isa::Kernel* k) {
  const std::uint64_t dur = r.end_ps - r.start_ps;
  const std::string route =
      std::string(isa::mem_space_name(r.src)) + "->" + std::string(isa::mem_space_name(r.dst));
  std::string s = "\"ts\":" + ps_as_us(r.start_ps) + ",\"dur\":" + ps_as_us(dur) +
                  ",\"name\":" + json_string(route) +
                  ",\"cat\":\"dma\",\"args\":{\"queue\":" + json_string(queue_name(k, r.queue)) +
                  arg("dma_engine", std::to_string(r.dma_engine)) +
                  arg("issuer", json_string(isa::engine_name(r.issuer))) +
                  arg("issuer_pc", std::to_string(r.issuer_index)) +
                  arg("bytes", std::to_string(r.bytes)) +
                  arg("queued_ns", ps_as_ns(r.start_ps - std::min(r.issue_ps, r.start_ps)));
  // bytes / ps = TB/s; x1000 = GB/s.
  if (dur)
    s +=
        arg("GB_per_s", fixed(static_cast<double>(r.bytes) * 1000.0 / static_cast<double>(dur), 3));
  return s + "}";
}

void write_metadata(EventWriter& w, const TraceData& t, const Layout& layout, int core) {
  const std::string process =
      "NeuronCore " + std::to_string(core) + ": " + t.info.kernel_name + " (" + t.info.target + ")";
  w.event('M', 0, "\"name\":\"process_name\",\"args\":{\"name\":" + json_string(process) + "}");
  w.event('M', 0,
          "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(core) + "}");
  for (std::size_t i = 0; i < layout.tracks.size(); ++i) {
    const auto& track = layout.tracks[i];
    w.event('M', track.tid,
            "\"name\":\"thread_name\",\"args\":{\"name\":" + json_string(track.name) + "}");
    w.event('M', track.tid,
            "\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(i) + "}");
  }
}

class FlowWriter {
 public:
  explicit FlowWriter(EventWriter& w) : w_(w) {}
  // An arrow binds to the slice enclosing each end; a zero-length slice (a dma_copy
  // issued in no time, say) is drawn as nothing, so an arrow from or to one would hang in
  // the air: it is left out (the DMA slice's args still name its issuer).
  void arrow(const std::string& name, const char* cat, int from_tid, std::uint64_t from_ps,
             int to_tid, std::uint64_t to_ps, bool both_ends_visible) {
    if (!both_ends_visible) return;
    const std::string common = ",\"name\":" + json_string(name) + ",\"cat\":\"" + cat +
                               "\",\"id\":" + std::to_string(++id_);
    w_.event('s', from_tid, "\"ts\":" + ps_as_us(from_ps) + common);
    w_.event('f', to_tid, "\"ts\":" + ps_as_us(to_ps) + common + ",\"bp\":\"e\"");
  }

 private:
  EventWriter& w_;
  std::uint64_t id_ = 0;
};

void write_flows(EventWriter& w, const TraceData& t, const Layout& layout, const isa::Kernel* k) {
  FlowWriter flows(w);
  auto tid_of_instruction = [&](std::size_t i) {
    return layout.tracks[layout.instruction_track[i]].tid;
  };
  auto tid_of_dma = [&](std::size_t i) { return layout.tracks[layout.dma_track[i]].tid; };

  // dma_copy instruction -> each of its DMA pieces.
  std::map<std::pair<int, std::uint32_t>, std::size_t> instruction_at;
  for (std::size_t i = 0; i < t.instructions.size(); ++i)
    instruction_at[{static_cast<int>(t.instructions[i].engine), t.instructions[i].index}] = i;
  for (std::size_t d = 0; d < t.dmas.size(); ++d) {
    const DmaRecord& dma = t.dmas[d];
    auto it = instruction_at.find({static_cast<int>(dma.issuer), dma.issuer_index});
    if (it == instruction_at.end()) continue;
    const InstructionRecord& from = t.instructions[it->second];
    flows.arrow("dma_copy", "dma", tid_of_instruction(it->second), mid(from.start_ps, from.end_ps),
                tid_of_dma(d), mid(dma.start_ps, dma.end_ps),
                from.end_ps > from.start_ps && dma.end_ps > dma.start_ps);
  }

  // The recorded signaller -> the instruction that waited for it.
  const std::vector<SignallerRef> signallers = find_signallers(t);
  for (std::size_t i = 0; i < t.instructions.size(); ++i) {
    const InstructionRecord& waiter = t.instructions[i];
    const SignallerRef& from = signallers[i];
    if (from.kind == SignallerRef::Kind::none) continue;
    const std::uint16_t sem = longest_wait(waiter)->semaphore;
    const std::string name =
        "semaphore " +
        (k && sem < k->semaphores.size() ? k->semaphores[sem].name : std::to_string(sem));
    const bool instruction = from.kind == SignallerRef::Kind::instruction;
    const std::uint64_t from_start =
        instruction ? t.instructions[from.index].start_ps : t.dmas[from.index].start_ps;
    const std::uint64_t from_end =
        instruction ? t.instructions[from.index].end_ps : t.dmas[from.index].end_ps;
    flows.arrow(
        name, "semaphore", instruction ? tid_of_instruction(from.index) : tid_of_dma(from.index),
        mid(from_start, from_end), tid_of_instruction(i), mid(waiter.start_ps, waiter.end_ps),
        from_end > from_start && waiter.end_ps > waiter.start_ps);
  }
}

void write_counters(EventWriter& w, const TraceData& t, const PerfettoOptions& o) {
  const std::uint64_t total = t.info.total_ps;
  if (!t.dmas.empty() && total > 0) {
    // HBM bandwidth: each DMA piece's bytes spread evenly over its start -> end, summed
    // per window.
    std::uint64_t window = o.counter_window_ps ? o.counter_window_ps
                                               : std::max<std::uint64_t>(1000, (total + 499) / 500);
    const std::uint64_t n = (total + window - 1) / window;
    std::vector<double> read(n, 0.0), written(n, 0.0);
    for (const DmaRecord& r : t.dmas) {
      const bool reads = r.src == isa::MemSpace::hbm, writes = r.dst == isa::MemSpace::hbm;
      if (!reads && !writes) continue;
      auto add = [&](std::uint64_t k, double bytes) {
        k = std::min(k, n - 1);
        if (reads) read[k] += bytes;
        if (writes) written[k] += bytes;
      };
      if (r.end_ps <= r.start_ps) {
        add(r.start_ps / window, static_cast<double>(r.bytes));
        continue;
      }
      const double per_ps =
          static_cast<double>(r.bytes) / static_cast<double>(r.end_ps - r.start_ps);
      for (std::uint64_t k = r.start_ps / window; k * window < r.end_ps && k < n; ++k) {
        const std::uint64_t from = std::max(r.start_ps, k * window);
        const std::uint64_t to = std::min(r.end_ps, (k + 1) * window);
        add(k, per_ps * static_cast<double>(to - from));
      }
    }
    // bytes per window -> GB/s: bytes * 1000 / ps. The last window ends at the run's end,
    // so it may be shorter than the others.
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t length = std::min(total, (k + 1) * window) - k * window;
      const double scale = 1000.0 / static_cast<double>(length);
      w.event('C', 0,
              "\"ts\":" + ps_as_us(k * window) +
                  ",\"name\":\"HBM bandwidth (GB/s)\",\"args\":{\"read\":" +
                  fixed(read[k] * scale, 3) + ",\"write\":" + fixed(written[k] * scale, 3) + "}");
    }
    // The closing sample at the run's exact end, not at the end of the last whole window
    // (which can lie past it, where a launch sequence's next launch has begun).
    w.event('C', 0,
            "\"ts\":" + ps_as_us(total) +
                ",\"name\":\"HBM bandwidth (GB/s)\",\"args\":{\"read\":0.000,\"write\":0.000}");
  }
  if (o.kernel) {
    // Allocations are declared for the whole kernel (there is no allocate/free in the
    // ISA), so bytes in use are constant over the run: one step at 0, held to the end.
    std::uint64_t bytes[3] = {0, 0, 0};
    for (const auto& a : o.kernel->allocations)
      bytes[static_cast<int>(a.space)] += a.bytes_per_partition() * a.partitions;
    const std::string args = "\"args\":{\"sbuf\":" + std::to_string(bytes[1]) +
                             ",\"psum\":" + std::to_string(bytes[2]) + "}";
    w.event('C', 0, "\"ts\":0,\"name\":\"SBUF/PSUM allocated (bytes)\"," + args);
    w.event('C', 0,
            "\"ts\":" + ps_as_us(total) + ",\"name\":\"SBUF/PSUM allocated (bytes)\"," + args);
  }
}

}  // namespace

void write_perfetto(TextSink& out, const TraceData& trace, const PerfettoOptions& options) {
  const Layout layout = perfetto::lay_out(trace, options.kernel);
  out << "{\"traceEvents\":[";
  // Never pid 0: Perfetto's importer treats pid 0 as the swapper/idle process of a system
  // trace (its maintainers advise against it), so NeuronCore c is process c + 1.
  EventWriter w(out, options.core + 1);
  write_metadata(w, trace, layout, options.core);
  for (std::size_t track = 0; track < layout.tracks.size(); ++track) {
    const int tid = layout.tracks[track].tid;
    const bool dma = track >= layout.first_dma_track;
    for (const auto& slice : layout.slices[track]) {
      if (dma)
        w.event('X', tid, dma_slice(trace.dmas[slice.record], options.kernel));
      else
        w.event('X', tid, instruction_slice(trace.instructions[slice.record], options.kernel));
    }
  }
  write_flows(w, trace, layout, options.kernel);
  write_counters(w, trace, options);
  out << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":" +
             json_string(trace.info.kernel_name) + ",\"target\":" + json_string(trace.info.target) +
             ",\"neff_hash\":\"" +
             hex_bytes(trace.info.neff_hash.data(), trace.info.neff_hash.size()) +
             "\",\"total_time_ps\":" + std::to_string(trace.info.total_ps) + "}}\n";
}

void write_perfetto_file(const std::string& path, const TraceData& trace,
                         const PerfettoOptions& options) {
  OutputFile file(path);
  FileSink sink(file);
  write_perfetto(sink, trace, options);
  file.commit();
}

}  // namespace neuronsim::traces
