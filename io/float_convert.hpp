#pragma once
// Float values stored into a tensor's dtype a whole array at a time, exactly as
// isa::store_fp32 stores each one, but with the conversion inline in one loop per pair of
// types (a call and a switch per element were most of the time of reading a large input
// or generating one).
#include <cstdint>
#include <cstring>

#include "isa/dtype.hpp"
#include "isa/dtype_bits.hpp"

namespace neuronsim::io {

// n fp32 values into `to` at `dst` (dtype_size(to) bytes each), as isa::store_fp32.
void store_fp32_elements(const float* values, std::uint64_t n, isa::DType to, std::uint8_t* dst);

namespace detail {

// n float elements loaded by `load` (to fp32) and stored by `store`: one loop per pair of
// types, the conversions inline (the per-element isa::store_fp32 call and its switch were
// most of the time of reading a large input).
template <typename Load, typename Store>
inline void convert_loop(const std::uint8_t* src, std::size_t src_size, std::uint64_t n,
                         std::uint8_t* dst, std::size_t dst_size, Load load, Store store) {
  for (std::uint64_t i = 0; i < n; ++i)
    store(load(src + i * src_size), dst + i * dst_size);
}

template <typename T>
inline void store_raw(T v, std::uint8_t* p) {
  std::memcpy(p, &v, sizeof v);
}

// Float elements into a float tensor, exactly as isa::store_fp32 stores each (the same
// dtype_bits functions, case by case); false for any other destination.
template <typename Load>
inline bool convert_floats(const std::uint8_t* src, std::size_t src_size, std::uint64_t n,
                           Load load, isa::DType to, std::uint8_t* dst) {
  namespace bits = isa::dtype_bits;
  const std::size_t dst_size = isa::dtype_size(to);
  auto run = [&](auto store) { convert_loop(src, src_size, n, dst, dst_size, load, store); };
  switch (to) {
    case isa::DType::fp32:
      run([](float v, std::uint8_t* p) { store_raw(v, p); });
      return true;
    case isa::DType::tf32:
      run([](float v, std::uint8_t* p) { store_raw(bits::round_to_tf32(v), p); });
      return true;
    case isa::DType::bf16:
      run([](float v, std::uint8_t* p) { store_raw(bits::fp32_to_bf16_bits(v), p); });
      return true;
    case isa::DType::fp16:
      run([](float v, std::uint8_t* p) {
        store_raw(static_cast<std::uint16_t>(bits::Fp16Format::from_fp32(v)), p);
      });
      return true;
    case isa::DType::fp8_e4m3:
      run([](float v, std::uint8_t* p) {
        store_raw(static_cast<std::uint8_t>(bits::Fp8E4M3Format::from_fp32(v)), p);
      });
      return true;
    case isa::DType::fp8_e5m2:
      run([](float v, std::uint8_t* p) {
        store_raw(static_cast<std::uint8_t>(bits::Fp8E5M2Format::from_fp32(v)), p);
      });
      return true;
    default:
      return false;
  }
}

}  // namespace detail

}  // namespace neuronsim::io
