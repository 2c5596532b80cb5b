// The ALU on its own: every AluOp in fp32 against double-precision references, NaN and
// signed-zero rules, and the integer (bitwise) form.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "semantics/alu.hpp"

using namespace neuronsim::isa;

namespace {

const std::vector<float> kValues = {0.0f,   -0.0f, 1.0f,    -1.0f,     0.5f,  3.0f,
                                    -2.75f, 1e-3f, 7.25e5f, -1.5e-20f, 1e30f, 2.0f};

}  // namespace

TEST_CASE("semantics: alu add, subtract, multiply, divide are correctly rounded fp32",
          "[semantics]") {
  // A double holds the exact sum/product of two floats (or the quotient to far more than
  // 2*24+2 bits), so (float)(a op b in double) is the correctly rounded fp32 result.
  for (float a : kValues)
    for (float b : kValues) {
      const double da = a, db = b;
      CHECK(alu_f32(AluOp::add, a, b) == static_cast<float>(da + db));
      CHECK(alu_f32(AluOp::subtract, a, b) == static_cast<float>(da - db));
      CHECK(alu_f32(AluOp::multiply, a, b) == static_cast<float>(da * db));
      if (b != 0.0f) CHECK(alu_f32(AluOp::divide, a, b) == static_cast<float>(da / db));
      CHECK(alu_f32(AluOp::bypass, a, b) == a);
    }
}

