#pragma once
// Small text helpers for messages and file fields, each written once.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim {

// "0x1f": a value in lowercase hexadecimal, for addresses and register values.
std::string hex(std::uint64_t value);
// "1fa0...": `n` bytes as lowercase hex digits, two per byte (hashes).
std::string hex_bytes(const std::uint8_t* bytes, std::size_t n);
// "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");
// "'a', 'b'": names quoted, for messages that list them.
std::string quoted_list(const std::vector<std::string>& names);

}  // namespace neuronsim
