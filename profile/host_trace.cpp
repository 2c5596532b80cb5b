#include "profile/host_trace.hpp"

#include <cstdio>
#include <filesystem>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/json_text.hpp"

namespace neuronsim::profile {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::string launch_profile_folder(std::size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "launch_%03zu", index);
  return buf;
}

double HostTrace::host_ns() const {
  double sum = 0;
  for (const auto& l : launches)
    sum += l.timing.host_ns;
  return sum;
}

namespace {

ordered_json interval_json(const Interval& i) {
  return {{"start_ns", i.start_ns}, {"end_ns", i.end_ns}};
}

}  // namespace

ordered_json host_trace_json(const HostTrace& t) {
  ordered_json launches = ordered_json::array();
  for (const auto& l : t.launches)
    launches.push_back({{"index", l.index},
                        {"name", l.name},
                        {"op", l.op},
                        {"nodes", l.nodes},
                        {"profile", l.profile},
                        {"framework_dispatch", interval_json(l.timing.framework_dispatch)},
                        {"runtime_call", interval_json(l.timing.runtime_call)},
                        {"device", interval_json(l.timing.device)},
                        {"host_ns", l.timing.host_ns},
                        {"device_ns", l.timing.device_ns}});
  return {{"format", "neuronsim-host-trace"},
          {"version", 1},
          {"program", t.program},
          {"mode", t.mode},
          {"target", t.target},
          {"host_model", t.host_model},
          {"total_ns", t.total_ns},
          {"device_ns", t.device_ns},
          {"launches", launches}};
}

bool is_sequence_profile(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::exists(fs::path(path) / kHostTraceFile, ec);
}

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw Error(file_ + ": " + field + ": " + why);
  }
  const ordered_json& at(const ordered_json& o, const char* key, const std::string& field) const {
    if (!o.is_object() || !o.contains(key)) fail(field + key, "missing");
    return o.at(key);
  }
  double number(const ordered_json& o, const char* key, const std::string& field) const {
    const ordered_json& v = at(o, key, field);
    if (!v.is_number() || v.get<double>() < 0) fail(field + key, "must be a number >= 0");
    return v.get<double>();
  }
  std::string text(const ordered_json& o, const char* key, const std::string& field) const {
    const ordered_json& v = at(o, key, field);
    if (!v.is_string()) fail(field + key, "must be a string");
    return v.get<std::string>();
  }
  Interval interval(const ordered_json& o, const char* key, const std::string& field) const {
    const ordered_json& v = at(o, key, field);
    const std::string f = field + key + ".";
    Interval i{number(v, "start_ns", f), number(v, "end_ns", f)};
    if (i.end_ns < i.start_ns) fail(field + key, "ends before it starts");
    return i;
  }

 private:
  std::string file_;
};

}  // namespace

HostTrace read_host_trace(const std::string& dir) {
  const std::string file = (fs::path(dir) / kHostTraceFile).string();
  const auto j = parse_json_text<ordered_json>(read_text_file(file, Limit::json_file_bytes), file);
  const Reader r(file);
  if (r.text(j, "format", "") != "neuronsim-host-trace")
    r.fail("format", "must be \"neuronsim-host-trace\"");
  const ordered_json& version = r.at(j, "version", "");
  if (!version.is_number_integer() || version.get<int>() != 1)
    r.fail("version", "only version 1 is known");
  HostTrace t;
  t.program = r.text(j, "program", "");
  t.mode = r.text(j, "mode", "");
  t.target = r.text(j, "target", "");
  t.host_model = r.at(j, "host_model", "");
  t.total_ns = r.number(j, "total_ns", "");
  t.device_ns = r.number(j, "device_ns", "");
  const ordered_json& launches = r.at(j, "launches", "");
  if (!launches.is_array() || launches.empty()) r.fail("launches", "must be a non-empty array");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::string f = "launches[" + std::to_string(i) + "].";
    const ordered_json& l = launches[i];
    HostTraceLaunch h;
    h.index = i;
    h.name = r.text(l, "name", f);
    h.op = r.text(l, "op", f);
    h.profile = r.text(l, "profile", f);
    if (h.profile.empty() || h.profile.find('/') != std::string::npos || h.profile[0] == '.')
      r.fail(f + "profile", "must name a folder inside the profile directory");
    if (l.contains("nodes") && l.at("nodes").is_array())
      for (const auto& n : l.at("nodes"))
        if (n.is_string()) h.nodes.push_back(n.get<std::string>());
    h.timing.framework_dispatch = r.interval(l, "framework_dispatch", f);
    h.timing.runtime_call = r.interval(l, "runtime_call", f);
    h.timing.device = r.interval(l, "device", f);
    h.timing.host_ns = r.number(l, "host_ns", f);
    h.timing.device_ns = r.number(l, "device_ns", f);
    t.launches.push_back(std::move(h));
  }
  return t;
}

}  // namespace neuronsim::profile
