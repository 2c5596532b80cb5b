// Vector/GpSimd ALU instructions (tensor_tensor, tensor_scalar, scalar_tensor_tensor,
// tensor_reduce) across dtype classes, against double-precision references.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {

double ref_op(AluOp op, double a, double b) {
  switch (op) {
    case AluOp::add:
      return a + b;
    case AluOp::subtract:
      return a - b;
    case AluOp::multiply:
      return a * b;
    case AluOp::divide:
      return a / b;
    case AluOp::max:
      return std::max(a, b);
    case AluOp::min:
      return std::min(a, b);
    case AluOp::abs_max:
      return std::max(std::fabs(a), std::fabs(b));
    case AluOp::is_ge:
      return a >= b;
    case AluOp::is_lt:
      return a < b;
    default:
      return a;
  }
}

}  // namespace

TEST_CASE("semantics: tensor_tensor in every float dtype against float64", "[semantics]") {
  const DType types[] = {DType::fp32,     DType::bf16,     DType::fp16,
                         DType::fp8_e4m3, DType::fp8_e5m2, DType::tf32};
  const AluOp ops[] = {AluOp::add, AluOp::subtract, AluOp::multiply, AluOp::divide,
                       AluOp::max, AluOp::min,      AluOp::abs_max,  AluOp::is_ge};
  for (DType t : types)
    for (AluOp op : ops) {
      INFO(dtype_name(t) << " " << alu_op_name(op));
      Bench b;
      const auto a_a = b.alloc(MemSpace::sbuf, t, 64, 40);
      const auto b_a = b.alloc(MemSpace::sbuf, t, 64, 40, 0, 1024);
      const auto d_a = b.alloc(MemSpace::sbuf, t, 64, 40, 0, 2048);
      TensorTensor tt;
      tt.a = b.tile(a_a, 64, 40);
      tt.b = b.tile(b_a, 64, 40);
      tt.dst = b.tile(d_a, 64, 40);
      tt.op = op;
      const auto va = b.fill_random(tt.a, 100, -4.0, 4.0);
      const auto vb = b.fill_random(tt.b, 200, 0.25, 3.0);
      b.run(tt);
      // The op in fp32 (error <= 2^-24 relative), then one rounding into t.
      const Tol tol = dtype_tol(t);
      for (std::uint32_t p = 0; p < 64; ++p)
        for (std::uint32_t f = 0; f < 40; ++f) {
          const std::size_t e = p * 40 + f;
          INFO("p " << p << " f " << f << " a " << va[e] << " b " << vb[e]);
          REQUIRE(close(b.get(tt.dst, p, f), ref_op(op, va[e], vb[e]),
                        tol.rel + std::ldexp(1.0, -23), tol.abs));
        }
    }
}

TEST_CASE("semantics: tensor_tensor on integers computes in fp32 and saturates on store",
          "[semantics]") {
  Bench b;
  const auto a_a = b.alloc(MemSpace::sbuf, DType::int8, 2, 4);
  const auto b_a = b.alloc(MemSpace::sbuf, DType::int16, 2, 4, 0, 64);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::uint8, 2, 4, 0, 128);
  TensorTensor tt;
  tt.a = b.tile(a_a, 2, 4);
  tt.b = b.tile(b_a, 2, 4);
  tt.dst = b.tile(d_a, 2, 4);
  tt.op = AluOp::add;
  const std::int64_t av[] = {100, -100, 7, 127}, bv[] = {200, 50, -3, 1000};
  for (std::uint32_t p = 0; p < 2; ++p)
    for (std::uint32_t f = 0; f < 4; ++f) {
      b.set_int(tt.a, p, f, av[f]);
      b.set_int(tt.b, p, f, bv[f] * (p + 1));
    }
  b.run(tt);
  for (std::uint32_t f = 0; f < 4; ++f) {
    CHECK(b.get_int(tt.dst, 0, f) == std::clamp<std::int64_t>(av[f] + bv[f], 0, 255));
    CHECK(b.get_int(tt.dst, 1, f) == std::clamp<std::int64_t>(av[f] + 2 * bv[f], 0, 255));
  }
  // divide on int32 rounds the fp32 quotient to nearest even: 7/2 = 3.5 -> 4, 5/2 -> 2.
  const auto i_a = b.alloc(MemSpace::sbuf, DType::int32, 1, 2, 0, 256);
  const auto i_b = b.alloc(MemSpace::sbuf, DType::int32, 1, 2, 0, 320);
  tt.a = b.tile(i_a, 1, 2);
  tt.b = b.tile(i_b, 1, 2);
  tt.dst = tt.a;
  tt.op = AluOp::divide;
  b.set_int(tt.a, 0, 0, 7);
  b.set_int(tt.a, 0, 1, 5);
  b.set_int(tt.b, 0, 0, 2);
  b.set_int(tt.b, 0, 1, 2);
  b.run(tt);
  CHECK(b.get_int(tt.dst, 0, 0) == 4);
  CHECK(b.get_int(tt.dst, 0, 1) == 2);
}

