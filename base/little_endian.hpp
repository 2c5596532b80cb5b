#pragma once
// Little-endian numbers in bytes: the one encoding of every file format and register map
// neuronsim reads or writes (NEFF, NTFF, .npy, the kernel descriptor, element bits). The
// layout is the format's and never the host's; on a little-endian host the fixed-width
// forms are one memcpy.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace neuronsim {

// The `n` <= 8 bytes at `p`, least significant first.
inline std::uint64_t load_le(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

// `v`'s low `n` <= 8 bytes to `p`, least significant first.
inline void store_le(std::uint8_t* p, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// `v`'s low `n` <= 8 bytes appended to `out`.
inline void append_le(std::vector<std::uint8_t>& out, std::uint64_t v, std::size_t n) {
  const std::size_t at = out.size();
  out.resize(at + n);
  store_le(out.data() + at, v, n);
}

namespace detail {

template <typename T>
T load_le_fixed(const std::uint8_t* p) {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  } else {
    return static_cast<T>(load_le(p, sizeof(T)));
  }
}

template <typename T>
void store_le_fixed(std::uint8_t* p, T v) {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    std::memcpy(p, &v, sizeof v);
  else
    store_le(p, v, sizeof(T));
}

template <typename T>
void append_le_fixed(std::vector<std::uint8_t>& out, T v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof(T));
  store_le_fixed<T>(out.data() + at, v);
}

}  // namespace detail

// Fixed widths: 2, 4 and 8 bytes.
inline std::uint16_t load_le16(const std::uint8_t* p) {
  return detail::load_le_fixed<std::uint16_t>(p);
}
inline std::uint32_t load_le32(const std::uint8_t* p) {
  return detail::load_le_fixed<std::uint32_t>(p);
}
inline std::uint64_t load_le64(const std::uint8_t* p) {
  return detail::load_le_fixed<std::uint64_t>(p);
}
inline void store_le16(std::uint8_t* p, std::uint16_t v) {
  detail::store_le_fixed(p, v);
}
inline void store_le32(std::uint8_t* p, std::uint32_t v) {
  detail::store_le_fixed(p, v);
}
inline void store_le64(std::uint8_t* p, std::uint64_t v) {
  detail::store_le_fixed(p, v);
}
inline void append_le16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  detail::append_le_fixed(out, v);
}
inline void append_le32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  detail::append_le_fixed(out, v);
}
inline void append_le64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  detail::append_le_fixed(out, v);
}

}  // namespace neuronsim
