#pragma once
// Whole-file reads and all-or-nothing writes. An output is written to a temporary file
// beside it and renamed into place, so an error never leaves a half-written file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuronsim {

// Throws neuronsim::Error naming the path and the system's reason.
std::vector<std::uint8_t> read_file(const std::string& path);
std::string read_text_file(const std::string& path);
void write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline void write_file_atomic(const std::string& path, std::string_view text) {
  write_file_atomic(path, text.data(), text.size());
}
inline void write_file_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}

}  // namespace neuronsim