TEST_CASE("semantics: bitwise and shift ops are exact on integer dtypes", "[semantics]") {
  Bench b;
  const auto a_a = b.alloc(MemSpace::sbuf, DType::int32, 2, 3);
  const auto b_a = b.alloc(MemSpace::sbuf, DType::int32, 2, 3, 0, 64);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::int32, 2, 3, 0, 128);
  TensorTensor tt;
  tt.a = b.tile(a_a, 2, 3);
  tt.b = b.tile(b_a, 2, 3);
  tt.dst = b.tile(d_a, 2, 3);
  const std::int64_t av[] = {0x7FFFFFF1, -1, 0x01000001};
  const std::int64_t bv[] = {0x0FFFFFFF, 4, 3};
  for (std::uint32_t p = 0; p < 2; ++p)
    for (std::uint32_t f = 0; f < 3; ++f) {
      b.set_int(tt.a, p, f, av[f]);
      b.set_int(tt.b, p, f, bv[f]);
    }
  tt.op = AluOp::bitwise_and;
  b.run(tt);
  CHECK(b.get_int(tt.dst, 1, 0) == 0x0FFFFFF1);  // beyond fp32's 24 bits: exact
  CHECK(b.get_int(tt.dst, 1, 1) == 4);
  tt.op = AluOp::bitwise_xor;
  b.run(tt);
  CHECK(b.get_int(tt.dst, 0, 2) == 0x01000002);
  tt.op = AluOp::logical_shift_right;
  b.run(tt);
  CHECK(b.get_int(tt.dst, 0, 1) == 0x0FFFFFFF);  // -1 >>> 4 on 32 bits
  CHECK(b.get_int(tt.dst, 0, 2) == 0x00200000);
  tt.op = AluOp::logical_shift_left;
  b.run(tt);
  CHECK(b.get_int(tt.dst, 0, 1) == -16);
  // Bitwise ops on a float operand are refused, naming it.
  const auto f_a = b.alloc(MemSpace::sbuf, DType::fp32, 2, 3, 0, 256);
  tt.b = b.tile(f_a, 2, 3);
  CHECK_THROWS_WITH(b.run(tt), Catch::Contains("b: is fp32") &&
                                   Catch::Contains("logical_shift_left needs integer"));
}

TEST_CASE("semantics: tensor_scalar op0 then op1, reverse flags, [P,1] args", "[semantics]") {
  for (DType t : {DType::fp32, DType::bf16}) {
    INFO(dtype_name(t));
    Bench b;
    const auto s_a = b.alloc(MemSpace::sbuf, t, 128, 16);
    const auto d_a = b.alloc(MemSpace::sbuf, t, 128, 16, 0, 1024);
    const auto c_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 1, 0, 2048);
    const AccessPattern col = b.tile(c_a, 128, 1);
    TensorScalar ts;
    ts.src = b.tile(s_a, 128, 16);
    ts.dst = b.tile(d_a, 128, 16);
    const auto x = b.fill_random(ts.src, 300, 0.5, 4.0);
    const auto c = b.fill(col, [](std::uint32_t p, std::uint64_t) { return 1.0 + p / 128.0; });
    // dst = 3 / (x - c[p])  (op0 subtract with the vector, op1 divide reversed)
    ts.op0 = AluOp::subtract;
    ts.arg0 = col;
    ts.op1 = AluOp::divide;
    ts.arg1 = 3.0f;
    ts.reverse1 = true;
    b.run(ts);
    const Tol tol = dtype_tol(t);
    for (std::uint32_t p = 0; p < 128; ++p)
      for (std::uint32_t f = 0; f < 16; ++f) {
        const double xs = x[p * 16 + f];
        // (x - c) is rounded to fp32 before the division: allow that rounding, scaled by
        // the condition number |x| / |x - c| of the subtraction.
        const double d = xs - c[p];
        const double cond = (std::fabs(xs) + std::fabs(c[p])) / std::fabs(d);
        REQUIRE(close(b.get(ts.dst, p, f), 3.0 / d, tol.rel + cond * std::ldexp(1.0, -23)));
      }
    // reverse0: dst = 10 - x; no op1.
    ts.op0 = AluOp::subtract;
    ts.arg0 = 10.0f;
    ts.reverse0 = true;
    ts.op1.reset();
    b.run(ts);
    for (std::uint32_t p = 0; p < 128; ++p)
      REQUIRE(close(b.get(ts.dst, p, 3), 10.0 - x[p * 16 + 3], tol));
  }
}

