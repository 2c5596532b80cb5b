#include "report/load.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/json_text.hpp"
#include "config/target_config.hpp"
#include "profile/directory.hpp"
#include "profile/host_trace.hpp"
#include "profile/peak_flops.hpp"
#include "report/lanes.hpp"
#include "report/source_view.hpp"
#include "report/summary_sum.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::report {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

// Peak flops/s of the kernel on its target (profile/peak_flops.hpp); 0 when the target is
// unknown, and MFU is then not shown.
double peak_flops(const isa::Kernel& k) {
  try {
    return profile::peak_flops_per_s(config::load_target(k.target), k);
  } catch (const Error&) {
    return 0;
  }
}

// One kernel profile: its summary, its lanes shifted to `offset_ps`, its kernel.
struct KernelProfile {
  profile::Profile profile;
  traces::Summary summary;
};

// The NEFF does not store source lines (docs/neff.md), so the viewer's are lines of the
// kernel's disassembly (`neuronsim disasm`): the printer's text assembled again numbers
// them. Kernels written as that text (the examples' .nasm files) get their own lines.
void number_source_lines(isa::Kernel& k) {
  for (const auto& stream : k.streams)
    for (const isa::Instruction& instr : stream)
      if (instr.source_line) return;
  try {
    const isa::Kernel numbered = isa::assemble(isa::print(k), k.name + ".nasm");
    for (int e = 0; e < isa::kEngineCount; ++e)
      for (std::size_t i = 0; i < k.streams[e].size() && i < numbered.streams[e].size(); ++i)
        k.streams[e].set_source_line(i, numbered.streams[e].source_line(i));
  } catch (const Error&) {
    // A kernel the printer cannot round-trip keeps "unknown" lines.
  }
}

// SBUF and PSUM capacity of the kernel's target (0 when the target is unknown).
void set_capacity(ViewerData& v, const isa::Kernel& k) {
  try {
    const config::TargetConfig target = config::load_target(k.target);
    const std::uint64_t partitions = target.limits.partitions;
    v.sbuf.capacity_bytes =
        std::max(v.sbuf.capacity_bytes, partitions * target.limits.sbuf_bytes_per_partition);
    v.psum.capacity_bytes =
        std::max(v.psum.capacity_bytes, partitions * target.limits.psum_bytes_per_partition);
  } catch (const Error&) {
  }
}

// One kernel profile into the run: its lanes and viewer data shifted to `offset_ps`, the
// launch's device span ending at device_end_ps (0: where its trace ends).
KernelProfile load_kernel(const std::string& path, Run& run, std::vector<Lane>& device_lanes,
                          std::uint64_t offset_ps, std::uint64_t device_end_ps) {
  KernelProfile k{profile::open_profile(path), {}};
  const traces::TraceData trace = traces::read_ntff(k.profile.ntff_path);
  number_source_lines(k.profile.neff.kernel);
  traces::SummaryOptions options;
  options.kernel = &k.profile.neff.kernel;
  options.peak_flops_per_s = peak_flops(k.profile.neff.kernel);
  k.summary = traces::summarize(trace, options);
  std::vector<std::string> queues;
  for (const isa::DmaQueue& q : k.profile.neff.kernel.queues)
    queues.push_back(q.name);
  const std::uint32_t first_detail = add_viewer_launch(
      run.viewer, trace, k.profile.neff.kernel, static_cast<std::uint32_t>(run.launches.size()),
      offset_ps, device_end_ps ? device_end_ps : offset_ps + trace.info.total_ps);
  set_capacity(run.viewer, k.profile.neff.kernel);
  add_source_times(run.sources, k.profile.neff.kernel, trace);
  add_device_trace(device_lanes, trace, queues, offset_ps, first_detail);
  return k;
}

std::uint64_t kernel_io_bytes(const isa::Kernel& k) {
  std::uint64_t bytes = 0;
  for (const isa::HbmTensor& t : k.tensors)
    if (t.role == isa::TensorRole::input || t.role == isa::TensorRole::output) bytes += t.bytes();
  return bytes;
}

