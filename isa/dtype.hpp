#pragma once
// Element data types of the NeuronCore (reference section 3) and their exact conversions to
// and from fp32. Engines compute in fp32 and cast on write, so these conversions define
// the numerics of every instruction. All float conversions round to nearest even.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuronsim::isa {

enum class DType : std::uint8_t {
  fp32,
  tf32,  // stored in 4 bytes; fp32 with the mantissa rounded to 10 bits
  bf16,
  fp16,
  fp8_e4m3,
  fp8_e5m2,
  int8,
  int16,
  int32,
  uint8,
  uint16,
  uint32,
};
inline constexpr int kDTypeCount = 12;

std::size_t dtype_size(DType t);  // bytes of one element in memory
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
bool is_float(DType t);
bool is_integer(DType t);
bool is_signed_integer(DType t);

// Bit-exact scalar conversions. from_fp32 rounds to nearest even.
float bf16_to_fp32(std::uint16_t bits);
std::uint16_t fp32_to_bf16(float v);
float fp16_to_fp32(std::uint16_t bits);
std::uint16_t fp32_to_fp16(float v);
float fp8e4m3_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp8e4m3(float v);
float fp8e5m2_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp8e5m2(float v);
float fp32_to_tf32(float v);  // rounds the mantissa to 10 bits, result still an fp32

// Memory element <-> fp32. `p` points at one element stored little-endian.
// Integer destinations: round to nearest even, saturate to the type's range, NaN -> 0.
float load_fp32(DType t, const void* p);
void store_fp32(DType t, float v, void* p);
// Memory element <-> integer, for bitwise ops and iota on integer types (exact).
std::int64_t load_int(DType t, const void* p);
void store_int(DType t, std::int64_t v, void* p);  // saturates to the type's range

}  // namespace neuronsim::isa
