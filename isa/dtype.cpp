// Names, sizes and classes of the element data types (reference section 3).
#include "isa/dtype.hpp"

#include <array>
#include <string>

#include "base/error.hpp"
#include "base/name_table.hpp"

namespace neuronsim::isa {
namespace {

constexpr detail::NameTable<DType, kDTypeCount> kDTypeNames{{
    "fp32",
    "tf32",
    "bf16",
    "fp16",
    "fp8_e4m3",
    "fp8_e5m2",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "uint32",
    "fp8_e4m3fn",
    "fp8_e8m0",
    "fp8_e5m2_x4",
    "fp8_e4m3fn_x4",
    "fp4_e2m1fn_x4",
}};

// The numpy / NKI spellings (nki.language.float32, bfloat16, tfloat32, float8_e4m3, ...).
// float8_e4m3 and float8_e4m3fn are two formats (docs/dtypes.md); the MX ones are the NKI
// names of nki.isa.quantize_mx's page (float8_e5m2_x4, float8_e4m3fn_x4, float8_e8m0fnu).
struct Alias {
  std::string_view name;
  DType type;
};
constexpr std::array<Alias, 11> kAliases{{
    {"float32", DType::fp32},
    {"tfloat32", DType::tf32},
    {"bfloat16", DType::bf16},
    {"float16", DType::fp16},
    {"float8_e4m3", DType::fp8_e4m3},
    {"float8_e5m2", DType::fp8_e5m2},
    {"float8_e4m3fn", DType::fp8_e4m3fn},
    {"float8_e8m0fnu", DType::fp8_e8m0},
    {"float8_e5m2_x4", DType::fp8_e5m2_x4},
    {"float8_e4m3fn_x4", DType::fp8_e4m3fn_x4},
    {"float4_e2m1fn_x4", DType::fp4_e2m1fn_x4},
}};

constexpr std::array<std::size_t, kDTypeCount> kSizes{
    4,  // fp32
    4,  // tf32: an fp32 container, the low 13 mantissa bits zero
    2,  // bf16
    2,  // fp16
    1,  // fp8_e4m3
    1,  // fp8_e5m2
    1,  // int8
    2,  // int16
    4,  // int32
    1,  // uint8
    2,  // uint16
    4,  // uint32
    1,  // fp8_e4m3fn
    1,  // fp8_e8m0
    4,  // fp8_e5m2_x4: "32-bit data types that pack four 8-bit" values (NKI quantize_mx)
    4,  // fp8_e4m3fn_x4
    2,  // fp4_e2m1fn_x4: four 4-bit lanes (NKI nl.float4_e2m1fn_x4, "4x packed float4")
};

std::size_t index_of(DType t) {
  auto i = static_cast<std::size_t>(t);
  if (i >= kDTypeCount) throw Error("dtype: invalid data type code " + std::to_string(i));
  return i;
}

}  // namespace

std::size_t dtype_size(DType t) {
  return kSizes[index_of(t)];
}

std::string_view dtype_name(DType t) {
  return kDTypeNames.name(t);
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (auto t = kDTypeNames.parse(name)) return t;
  for (const Alias& alias : kAliases)
    if (alias.name == name) return alias.type;
  return std::nullopt;
}

bool is_float(DType t) {
  switch (t) {
    case DType::fp32:
    case DType::tf32:
    case DType::bf16:
    case DType::fp16:
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::fp8_e4m3fn:
    case DType::fp8_e8m0:
      return true;
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::fp8_e5m2_x4:  // packed: no one float value per element
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      return false;
  }
  return false;  // not a DType (every enumerator returns above: -Wswitch)
}

bool is_integer(DType t) {
  switch (t) {
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
      return true;
    case DType::fp32:
    case DType::tf32:
    case DType::bf16:
    case DType::fp16:
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::fp8_e4m3fn:
    case DType::fp8_e8m0:
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      return false;
  }
  return false;  // not a DType (every enumerator returns above: -Wswitch)
}

bool is_signed_integer(DType t) {
  return t == DType::int8 || t == DType::int16 || t == DType::int32;
}

bool is_packed_x4(DType t) {
  return t == DType::fp8_e5m2_x4 || t == DType::fp8_e4m3fn_x4 || t == DType::fp4_e2m1fn_x4;
}

unsigned lane_bits(DType t) {
  return t == DType::fp4_e2m1fn_x4 ? 4 : 8;
}

DType lane_dtype(DType t) {
  if (t == DType::fp8_e5m2_x4) return DType::fp8_e5m2;
  if (t == DType::fp8_e4m3fn_x4) return DType::fp8_e4m3fn;
  return t;
}

}  // namespace neuronsim::isa