TEST_CASE("semantics: tensor_scalar reduce sees fp32 results before the cast", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 5);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::bf16, 8, 5, 0, 64);
  const auto r_a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 1, 0, 128);
  TensorScalar ts;
  ts.src = b.tile(s_a, 8, 5);
  ts.dst = b.tile(d_a, 8, 5);
  ts.reduce_dst = b.tile(r_a, 8, 1);
  const auto x = b.fill_random(ts.src, 400);
  ts.op0 = AluOp::multiply;
  ts.arg0 = 1.0f + std::ldexp(1.0f, -12);
  for (AluOp rop : {AluOp::add, AluOp::max, AluOp::min}) {
    ts.reduce_op = rop;
    b.run(ts);
    for (std::uint32_t p = 0; p < 8; ++p) {
      float want = static_cast<float>(x[p * 5]) * (1.0f + std::ldexp(1.0f, -12));
      for (std::uint32_t f = 1; f < 5; ++f) {
        const float y = static_cast<float>(x[p * 5 + f]) * (1.0f + std::ldexp(1.0f, -12));
        want = rop == AluOp::add   ? want + y
               : rop == AluOp::max ? std::max(want, y)
                                   : std::min(want, y);
      }
      CHECK(b.get(*ts.reduce_dst, p, 0) == want);
    }
  }
}

TEST_CASE("semantics: tensor_scalar with shift and mask runs in integers", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::uint32, 4, 4);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::uint8, 4, 4, 0, 64);
  TensorScalar ts;
  ts.src = b.tile(s_a, 4, 4);
  ts.dst = b.tile(d_a, 4, 4);
  ts.op0 = AluOp::logical_shift_right;
  ts.arg0 = 24.0f;
  ts.op1 = AluOp::bitwise_and;
  ts.arg1 = 15.0f;
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t f = 0; f < 4; ++f)
      b.set_int(ts.src, p, f, 0xF0000001u + (p * 4 + f) * 0x01000000u);
  b.run(ts);
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t f = 0; f < 4; ++f)
      CHECK(b.get_int(ts.dst, p, f) == (((0xF0000001u + (p * 4 + f) * 0x01000000u) >> 24) & 15));
  ts.arg1 = 1.5f;
  CHECK_THROWS_WITH(b.run(ts), Catch::Contains("arg1") && Catch::Contains("whole number"));
}

TEST_CASE("semantics: scalar_tensor_tensor computes (a op0 scalar) op1 b", "[semantics]") {
  for (DType t : {DType::fp32, DType::fp16, DType::fp8_e5m2}) {
    INFO(dtype_name(t));
    Bench b;
    const auto a_a = b.alloc(MemSpace::sbuf, t, 32, 24);
    const auto b_a = b.alloc(MemSpace::psum, DType::fp32, 32, 24);
    const auto c_a = b.alloc(MemSpace::sbuf, DType::fp32, 32, 1, 0, 512);
    ScalarTensorTensor st;
    st.a = b.tile(a_a, 32, 24);
    st.b = b.tile(b_a, 32, 24);
    st.dst = st.a;  // in place on a
    st.scalar = b.tile(c_a, 32, 1);
    st.op0 = AluOp::multiply;
    st.op1 = AluOp::add;
    const auto va = b.fill_random(st.a, 500, 1.0, 2.0);
    const auto vb = b.fill_random(st.b, 501, 1.0, 2.0);
    const auto c = b.fill(std::get<AccessPattern>(st.scalar),
                          [](std::uint32_t p, std::uint64_t) { return 0.5 + p / 32.0; });
    b.run(st);
    const Tol tol = dtype_tol(t);
    for (std::uint32_t p = 0; p < 32; ++p)
      for (std::uint32_t f = 0; f < 24; ++f) {
        const std::size_t e = p * 24 + f;
        REQUIRE(close(b.get(st.dst, p, f), va[e] * c[p] + vb[e], tol.rel + std::ldexp(1.0, -22),
                      tol.abs));
      }
  }
}

