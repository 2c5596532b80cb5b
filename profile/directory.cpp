#include "profile/directory.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/text.hpp"
#include "traces/format.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::profile {

namespace fs = std::filesystem;

std::string neff_file_name(std::uint64_t profile_id) {
  return "neff_" + std::to_string(profile_id) + ".neff";
}

std::string ntff_file_name(std::uint64_t profile_id, int core) {
  return std::to_string(profile_id) + "_instid_0_vnc_" + std::to_string(core) + ".ntff";
}

namespace {

std::string hash_text(const std::array<std::uint8_t, 32>& h) {
  return hex_bytes(h.data(), h.size());
}

// The NEFF of a profile directory: exactly one neff_<digits>.neff.
std::string find_neff(const fs::path& dir) {
  static const std::regex name(R"(neff_[0-9]+\.neff)");
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (std::regex_match(entry.path().filename().string(), name))
      found.push_back(entry.path().string());
  if (ec) throw Error(dir.string() + ": cannot list the profile directory: " + ec.message());
  if (found.empty()) throw Error(dir.string() + ": no neff_<N>.neff in the profile directory");
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw Error(dir.string() + ": " + std::to_string(found.size()) +
                " NEFFs in the profile directory (" + found[0] + ", " + found[1] +
                ", ...): name the .ntff to open");
  }
  return found[0];
}

}  // namespace

Profile open_profile(const std::string& path) {
  Profile p;
  std::error_code ec;
  static const std::regex ntff_name(R"(([0-9]+)_instid_0_vnc_[0-9]+\.ntff)");
  if (fs::is_directory(path, ec)) {
    p.neff_path = find_neff(path);
  } else {
    std::smatch m;
    const std::string file = fs::path(path).filename().string();
    if (!std::regex_match(file, m, ntff_name))
      throw Error(path + ": not a profile directory or a <N>_instid_0_vnc_<core>.ntff trace");
    if (!fs::exists(path, ec)) throw Error(path + ": no such file");
    p.ntff_path = path;
    p.neff_path = (fs::path(path).parent_path() / ("neff_" + m[1].str() + ".neff")).string();
    if (!fs::exists(p.neff_path, ec))
      throw Error(path + ": its NEFF " + p.neff_path + " is missing");
  }
  p.neff = neff::read_file(p.neff_path);
  const std::uint64_t id = neff::profile_id(p.neff.header);
  if (fs::path(p.neff_path).filename().string() != neff_file_name(id))
    throw Error(p.neff_path + ": the NEFF's hash gives profile id " + std::to_string(id) +
                ", not the one in its file name (renamed or edited NEFF)");
  if (p.ntff_path.empty()) {
    p.ntff_path = (fs::path(p.neff_path).parent_path() / ntff_file_name(id)).string();
    if (!fs::exists(p.ntff_path, ec))
      throw Error(p.neff_path + ": no trace " + p.ntff_path + " beside it");
  } else if (fs::path(p.ntff_path).filename().string().rfind(std::to_string(id) + "_", 0) != 0) {
    throw Error(p.ntff_path + ": trace id differs from NEFF " + p.neff_path);
  }
  const traces::NtffReader trace(p.ntff_path);  // checks the trace's header
  if (trace.info().neff_hash != p.neff.header.hash)
    throw Error("mismatched profile: trace " + p.ntff_path + " was recorded for NEFF hash " +
                hash_text(trace.info().neff_hash) + " but " + p.neff_path + " has hash " +
                hash_text(p.neff.header.hash));
  return p;
}

std::string prepare_profile(const std::string& dir, const std::vector<std::uint8_t>& neff_bytes,
                            const traces::TraceInfo& info) {
  return prepare_profile(dir, neff_bytes,
                         neff::read(neff_bytes, dir + " (NEFF for the profile)").header, info);
}

std::string prepare_profile(const std::string& dir, const std::vector<std::uint8_t>& neff_bytes,
                            const neff::Header& header, const traces::TraceInfo& info) {
  if (info.neff_hash != header.hash)
    throw Error(dir + ": the trace's NEFF hash " + hash_text(info.neff_hash) +
                " is not the NEFF's hash " + hash_text(header.hash));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir + ": cannot create the profile directory: " + ec.message());
  const std::uint64_t id = neff::profile_id(header);
  write_file_atomic((fs::path(dir) / neff_file_name(id)).string(), neff_bytes);
  return (fs::path(dir) / ntff_file_name(id)).string();
}

}  // namespace neuronsim::profile
