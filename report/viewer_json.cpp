#include "report/viewer_json.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "report/pixel_fit.hpp"
#include "report/style.hpp"

namespace neuronsim::report {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || c == '<') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {

// One integer column; omitted from the JSON when all zero (the viewer reads a missing
// column as zeros).
class Column {
 public:
  explicit Column(const char* name) : name_(name) {}
  void add(std::int64_t v) {
    values_.push_back(v);
    any_ = any_ || v != 0;
  }
  void add_u(std::uint64_t v) { add(static_cast<std::int64_t>(v)); }
  // Appends ,"name":[...] to out (nothing when all zero).
  void write(std::string& out) const {
    if (!any_) return;
    out += ",\"";
    out += name_;
    out += "\":[";
    for (std::size_t i = 0; i < values_.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(values_[i]);
    }
    out += ']';
  }

 private:
  const char* name_;
  std::vector<std::int64_t> values_;
  bool any_ = false;
};

std::int64_t diff(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::int64_t>(a - b);  // two's complement: exact for |a - b| < 2^63
}

const char* group_name(LaneGroup g) {
  return g == LaneGroup::host ? "host" : g == LaneGroup::engine ? "engine" : "dma";
}

std::size_t slice_count(const Run& run) {
  std::size_t n = 0;
  for (const Lane& lane : run.lanes)
    n += lane.slices.size();
  return n;
}

void write_lane(std::string& out, const Lane& lane, const Run& run, bool fitted,
                bool with_details) {
  out += "{\"id\":" + json_string(lane.id) + ",\"label\":" + json_string(lane.label) +
         ",\"group\":\"" + group_name(lane.group) + "\"";
  Column starts("s"), durations("d"), kinds("k"), counts("n"), bytes("b"), details("i"),
      coverage("cv"), launches("L");
  std::uint64_t previous_start = 0;
  std::int64_t previous_detail = 0;
  std::size_t length = 0;
  // An engine lane is a view of the instruction details when every slice has one.
  bool detailed = with_details && lane.group == LaneGroup::engine && !fitted;
  for (std::size_t i = 0; detailed && i < lane.slices.size(); ++i)
    detailed = lane.slices[i].detail != kNoIndex;
  if (fitted) {
    const std::uint64_t total = run.total_ps ? run.total_ps : 1;
    const double column_ps = static_cast<double>(total) / kFittedColumns;
    for (const PixelRect& r : fit_lane(lane.slices, total, kFittedColumns)) {
      const std::uint64_t s =
          r.aggregated ? static_cast<std::uint64_t>(std::llround(r.x0 * column_ps)) : r.start_ps;
      const std::uint64_t e =
          r.aggregated ? static_cast<std::uint64_t>(std::llround(r.x1 * column_ps)) : r.end_ps;
      starts.add(diff(s, previous_start));
      previous_start = s;
      durations.add_u(e > s ? e - s : 0);
      kinds.add(r.kind);
      counts.add(static_cast<std::int64_t>(r.count) - 1);
      ++length;
      bytes.add_u(r.bytes);
      coverage.add(4 - static_cast<int>(std::lround(r.coverage * 4)));
    }
  } else {
    for (const Slice& s : lane.slices) {
      ++length;
      // An instruction's slice is its detail's start, duration and opcode: only the index.
      if (detailed) {
        const auto d = static_cast<std::int64_t>(s.detail);
        details.add(d - previous_detail);
        previous_detail = d;
        continue;
      }
      starts.add(diff(s.start_ps, previous_start));
      previous_start = s.start_ps;
      durations.add_u(s.end_ps > s.start_ps ? s.end_ps - s.start_ps : 0);
      kinds.add(s.kind);
      counts.add(static_cast<std::int64_t>(s.count) - 1);
      bytes.add_u(s.bytes);
      if (lane.group == LaneGroup::host)
        launches.add(s.detail == kNoIndex ? -1 : static_cast<std::int64_t>(s.detail));
    }
  }
  out += ",\"len\":" + std::to_string(length);
  if (detailed) out += ",\"det\":true";
  starts.write(out);
  durations.write(out);
  kinds.write(out);
  counts.write(out);
  bytes.write(out);
  details.write(out);
  coverage.write(out);
  launches.write(out);
  out += "}";
}

void write_steps(std::string& out, const char* times_name, const char* bytes_name,
                 const std::vector<OccupancyStep>& steps) {
  Column times(times_name), bytes(bytes_name);
  std::uint64_t previous = 0;
  for (const OccupancyStep& s : steps) {
    times.add(diff(s.time_ps, previous));
    previous = s.time_ps;
    bytes.add_u(s.bytes);
  }
  out += std::string(",\"") + times_name + "_n\":" + std::to_string(steps.size());
  times.write(out);
  bytes.write(out);
}

void write_occupancy(std::string& out, const char* name, const Occupancy& o) {
  out += std::string("\"") + name + "\":{\"cap\":" + std::to_string(o.capacity_bytes);
  write_steps(out, "rt", "rb", o.reserved);
  write_steps(out, "lt", "lb", o.live);
  out += "}";
}

void write_instructions(std::string& out, const ViewerData& v,
                        const std::unordered_map<std::uint32_t, std::uint32_t>& dma_slot) {
  Column engine("e"), opcode("o"), launch("l"), pc("pc"), line("ln"), location("lc"), operands("x"),
      waits("w"), waited("ws"), start("s"), duration("d"), ready("r"), cycle0("c0"), cycles("c1"),
      sem_wait("sw"), port_wait("pw"), dma_wait("dw"), throttle("th"), flops("fl"),
      signal_kind("sk"), signal_index("si"), signal_time("st");
  Column read[3] = {Column("r0"), Column("r1"), Column("r2")};
  Column written[3] = {Column("w0"), Column("w1"), Column("w2")};
  // pc, source line, start time and start cycle are deltas against the previous
  // instruction of the same engine (small numbers: each engine runs its stream in order).
  struct Previous {
    std::uint64_t pc = 0, line = 0, start = 0, cycle = 0;
  };
  std::array<Previous, isa::kEngineCount> previous{};
  for (const InstructionDetail& d : v.instructions) {
    Previous& p = previous[static_cast<std::size_t>(d.engine)];
    engine.add(static_cast<int>(d.engine));
    opcode.add(static_cast<int>(d.opcode));
    launch.add(d.launch);
    pc.add(diff(d.pc, p.pc));
    p.pc = d.pc;
    line.add(diff(d.source_line, p.line));
    p.line = d.source_line;
    location.add(d.location);
    operands.add(d.operands);
    waits.add(d.waits);
    waited.add(d.waited);
    start.add(diff(d.start_ps, p.start));
    p.start = d.start_ps;
    duration.add_u(d.end_ps - d.start_ps);
    // Ready -> start is the three waits, plus whatever they do not explain (usually 0).
    ready.add(diff(d.start_ps, d.ready_ps) -
              static_cast<std::int64_t>(d.semaphore_wait_ps + d.port_wait_ps + d.dma_wait_ps));
    cycle0.add(diff(d.start_cycle, p.cycle));
    p.cycle = d.start_cycle;
    cycles.add(diff(d.end_cycle, d.start_cycle));
    sem_wait.add_u(d.semaphore_wait_ps);
    port_wait.add_u(d.port_wait_ps);
    dma_wait.add_u(d.dma_wait_ps);
    throttle.add_u(d.throttle_ps);
    for (int s = 0; s < 3; ++s) {
      read[s].add_u(d.bytes.read[s]);
      written[s].add_u(d.bytes.written[s]);
    }
    flops.add_u(d.flops);
    signal_kind.add(static_cast<int>(d.signaller.kind));
    std::int64_t index = -1;
    if (d.signaller.kind == Signaller::Kind::instruction) index = d.signaller.index;
    if (d.signaller.kind == Signaller::Kind::dma) index = dma_slot.at(d.signaller.index);
    signal_index.add(index);
    signal_time.add(
        d.signaller.kind == Signaller::Kind::none ? 0 : diff(d.start_ps, d.signaller.time_ps));
  }
  out += "\"count\":" + std::to_string(v.instructions.size());
  for (const Column* c :
       {&engine,     &opcode,     &launch,   &pc,          &line,         &location,    &operands,
        &waits,      &waited,     &start,    &duration,    &ready,        &cycle0,      &cycles,
        &sem_wait,   &port_wait,  &dma_wait, &read[0],     &read[1],      &read[2],     &written[0],
        &written[1], &written[2], &flops,    &signal_kind, &signal_index, &signal_time, &throttle})
    c->write(out);
}

std::string string_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? "," : "") + json_string(items[i]);
  return out + "]";
}

}  // namespace

