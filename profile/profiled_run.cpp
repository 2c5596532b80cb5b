#include "profile/profiled_run.hpp"

#include <filesystem>
#include <regex>

#include "isa/error.hpp"
#include "profile/directory.hpp"
#include "profile/trace_recorder.hpp"

namespace neuronsim::sim {

namespace fs = std::filesystem;

namespace {

// A profile directory may be reused for the same NEFF (its files are replaced), never
// mixed with another kernel's: open_profile would refuse a directory with two NEFFs.
void check_reusable(const fs::path& dir, const std::string& neff_name) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw Error(dir.string() + ": not a directory");
  if (fs::exists(dir / "host.json", ec))
    throw Error(dir.string() + ": holds a sequence profile (host.json); choose another directory");
  static const std::regex neff_name_pattern(R"(neff_[0-9]+\.neff)");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, neff_name_pattern) && name != neff_name)
      throw Error(dir.string() + ": already holds the profile of another kernel (" + name +
                  "); choose an empty directory");
  }
}

}  // namespace

ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes, const TargetConfig& config,
                         const TensorBytes& inputs, RunOptions options, const std::string& source,
                         const std::string& dir) {
  const neff::Neff file = neff::read(neff_bytes, source);
  const traces::TraceInfo info = trace_info(file.kernel, config, file.header.hash);
  const fs::path neff_path = fs::path(dir) / neff_file_name(neff::profile_id(file.header));
  check_reusable(dir, neff_path.filename().string());

  std::error_code ec;
  const bool dir_existed = fs::exists(dir, ec);
  const bool neff_existed = fs::exists(neff_path, ec);
  ProfiledRun out;
  out.neff_path = neff_path.string();
  out.ntff_path = prepare_profile(dir, neff_bytes, info);
  try {
    TraceRecorder recorder(out.ntff_path, info);
    options.observers.push_back(&recorder);
    out.result = run_kernel(file.kernel, config, inputs, options, source);
    recorder.finish(out.result.total_ps);
    out.trace_bytes = recorder.bytes_written();
    const traces::RecordCounts& counts = recorder.counts();
    out.trace_instructions = counts.instructions;
    out.trace_records = counts.instructions + counts.dmas + counts.semaphores;
  } catch (...) {
    if (!neff_existed) fs::remove(neff_path, ec);
    if (!dir_existed) fs::remove(dir, ec);  // only if empty, which it is by then
    throw;
  }
  return out;
}

}  // namespace neuronsim::sim
