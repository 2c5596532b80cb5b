#include "compiler/program_directory.hpp"

#include <fcntl.h>  // AT_FDCWD, renameat2

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "neff/neff.hpp"

namespace neuronsim::compiler {

namespace {

namespace fs = std::filesystem;

// Moves `staged` (complete) to `out`. An existing `out` must be empty or a program
// directory (it holds a launch.json): anything else is left alone and refused.
void replace_directory(const std::string& staged, const std::string& out) {
  std::error_code ec;
  const auto status = fs::symlink_status(out, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      throw Error(out + ": exists and is not a directory (a link or a file is never replaced)");
    if (!fs::is_empty(out, ec) && !fs::exists(fs::path(out) / "launch.json", ec))
      throw Error(out + ": exists and is not a compiled program directory (no launch.json)");
    // One atomic exchange (Linux renameat2): `out` is always either the old program or the
    // new one, whole, even if the process is killed here; the old one then goes.
    if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(staged, ec);
      return;
    }
    if (errno != EINVAL && errno != ENOSYS)
      throw Error(out + ": cannot replace the output directory: " + std::strerror(errno));
    // A file system without the exchange: the old directory moves aside, then goes.
    const std::string old = create_temp_dir_beside(out);
    if (std::rename(out.c_str(), old.c_str()) != 0) {
      fs::remove(old, ec);
      throw Error(out + ": cannot replace the output directory: " + std::strerror(errno));
    }
    if (std::rename(staged.c_str(), out.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      std::rename(old.c_str(), out.c_str());
      throw Error(out + ": cannot write the output directory: " + reason);
    }
    fs::remove_all(old, ec);
    return;
  }
  if (std::rename(staged.c_str(), out.c_str()) != 0)
    throw Error(out + ": cannot write the output directory: " + std::strerror(errno));
}

}  // namespace

std::string write_program_directory(const CompiledProgram& p, const std::string& out_dir) {
  const fs::path out = fs::path(out_dir).lexically_normal();
  const std::string target = out.has_filename() ? out.string() : out.parent_path().string();
  std::error_code ec;
  if (out.has_parent_path()) fs::create_directories(out.parent_path(), ec);
  if (ec) throw Error(out_dir + ": cannot create the output directory: " + ec.message());
  const std::string staged = create_temp_dir_beside(target);
  try {
    auto manifest = nlohmann::ordered_json::parse(launch_json(p));
    for (std::size_t i = 0; i < p.launches.size(); ++i) {
      const auto& l = p.launches[i];
      const std::vector<std::uint8_t> bytes = neff::write(l.kernel);
      write_file_atomic((fs::path(staged) / l.neff).string(), bytes);
      manifest["launches"][i]["neff_sha256"] = neff::hash_hex(neff::read(bytes, l.neff).header);
    }
    const std::string text = manifest.dump(2) + "\n";
    write_file_atomic((fs::path(staged) / "launch.json").string(), text);
    replace_directory(staged, target);
    return text;
  } catch (...) {
    fs::remove_all(staged, ec);
    throw;
  }
}

}  // namespace neuronsim::compiler
