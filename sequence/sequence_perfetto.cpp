#include "sequence/sequence_perfetto.hpp"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "profile/directory.hpp"
#include "sequence/sequence_view.hpp"
#include "traces/format.hpp"
#include "traces/output_file.hpp"
#include "traces/perfetto.hpp"

namespace neuronsim::sequence {

namespace {

using nlohmann::ordered_json;

// NeuronCore 0 has the pid of its single-kernel export (traces/perfetto.hpp: core + 1);
// the host gets one no core can have. Never 0 (Perfetto's idle process).
constexpr int kHostPid = 1000;
constexpr int kDevicePid = 1;

std::uint64_t ns_to_ps(double ns) {
  return static_cast<std::uint64_t>(std::llround(ns * 1000.0));
}
// Timestamps in the per-launch export are microseconds with at most six decimals, i.e.
// whole picoseconds.
std::uint64_t us_to_ps(double us) {
  return static_cast<std::uint64_t>(std::llround(us * 1e6));
}

// One event as text, with "ts" and "dur" written exactly (integer ps -> microseconds).
class EventOut {
 public:
  explicit EventOut(traces::TextSink& file) : file_(file) {}
  void write(ordered_json e, std::uint64_t ts_ps, bool has_ts, std::uint64_t dur_ps = 0,
             bool has_dur = false) {
    e.erase("ts");
    e.erase("dur");
    std::string text = e.dump();
    std::string times;
    if (has_ts) times += ",\"ts\":" + traces::ps_as_us(ts_ps);
    if (has_dur) times += ",\"dur\":" + traces::ps_as_us(dur_ps);
    text.insert(text.size() - 1, times);
    file_.write(std::string(first_ ? "\n" : ",\n") + text);
    first_ = false;
  }

 private:
  traces::TextSink& file_;
  bool first_ = true;
};

void metadata(EventOut& out, int pid, int tid, const char* name, const ordered_json& args) {
  out.write({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"args", args}}, 0, false);
}

void host_lanes(EventOut& out, const SequenceProfile& p, std::uint64_t& flow_id) {
  const profile::HostTrace& h = p.host;
  metadata(out, kHostPid, 0, "process_name",
           {{"name", "Host: " + h.program + " (" + h.mode + ", " + h.target + ")"}});
  metadata(out, kHostPid, 0, "process_sort_index", {{"sort_index", 0}});
  const char* lanes[] = {"framework dispatch", "runtime calls", "device execution", "sync"};
  for (int i = 0; i < 4; ++i) {
    metadata(out, kHostPid, i + 1, "thread_name", {{"name", lanes[i]}});
    metadata(out, kHostPid, i + 1, "thread_sort_index", {{"sort_index", i}});
  }
  for (const auto& l : h.launches) {
    const ordered_json args = {
        {"index", l.index}, {"op", l.op}, {"nodes", l.nodes}, {"profile", l.profile}};
    const profile::Interval* parts[] = {&l.timing.framework_dispatch, &l.timing.runtime_call,
                                        &l.timing.device};
    std::uint64_t mid[3];
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t start = ns_to_ps(parts[i]->start_ns), end = ns_to_ps(parts[i]->end_ns);
      mid[i] = start + (end - start) / 2;
      out.write({{"ph", "X"},
                 {"pid", kHostPid},
                 {"tid", i + 1},
                 {"name", l.name},
                 {"cat", "host"},
                 {"args", args}},
                start, true, end - start, true);
    }
    // The runtime call submits the launch that the device then executes.
    const ordered_json flow = {{"name", "submit"}, {"cat", "host"}, {"id", ++flow_id}};
    ordered_json s = flow, f = flow;
    s["ph"] = "s", s["pid"] = kHostPid, s["tid"] = 2;
    f["ph"] = "f", f["pid"] = kHostPid, f["tid"] = 3, f["bp"] = "e";
    out.write(s, mid[1], true);
    out.write(f, mid[2], true);
  }
  // The host waits for the device (the runtime's synchronize, host.sync_ns): after every
  // launch when it is synchronous, after the last one when asynchronous. The last wait
  // ends the program, so the trace ends at the end-to-end time.
  if (h.launches.empty()) return;
  const double last_end = h.launches.back().timing.device.end_ns;
  const double sync_ns = h.total_ns - last_end;
  const auto& async = h.host_model.contains("async") ? h.host_model.at("async") : ordered_json();
  const bool synchronous = async.is_object() && async.value("value", true) == false;
  for (const auto& l : h.launches) {
    const bool last = &l == &h.launches.back();
    if (!last && !synchronous) continue;
    const std::uint64_t start = ns_to_ps(l.timing.device.end_ns);
    const std::uint64_t end =
        last ? ns_to_ps(h.total_ns) : ns_to_ps(l.timing.device.end_ns + sync_ns);
    if (end <= start) continue;
    out.write({{"ph", "X"},
               {"pid", kHostPid},
               {"tid", 4},
               {"name", "sync"},
               {"cat", "host"},
               {"args", {{"after", l.name}, {"index", l.index}}}},
              start, true, end - start, true);
  }
}

}  // namespace