std::string viewer_json(const Run& run) {
  const ViewerData& v = run.viewer;
  const bool fitted = !v.complete || slice_count(run) > kMaxViewerSlices;
  const bool details = !fitted;
  std::string out = "{\"total\":" + std::to_string(run.total_ps) +
                    ",\"fitted\":" + (fitted ? "true" : "false") + ",\"kinds\":{";
  const struct {
    LaneGroup group;
    int count;
  } groups[] = {{LaneGroup::engine, isa::kOpcodeCount}, {LaneGroup::dma, 9}, {LaneGroup::host, 3}};
  for (const auto& g : groups) {
    if (g.group != LaneGroup::engine) out += ",";
    out += std::string("\"") + group_name(g.group) + "\":[";
    for (int k = 0; k < g.count; ++k) {
      const std::string name = kind_name(g.group, static_cast<std::uint16_t>(k));
      out += (k ? "," : "") + std::string("[") + json_string(name) + "," +
             json_string(kind_label(g.group, static_cast<std::uint16_t>(k))) + "," +
             json_string(kind_colour(name)) + "]";
    }
    out += "]";
  }
  out += "},\"lanes\":[";
  for (std::size_t i = 0; i < run.lanes.size(); ++i) {
    if (i) out += ",";
    write_lane(out, run.lanes[i], run, fitted, details);
  }
  out += "],\"engines\":[";
  for (int e = 0; e < isa::kEngineCount; ++e)
    out += (e ? "," : "") + json_string(std::string(isa::engine_name(static_cast<isa::Engine>(e))));
  out += "],\"launches\":[";
  for (std::size_t i = 0; i < run.launches.size(); ++i)
    out += (i ? "," : "") + json_string(run.launches[i].name);
  out += "],\"ops\":[";
  for (std::size_t i = 0; i < run.launches.size(); ++i)
    out += (i ? "," : "") + json_string(run.launches[i].op);
  out += "],\"queues\":" + string_list(v.queue_names);

  out += ",\"ins\":{";
  std::unordered_map<std::uint32_t, std::uint32_t> dma_slot;  // ViewerData::dmas -> embedded
  std::vector<std::uint32_t> embedded_dmas;
  if (details) {
    auto embed = [&](std::uint32_t d) {
      if (dma_slot.emplace(d, static_cast<std::uint32_t>(embedded_dmas.size())).second)
        embedded_dmas.push_back(d);
    };
    for (const InstructionDetail& d : v.instructions)
      if (d.signaller.kind == Signaller::Kind::dma) embed(d.signaller.index);
    for (std::uint32_t d = 0; d < v.dmas.size(); ++d)
      if (v.dmas[d].critical) embed(d);
    write_instructions(out, v, dma_slot);
  } else {
    out += "\"count\":0";
  }
  out += "},\"dma\":{\"count\":" + std::to_string(embedded_dmas.size());
  {
    Column queue("q"), start("s"), duration("d"), bytes("b"), issuer("iss"), critical("c"),
        launch("l");
    for (const std::uint32_t i : embedded_dmas) {
      const DmaPiece& p = v.dmas[i];
      queue.add(p.queue);
      start.add_u(p.start_ps);
      duration.add_u(p.end_ps - p.start_ps);
      bytes.add_u(p.bytes);
      issuer.add(p.issuer == kNoIndex ? -1 : static_cast<std::int64_t>(p.issuer));
      critical.add(p.critical ? 1 : 0);
      launch.add(p.launch);
    }
    for (const Column* c : {&queue, &start, &duration, &bytes, &issuer, &critical, &launch})
      c->write(out);
  }
  out += "},\"critical\":[";
  if (details)
    for (std::size_t i = 0; i < v.critical_path.size(); ++i)
      out += (i ? "," : "") + std::to_string(v.critical_path[i]);
  out += "],\"strings\":" + (details ? string_list(v.strings) : std::string("[\"\"]"));
  out += ",\"occupancy\":{";
  write_occupancy(out, "sbuf", v.sbuf);
  out += ",";
  write_occupancy(out, "psum", v.psum);
  return out + "}}";
}

}  // namespace neuronsim::report