TEST_CASE("semantics: alu divide by zero follows IEEE", "[semantics]") {
  CHECK(alu_f32(AluOp::divide, 1.0f, 0.0f) == std::numeric_limits<float>::infinity());
  CHECK(alu_f32(AluOp::divide, -1.0f, 0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(alu_f32(AluOp::divide, 1.0f, -0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(alu_f32(AluOp::divide, 0.0f, 0.0f)));
}

TEST_CASE("semantics: alu max, min and abs_max propagate NaN and order signed zeros",
          "[semantics]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (AluOp op : {AluOp::max, AluOp::min, AluOp::abs_max}) {
    CHECK(std::isnan(alu_f32(op, nan, 1.0f)));
    CHECK(std::isnan(alu_f32(op, 1.0f, nan)));
  }
  CHECK(alu_f32(AluOp::max, 2.0f, -3.0f) == 2.0f);
  CHECK(alu_f32(AluOp::min, 2.0f, -3.0f) == -3.0f);
  CHECK(alu_f32(AluOp::abs_max, 2.0f, -3.0f) == 3.0f);
  CHECK_FALSE(std::signbit(alu_f32(AluOp::max, -0.0f, 0.0f)));
  CHECK_FALSE(std::signbit(alu_f32(AluOp::max, 0.0f, -0.0f)));
  CHECK(std::signbit(alu_f32(AluOp::min, 0.0f, -0.0f)));
  CHECK(std::signbit(alu_f32(AluOp::min, -0.0f, 0.0f)));
}

TEST_CASE("semantics: alu pow is powf within 1 ulp of the double result", "[semantics]") {
  for (float a : {0.5f, 2.0f, 3.7f, 10.0f, 1e-3f})
    for (float b : {-2.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.5f, 7.0f}) {
      const double want = std::pow(static_cast<double>(a), static_cast<double>(b));
      CHECK(std::fabs(alu_f32(AluOp::pow, a, b) - want) <= std::ldexp(std::fabs(want), -23));
    }
  CHECK(std::isnan(alu_f32(AluOp::pow, -2.0f, 0.5f)));
}

TEST_CASE("semantics: alu comparisons give 1 or 0, NaN compares unordered", "[semantics]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float a : kValues)
    for (float b : kValues) {
      CHECK(alu_f32(AluOp::is_equal, a, b) == (a == b ? 1.0f : 0.0f));
      CHECK(alu_f32(AluOp::not_equal, a, b) == (a != b ? 1.0f : 0.0f));
      CHECK(alu_f32(AluOp::is_ge, a, b) == (a >= b ? 1.0f : 0.0f));
      CHECK(alu_f32(AluOp::is_gt, a, b) == (a > b ? 1.0f : 0.0f));
      CHECK(alu_f32(AluOp::is_le, a, b) == (a <= b ? 1.0f : 0.0f));
      CHECK(alu_f32(AluOp::is_lt, a, b) == (a < b ? 1.0f : 0.0f));
    }
  CHECK(alu_f32(AluOp::is_equal, nan, nan) == 0.0f);
  CHECK(alu_f32(AluOp::not_equal, nan, nan) == 1.0f);
  CHECK(alu_f32(AluOp::is_ge, nan, 0.0f) == 0.0f);
}

TEST_CASE("semantics: alu array forms equal the scalar form for every fp32 op", "[semantics]") {
  const std::vector<float> b(kValues.rbegin(), kValues.rend());
  for (int o = 0; o < kAluOpCount; ++o) {
    const auto op = static_cast<AluOp>(o);
    if (is_bitwise_op(op)) continue;
    std::vector<float> out(kValues.size()), rev(kValues.size());
    alu_f32_array(op, kValues.data(), b.data(), out.data(), out.size());
    alu_f32_scalar(op, kValues.data(), 1.5f, true, rev.data(), rev.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      const float want = alu_f32(op, kValues[i], b[i]);
      CHECK((out[i] == want || (std::isnan(out[i]) && std::isnan(want))));
      const float want_rev = alu_f32(op, 1.5f, kValues[i]);
      CHECK((rev[i] == want_rev || (std::isnan(rev[i]) && std::isnan(want_rev))));
    }
  }
  const float x[] = {3.0f, -1.0f, 5.0f, 2.0f};
  CHECK(alu_f32_reduce(AluOp::add, x, 4) == 9.0f);
  CHECK(alu_f32_reduce(AluOp::max, x, 4) == 5.0f);
  CHECK(alu_f32_reduce(AluOp::min, x, 4) == -1.0f);
  CHECK(alu_f32_reduce(AluOp::multiply, x, 4) == -30.0f);
}

TEST_CASE("semantics: alu integer ops are exact on two's-complement bits", "[semantics]") {
  const IntFormat i32 = IntFormat::of(DType::int32), i8 = IntFormat::of(DType::int8),
                  u16 = IntFormat::of(DType::uint16);
  CHECK(alu_i64(AluOp::bitwise_and, 0x7FFFFFF1, 0x0FF0, i32) == 0x0FF0);
  CHECK(alu_i64(AluOp::bitwise_or, 0x01000001, 0x10, i32) == 0x01000011);
  CHECK(alu_i64(AluOp::bitwise_xor, -1, 0x0F, i32) == -16);
  CHECK(alu_i64(AluOp::bitwise_and, -2, 7, i32) == 6);
  // Logical shifts act on the operand's width: zeros shift in, the result is re-read.
  CHECK(alu_i64(AluOp::logical_shift_right, -1, 1, i8) == 127);
  CHECK(alu_i64(AluOp::logical_shift_right, -16, 28, i32) == 15);
  CHECK(alu_i64(AluOp::logical_shift_left, 0x40000000, 1, i32) ==
        std::numeric_limits<std::int32_t>::min());
  CHECK(alu_i64(AluOp::logical_shift_left, 0x8001, 1, u16) == 2);
  CHECK(alu_i64(AluOp::logical_shift_left, 1, 32, i32) == 0);
  CHECK(alu_i64(AluOp::logical_shift_right, 1, -1, i32) == 0);
  CHECK(alu_i64(AluOp::add, 2147483647, 1, i32) == 2147483648LL);  // stores saturate later
  CHECK(alu_i64(AluOp::abs_max, -7, 5, i32) == 7);
  CHECK(alu_i64(AluOp::is_lt, -7, 5, i32) == 1);
  CHECK(alu_i64(AluOp::max, 16777217, 16777216, i32) == 16777217);  // beyond fp32's 2^24
  CHECK(is_bitwise_op(AluOp::logical_shift_left));
  CHECK_FALSE(is_bitwise_op(AluOp::add));
}