void write_sequence_perfetto(const std::string& profile_dir, traces::TextSink& file) {
  const SequenceProfile p = open_sequence_profile(profile_dir);
  file.write(std::string("{\"traceEvents\":["));
  EventOut out(file);
  std::uint64_t flow_id = 0;
  host_lanes(out, p, flow_id);

  metadata(out, kDevicePid, 0, "process_name",
           {{"name", "NeuronCore 0: " + p.host.program + " (" + p.host.target + ")"}});
  metadata(out, kDevicePid, 0, "process_sort_index", {{"sort_index", 1}});
  std::map<std::string, int> tid_of_name;  // lanes shared by name across launches
  for (std::size_t i = 0; i < p.launch_dirs.size(); ++i) {
    const profile::Profile profile = profile::open_profile(p.launch_dirs[i]);
    traces::PerfettoOptions options;
    options.kernel = &profile.neff.kernel;
    traces::StringSink sink;
    traces::write_perfetto(sink, traces::read_ntff(profile.ntff_path), options);
    const ordered_json launch = ordered_json::parse(sink.str());
    const std::uint64_t offset = ns_to_ps(p.host.launches[i].timing.device.start_ns);
    // Counter samples at or after the next launch's start are that launch's to give: a
    // launch's closing zero there would cut the next one's first sample.
    const std::uint64_t next_start = i + 1 < p.launch_dirs.size()
                                         ? ns_to_ps(p.host.launches[i + 1].timing.device.start_ns)
                                         : UINT64_MAX;

    std::map<int, int> tid;  // this launch's tid -> the shared one
    for (const auto& e : launch.at("traceEvents")) {
      if (e.at("ph") != "M" || e.at("name") != "thread_name") continue;
      const std::string name = e.at("args").at("name");
      auto [it, added] = tid_of_name.emplace(name, static_cast<int>(tid_of_name.size()) + 1);
      tid[e.at("tid").get<int>()] = it->second;
      if (added) {
        metadata(out, kDevicePid, it->second, "thread_name", {{"name", name}});
        metadata(out, kDevicePid, it->second, "thread_sort_index", {{"sort_index", it->second}});
      }
    }
    std::uint64_t max_flow = 0;
    for (ordered_json e : launch.at("traceEvents")) {
      const std::string ph = e.at("ph");
      if (ph == "M") continue;
      e["pid"] = kDevicePid;
      const int t = e.at("tid").get<int>();
      if (tid.count(t)) e["tid"] = tid.at(t);
      if (e.contains("id")) {
        const std::uint64_t id = e.at("id").get<std::uint64_t>();
        max_flow = std::max(max_flow, id);
        e["id"] = flow_id + id;
      }
      const bool has_dur = e.contains("dur");
      const std::uint64_t dur = has_dur ? us_to_ps(e.at("dur").get<double>()) : 0;
      const std::uint64_t ts = offset + us_to_ps(e.at("ts").get<double>());
      if (ph == "C" && ts >= next_start) continue;
      out.write(e, ts, true, dur, has_dur);
    }
    flow_id += max_flow;
  }
  const ordered_json other = {
      {"program", p.host.program},     {"mode", p.host.mode},
      {"target", p.host.target},       {"total_ns", p.host.total_ns},
      {"device_ns", p.host.device_ns}, {"launches", p.host.launches.size()}};
  file.write("\n],\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + "}\n");
}

void write_sequence_perfetto(const std::string& profile_dir, const std::string& out_path) {
  traces::OutputFile file(out_path);
  traces::FileSink sink(file);
  write_sequence_perfetto(profile_dir, sink);
  file.commit();
}

}  // namespace neuronsim::sequence
