#include "profile/profiled_run.hpp"

#include <filesystem>
#include <regex>
#include <utility>

#include "base/error.hpp"
#include "profile/directory.hpp"

namespace neuronsim::profile {

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

LaunchProfile::LaunchProfile(const std::vector<std::uint8_t>& neff_bytes,
                             const config::TargetConfig& config, const std::string& source,
                             const std::string& dir)
    : LaunchProfile(neff_bytes, std::make_shared<const neff::Neff>(neff::read(neff_bytes, source)),
                    config, dir) {}

LaunchProfile::LaunchProfile(const std::vector<std::uint8_t>& neff_bytes,
                             std::shared_ptr<const neff::Neff> decoded,
                             const config::TargetConfig& config, const std::string& dir)
    : neff_(std::move(decoded)), dir_(dir) {
  const traces::TraceInfo info = trace_info(neff_->kernel, config, neff_->header.hash);
  const fs::path neff_file = fs::path(dir) / neff_file_name(neff::profile_id(neff_->header));
  check_reusable(dir, neff_file.filename().string());
  std::error_code ec;
  dir_existed_ = fs::exists(dir, ec);
  neff_existed_ = fs::exists(neff_file, ec);
  neff_path = neff_file.string();
  ntff_path = prepare_profile(dir, neff_bytes, neff_->header, info);
  try {
    recorder_ = std::make_unique<TraceRecorder>(ntff_path, info);
  } catch (...) {
    abandon();
    throw;
  }
}

LaunchProfile::~LaunchProfile() {
  if (!done_) abandon();
}

void LaunchProfile::finish(const LaunchResult& result) {
  recorder_->finish(result.total_ps);
  trace_bytes = recorder_->bytes_written();
  const traces::RecordCounts& counts = recorder_->counts();
  trace_instructions = counts.instructions;
  trace_records = counts.instructions + counts.dmas + counts.semaphores;
  done_ = true;
}

void LaunchProfile::abandon() {
  done_ = true;
  if (recorder_) recorder_->abandon();
  std::error_code ec;
  if (!neff_existed_) fs::remove(neff_path, ec);
  if (!dir_existed_) fs::remove(dir_, ec);  // only if empty, which it is by then
}

ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes,
                         const config::TargetConfig& config, const TensorBytes& inputs,
                         RunOptions options, const std::string& source, const std::string& dir) {
  return run_profiled(neff_bytes,
                      std::make_shared<const neff::Neff>(neff::read(neff_bytes, source)), config,
                      inputs, std::move(options), source, dir);
}

ProfiledRun run_profiled(const std::vector<std::uint8_t>& neff_bytes,
                         std::shared_ptr<const neff::Neff> decoded,
                         const config::TargetConfig& config, const TensorBytes& inputs,
                         RunOptions options, const std::string& source, const std::string& dir) {
  LaunchProfile profile(neff_bytes, std::move(decoded), config, dir);
  options.observers.push_back(profile.observer());
  ProfiledRun out;
  out.result = run_kernel(profile.kernel(), config, inputs, options, source);
  profile.finish(out.result);
  out.neff_path = profile.neff_path;
  out.ntff_path = profile.ntff_path;
  out.trace_bytes = profile.trace_bytes;
  out.trace_instructions = profile.trace_instructions;
  out.trace_records = profile.trace_records;
  return out;
}

}  // namespace neuronsim::profile