TEST_CASE("semantics: tensor_reduce over the innermost axes with each op and negate",
          "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 16, 96);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 12, 0, 1024);
  // src viewed as [16, 3 x 4 x 8]; reduce 1 axis -> [16, 12], 2 axes -> [16, 3].
  const AccessPattern src =
      b.pattern(MemSpace::sbuf, s_a, DType::bf16, 16, {{32, 3}, {8, 4}, {1, 8}});
  const auto x = b.fill_random(src, 600, 0.5, 1.5);
  for (std::uint8_t axes : {1, 2, 3})
    for (AluOp op : {AluOp::add, AluOp::max, AluOp::min, AluOp::multiply})
      for (bool negate : {false, true}) {
        INFO("axes " << int(axes) << " " << alu_op_name(op) << " negate " << negate);
        const std::uint32_t group = axes == 1 ? 8 : axes == 2 ? 32 : 96;
        TensorReduce tr;
        tr.src = src;
        tr.dst = b.tile(d_a, 16, 96 / group);
        tr.op = op;
        tr.axes = axes;
        tr.negate = negate;
        b.run(tr);
        for (std::uint32_t p = 0; p < 16; ++p)
          for (std::uint32_t o = 0; o < 96 / group; ++o) {
            double r = x[p * 96 + o * group];
            for (std::uint32_t g = 1; g < group; ++g) {
              const double v = x[p * 96 + o * group + g];
              r = op == AluOp::add        ? r + v
                  : op == AluOp::multiply ? r * v
                  : op == AluOp::max      ? std::max(r, v)
                                          : std::min(r, v);
            }
            // group fp32 roundings of a sum of positive terms / a product.
            REQUIRE(close(b.get(tr.dst, p, o), negate ? -r : r, group * std::ldexp(1.0, -23)));
          }
      }
  TensorReduce bad;
  bad.src = src;
  bad.dst = b.tile(d_a, 16, 5);
  CHECK_THROWS_WITH(b.run(bad), Catch::Contains("dst") && Catch::Contains("[16, 12]"));
  bad.op = AluOp::divide;
  CHECK_THROWS_WITH(b.run(bad), Catch::Contains("not a reduction"));
}

TEST_CASE("semantics: tensor_tensor_scan is NKI's recurrence along the free dims", "[semantics]") {
  // NKI nki.isa.tensor_tensor_scan: r[0] = (data0[0] op0 initial) op1 data1[0], r[i] =
  // (data0[i] op0 r[i-1]) op1 data1[i], in fp32. The reference repeats it in float, so an
  // fp32 dst must match bit for bit.
  Bench b;
  const auto d0_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 20);
  const auto d1_a = b.alloc(MemSpace::psum, DType::fp32, 16, 20);
  const auto init_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 1, 0, 256);
  const auto dst_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 20, 0, 512);
  TensorTensorScan s;
  s.data0 = b.tile(d0_a, 16, 20);
  s.data1 = b.tile(d1_a, 16, 20);
  s.dst = b.tile(dst_a, 16, 20);
  s.initial = b.tile(init_a, 16, 1);
  s.op0 = AluOp::multiply;  // a linear recurrence: r = decay * r + x
  s.op1 = AluOp::add;
  const auto d0 = b.fill_random(s.data0, 600, 0.5, 1.0);
  const auto d1 = b.fill_random(s.data1, 601, -1.0, 1.0);
  const auto init = b.fill(std::get<AccessPattern>(s.initial),
                           [](std::uint32_t p, std::uint64_t) { return p - 8.0; });
  b.run(s);
  for (std::uint32_t p = 0; p < 16; ++p) {
    float r = static_cast<float>(init[p]);
    for (std::uint32_t f = 0; f < 20; ++f) {
      const std::size_t e = p * 20 + f;
      r = static_cast<float>(d0[e]) * r + static_cast<float>(d1[e]);
      REQUIRE(b.get(s.dst, p, f) == static_cast<double>(r));
    }
  }

  SECTION("reverse0 and reverse1 swap the operands; in place on data0") {
    // r = d1 - (r - d0) with an immediate initial 3: small integers, exact in fp32.
    const auto x0 = b.fill(s.data0, [](std::uint32_t p, std::uint64_t f) { return p + f; });
    const auto x1 = b.fill(s.data1, [](std::uint32_t, std::uint64_t f) { return 2.0 * f; });
    s.op0 = AluOp::subtract;
    s.op1 = AluOp::subtract;
    s.reverse0 = s.reverse1 = true;
    s.initial = 3.0f;
    s.dst = s.data0;
    b.run(s);
    for (std::uint32_t p = 0; p < 16; ++p) {
      double r = 3.0;
      for (std::uint32_t f = 0; f < 20; ++f) {
        const std::size_t e = p * 20 + f;
        r = x1[e] - (r - x0[e]);
        REQUIRE(b.get(s.dst, p, f) == r);
      }
    }
  }
}
