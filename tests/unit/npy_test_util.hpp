#pragma once
// Helpers of the .npy and input tests: a scratch directory removed afterwards, and .npy
// bytes laid out the way numpy writes them.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace npy_test {

// A fresh directory under the system's temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "neuronsim-npy-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A .npy file: magic, version, header length (2 bytes for 1.0, 4 for 2.0/3.0), the dict
// padded with spaces to header_len - 1 and a '\n', then the data.
inline std::vector<std::uint8_t> npy_file(int major, std::size_t header_len,
                                          const std::string& dict,
                                          const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(major), 0};
  const std::size_t len_size = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < len_size; ++i)
    out.push_back(std::uint8_t(header_len >> (8 * i)));
  std::string header = dict;
  if (header.size() + 1 < header_len) header.append(header_len - 1 - header.size(), ' ');
  header += '\n';
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace npy_test