Run load_single(const std::string& path) {
  Run run;
  std::vector<Lane> lanes = engine_lanes();
  KernelProfile k = load_kernel(path, run, lanes, 0, 0);
  const isa::Kernel& kernel = k.profile.neff.kernel;
  run.label = path;
  run.program = kernel.name;
  run.target = kernel.target;
  run.total_ps = k.summary.total_ps;
  run.io_bytes = kernel_io_bytes(kernel);
  run.peak_flops_per_s = k.summary.peak_flops_per_s;
  RunLaunch launch;
  launch.name = kernel.name;
  launch.device = {0, k.summary.total_ps};
  launch.summary = k.summary;
  run.launches.push_back(std::move(launch));
  run.device = std::move(k.summary);
  run.lanes = std::move(lanes);
  sort_lanes(run.lanes);
  finish_viewer(run.viewer);
  return run;
}

// host.json reading: every missing or mistyped field is an error naming it.
struct HostJson {
  std::string file;

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw Error(file + ": " + where + ": " + why);
  }
  const ordered_json& field(const ordered_json& obj, const std::string& key,
                            const std::string& where) const {
    if (!obj.is_object()) fail(where, "not an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(where, "no \"" + key + "\"");
    return *it;
  }
  std::string text(const ordered_json& obj, const std::string& key,
                   const std::string& where) const {
    const ordered_json& v = field(obj, key, where);
    if (!v.is_string()) fail(where + "." + key, "not a string");
    return v.get<std::string>();
  }
  double number(const ordered_json& obj, const std::string& key, const std::string& where) const {
    const ordered_json& v = field(obj, key, where);
    if (!v.is_number()) fail(where + "." + key, "not a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) fail(where + "." + key, "not a finite time >= 0");
    return d;
  }
  std::uint64_t ps(const ordered_json& obj, const std::string& key,
                   const std::string& where) const {
    return static_cast<std::uint64_t>(std::llround(number(obj, key, where) * 1000.0));
  }
  Interval span(const ordered_json& launch, const std::string& key,
                const std::string& where) const {
    const ordered_json& s = field(launch, key, where);
    const std::string at = where + "." + key;
    Interval i{ps(s, "start_ns", at), ps(s, "end_ns", at)};
    if (i.end_ps < i.start_ps) fail(at, "ends before it starts");
    return i;
  }
};

// "5000 ns", but "true" and "4": a flag or a count is its own unit ("true flag" read as
// words).
std::string host_model_value(const ordered_json& v) {
  if (v.is_object() && v.contains("value") && v.contains("unit") && v["unit"].is_string()) {
    const std::string unit = v["unit"];
    if (unit == "flag" || unit == "count") return v["value"].dump();
    return v["value"].dump() + " " + unit;
  }
  return v.dump();
}

// A launch's profile directory: a plain name inside P, so a host.json cannot point
// outside its sequence.
std::string launch_dir(const HostJson& h, const fs::path& dir, const std::string& name,
                       const std::string& where) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos)
    h.fail(where + ".profile", "\"" + name + "\" is not a directory name inside the profile");
  return (dir / name).string();
}

// The program's inputs are tensors a launch reads before any launch wrote them; its
// outputs are tensors written and not read by a later launch. Each counted once, by name.
class ProgramIo {
 public:
  void add(const isa::Kernel& k) {
    for (const isa::HbmTensor& t : k.tensors)
      if (t.role == isa::TensorRole::input) {
        if (written_.count(t.name))
          pending_outputs_.erase(t.name);
        else if (inputs_.insert(t.name).second)
          bytes_ += t.bytes();
      }
    for (const isa::HbmTensor& t : k.tensors)
      if (t.role == isa::TensorRole::output) {
        written_.insert(t.name);
        pending_outputs_[t.name] = t.bytes();
      }
  }
  std::uint64_t bytes() const {
    std::uint64_t total = bytes_;
    for (const auto& [name, b] : pending_outputs_)
      total += b;
    return total;
  }

