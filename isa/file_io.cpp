#include "isa/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/error.hpp"

namespace neuronsim {

namespace {
std::string system_reason() {
  return std::strerror(errno);
}
}  // namespace

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + system_reason());
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": read failed: " + system_reason());
  return bytes;
}

std::string read_text_file(const std::string& path) {
  auto bytes = read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

void write_file_atomic(const std::string& path, const void* data, std::size_t size) {
  const std::string tmp = path + ".tmp-neuronsim";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot write: " + system_reason());
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(path + ": write failed: " + system_reason());
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = system_reason();
    std::remove(tmp.c_str());
    throw Error(path + ": cannot write: " + reason);
  }
}

}  // namespace neuronsim
