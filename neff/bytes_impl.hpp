#pragma once
// Little-endian integer and float encoding for the NEFF header and instruction records, by
// field type (base/little_endian.hpp does the bytes), so the layout is the file's, never
// the host's struct layout.
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/little_endian.hpp"

namespace neuronsim::neff::detail {

inline void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) {
  out.push_back(v);
}
inline void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  append_le16(out, v);
}
inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  append_le32(out, v);
}
inline void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  append_le64(out, v);
}
inline void put_f32(std::vector<std::uint8_t>& out, float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_u32(out, bits);
}
inline void put_f64(std::vector<std::uint8_t>& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_u64(out, bits);
}

// Unchecked loads: callers check the remaining length first.
inline std::uint16_t load_u16(const std::uint8_t* p) {
  return load_le16(p);
}
inline std::uint32_t load_u32(const std::uint8_t* p) {
  return load_le32(p);
}
inline std::uint64_t load_u64(const std::uint8_t* p) {
  return load_le64(p);
}
inline float load_f32(const std::uint8_t* p) {
  std::uint32_t bits = load_u32(p);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline double load_f64(const std::uint8_t* p) {
  std::uint64_t bits = load_u64(p);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace neuronsim::neff::detail