 private:
  std::set<std::string> inputs_, written_;
  std::map<std::string, std::uint64_t> pending_outputs_;
  std::uint64_t bytes_ = 0;
};

Run load_sequence(const std::string& path) {
  // The same validation as view/export/compare (profile/host_trace.cpp) first, so a
  // host.json one command refuses no other accepts; the checks below are the report's own.
  (void)profile::read_host_trace(path);
  const fs::path dir(path);
  HostJson h{(dir / "host.json").string()};
  const auto j =
      parse_json_text<ordered_json>(read_text_file(h.file, Limit::json_file_bytes), h.file);
  if (h.text(j, "format", "top level") != "neuronsim-host-trace")
    h.fail("format", "not \"neuronsim-host-trace\"");
  const ordered_json& version = h.field(j, "version", "top level");
  if (!version.is_number_integer() || version.get<long long>() != 1)
    h.fail("version", "unsupported (this neuronsim reads version 1)");

  Run run;
  run.label = path;
  run.sequence = true;
  run.program = h.text(j, "program", "top level");
  run.mode = h.text(j, "mode", "top level");
  run.target = h.text(j, "target", "top level");
  run.total_ps = h.ps(j, "total_ns", "top level");
  if (j.contains("host_model")) {
    if (!j["host_model"].is_object()) h.fail("host_model", "not an object");
    for (const auto& [name, value] : j["host_model"].items())
      run.host_model.emplace_back(name, host_model_value(value));
  }
  const ordered_json& launches = h.field(j, "launches", "top level");
  if (!launches.is_array() || launches.empty()) h.fail("launches", "not a non-empty array");

  std::vector<Lane> device_lanes = engine_lanes();
  std::vector<const traces::Summary*> parts;
  ProgramIo io;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const ordered_json& l = launches[i];
    const std::string where = "launches[" + std::to_string(i) + "]";
    const ordered_json& index = h.field(l, "index", where);
    if (!index.is_number_integer() || index.get<long long>() != static_cast<long long>(i))
      h.fail(where + ".index", "is not " + std::to_string(i));
    RunLaunch launch;
    launch.name = h.text(l, "name", where);
    launch.op = h.text(l, "op", where);
    launch.framework_dispatch = h.span(l, "framework_dispatch", where);
    launch.runtime_call = h.span(l, "runtime_call", where);
    launch.device = h.span(l, "device", where);
    if (launch.device.end_ps > run.total_ps) h.fail(where + ".device", "ends after total_ns");
    const std::string sub = launch_dir(h, dir, h.text(l, "profile", where), where);
    KernelProfile k =
        load_kernel(sub, run, device_lanes, launch.device.start_ps, launch.device.end_ps);
    // Rounding of ns in host.json is allowed; a trace longer than its device span is not.
    if (k.summary.total_ps > launch.device.duration_ps() + 1000)
      h.fail(where + ".device", "lasts " + std::to_string(launch.device.duration_ps()) +
                                    " ps but its trace " + k.profile.ntff_path + " lasts " +
                                    std::to_string(k.summary.total_ps) + " ps");
    io.add(k.profile.neff.kernel);
    run.peak_flops_per_s = std::max(run.peak_flops_per_s, k.summary.peak_flops_per_s);
    launch.summary = std::move(k.summary);
    run.launches.push_back(std::move(launch));
  }
  for (const RunLaunch& l : run.launches)
    parts.push_back(&l.summary);
  run.device = add_summaries(parts);
  run.io_bytes = io.bytes();
  run.lanes = host_lanes(run.launches);
  for (Lane& lane : device_lanes)
    run.lanes.push_back(std::move(lane));
  sort_lanes(run.lanes);
  finish_viewer(run.viewer);
  return run;
}

}  // namespace

Run load_run(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec) && fs::exists(fs::path(path) / "host.json", ec))
    return load_sequence(path);
  return load_single(path);
}

}  // namespace neuronsim::report
