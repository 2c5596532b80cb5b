// Names, aliases, sizes and classes of the element data types.
#include <catch2/catch.hpp>

#include <iterator>

#include "base/error.hpp"
#include "isa/dtype.hpp"

using neuronsim::isa::DType;
using namespace neuronsim::isa;

namespace {

struct TypeFacts {
  DType type;
  const char* name;
  std::size_t size;
  bool is_float;
  bool is_signed_integer;
  bool is_packed = false;
};
const TypeFacts kFacts[] = {
    {DType::fp32, "fp32", 4, true, false},
    {DType::tf32, "tf32", 4, true, false},
    {DType::bf16, "bf16", 2, true, false},
    {DType::fp16, "fp16", 2, true, false},
    {DType::fp8_e4m3, "fp8_e4m3", 1, true, false},
    {DType::fp8_e5m2, "fp8_e5m2", 1, true, false},
    {DType::int8, "int8", 1, false, true},
    {DType::int16, "int16", 2, false, true},
    {DType::int32, "int32", 4, false, true},
    {DType::uint8, "uint8", 1, false, false},
    {DType::uint16, "uint16", 2, false, false},
    {DType::uint32, "uint32", 4, false, false},
    {DType::fp8_e4m3fn, "fp8_e4m3fn", 1, true, false},
    {DType::fp8_e8m0, "fp8_e8m0", 1, true, false},
    {DType::fp8_e5m2_x4, "fp8_e5m2_x4", 4, false, false, true},
    {DType::fp8_e4m3fn_x4, "fp8_e4m3fn_x4", 4, false, false, true},
    {DType::fp4_e2m1fn_x4, "fp4_e2m1fn_x4", 2, false, false, true},
};

}  // namespace

TEST_CASE("dtype: every type has its name, size and class", "[dtype]") {
  REQUIRE(std::size(kFacts) == static_cast<std::size_t>(kDTypeCount));
  for (const TypeFacts& f : kFacts) {
    INFO(f.name);
    CHECK(dtype_name(f.type) == f.name);
    CHECK(dtype_size(f.type) == f.size);
    CHECK(is_float(f.type) == f.is_float);
    CHECK(is_integer(f.type) == (!f.is_float && !f.is_packed));
    CHECK(is_packed_x4(f.type) == f.is_packed);
    CHECK(is_signed_integer(f.type) == f.is_signed_integer);
    CHECK(parse_dtype(f.name) == f.type);
  }
}

TEST_CASE("dtype: parse accepts the numpy and NKI aliases", "[dtype]") {
  CHECK(parse_dtype("float32") == DType::fp32);
  CHECK(parse_dtype("tfloat32") == DType::tf32);
  CHECK(parse_dtype("bfloat16") == DType::bf16);
  CHECK(parse_dtype("float16") == DType::fp16);
  CHECK(parse_dtype("float8_e4m3") == DType::fp8_e4m3);
  CHECK(parse_dtype("float8_e5m2") == DType::fp8_e5m2);
  CHECK(parse_dtype("int8") == DType::int8);
  CHECK(parse_dtype("uint32") == DType::uint32);
  // The MX names of nki.isa.quantize_mx's page.
  CHECK(parse_dtype("float8_e4m3fn") == DType::fp8_e4m3fn);
  CHECK(parse_dtype("float8_e8m0fnu") == DType::fp8_e8m0);
  CHECK(parse_dtype("float8_e5m2_x4") == DType::fp8_e5m2_x4);
  CHECK(parse_dtype("float8_e4m3fn_x4") == DType::fp8_e4m3fn_x4);
  CHECK(lane_dtype(DType::fp8_e5m2_x4) == DType::fp8_e5m2);
  CHECK(lane_dtype(DType::fp8_e4m3fn_x4) == DType::fp8_e4m3fn);
  CHECK(lane_dtype(DType::bf16) == DType::bf16);
  CHECK(parse_dtype("float4_e2m1fn_x4") == DType::fp4_e2m1fn_x4);
  CHECK(lane_bits(DType::fp4_e2m1fn_x4) == 4);
  CHECK(lane_bits(DType::fp8_e4m3fn_x4) == 8);
}

TEST_CASE("dtype: parse rejects everything else", "[dtype]") {
  for (const char* bad : {"", "FP32", "Float32", "fp32 ", " fp32", "float", "half", "double",
                          "float64", "int64", "uint64", "bool", "fp8", "e4m3", "float8_e4m3fnuz",
                          "float8_e5m2fnuz", "int", "i8", "f32"}) {
    INFO(bad);
    CHECK_FALSE(parse_dtype(bad).has_value());
  }
}

TEST_CASE("dtype: an invalid type code is an error, not a crash", "[dtype]") {
  const auto bogus = static_cast<DType>(200);
  CHECK(dtype_name(bogus) == "?");
  CHECK_THROWS_AS(dtype_size(bogus), neuronsim::Error);
  float f = 0;
  CHECK_THROWS_AS(load_fp32(bogus, &f), neuronsim::Error);
  CHECK_THROWS_AS(store_fp32(bogus, 1.0f, &f), neuronsim::Error);
  CHECK_THROWS_AS(load_int(bogus, &f), neuronsim::Error);
  CHECK_THROWS_AS(store_int(bogus, 1, &f), neuronsim::Error);
}
