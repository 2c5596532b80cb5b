// Addressing: strided, negative-stride and multi-dim patterns, allocation offsets, HBM
// partition_stride, and results that do not depend on dst aliasing an input.
#include <catch2/catch.hpp>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

TEST_CASE("semantics: a [P, 4x128] pattern pairs with a [P, 512] one element by element",
          "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 512);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 512, 0, 4096);
  TensorCopy tc;
  // src read column-major: element (i, j) of the 4x128 view is at j*4 + i.
  tc.src = b.pattern(MemSpace::sbuf, s_a, DType::fp32, 128, {{1, 4}, {4, 128}});
  tc.dst = b.tile(d_a, 128, 512);
  const AccessPattern flat = b.tile(s_a, 128, 512);
  const auto x = b.fill_random(flat, 900);
  b.run(tc);
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint32_t i = 0; i < 4; ++i)
      for (std::uint32_t j = 0; j < 128; ++j)
        REQUIRE(b.get(tc.dst, p, i * 128 + j) == x[p * 512 + j * 4 + i]);
}

TEST_CASE("semantics: strided and negative-stride patterns", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 8, 32);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::bf16, 8, 16, 0, 256);
  const AccessPattern flat = b.tile(s_a, 8, 32);
  const auto x = b.fill_random(flat, 901);
  TensorScalar ts;  // dst = src + 1 over every third element, walked backwards
  ts.op0 = AluOp::add;
  ts.arg0 = 1.0f;
  // Element 31 is byte 62; stride -3 visits 31, 28, ..., 1 (11 elements).
  ts.src = b.pattern(MemSpace::sbuf, s_a, DType::bf16, 8, {{-3, 11}}, 0, 62);
  ts.dst = b.pattern(MemSpace::sbuf, d_a, DType::bf16, 8, {{1, 11}});
  b.run(ts);
  for (std::uint32_t p = 0; p < 8; ++p)
    for (std::uint32_t f = 0; f < 11; ++f)
      REQUIRE(close(b.get(ts.dst, p, f), x[p * 32 + 31 - 3 * f] + 1.0, dtype_tol(DType::bf16)));
  // A 3-D view with an outer negative stride and a start partition inside the allocation.
  TensorCopy tc;
  tc.src = b.pattern(MemSpace::sbuf, s_a, DType::bf16, 4, {{-8, 2}, {2, 2}, {1, 2}}, 3, 2 * 8);
  tc.dst = b.pattern(MemSpace::sbuf, d_a, DType::bf16, 4, {{1, 8}});
  b.run(tc);
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t i = 0; i < 2; ++i)
      for (std::uint32_t j = 0; j < 2; ++j)
        for (std::uint32_t k = 0; k < 2; ++k)
          REQUIRE(b.get(tc.dst, p, i * 4 + j * 2 + k) == x[(3 + p) * 32 + 8 - 8 * i + 2 * j + k]);
}

TEST_CASE("semantics: allocation start partition and byte offset are applied", "[semantics]") {
  Bench b;
  const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 32, 4, 64, 1000);
  Memset ms;
  ms.dst = b.pattern(MemSpace::sbuf, a, DType::fp32, 2, {{1, 1}}, 5, 8);
  ms.value = 42.0;
  b.run(ms);
  float v;
  std::memcpy(&v, b.mem.sbuf[64 + 5].data() + 1000 + 8, 4);
  CHECK(v == 42.0f);
  std::memcpy(&v, b.mem.sbuf[64 + 6].data() + 1000 + 8, 4);
  CHECK(v == 42.0f);
  CHECK(b.mem.sbuf[64 + 7][1008] == 0xEE);
  CHECK(b.mem.sbuf[64 + 5][1012] == 0xEE);
}

TEST_CASE("semantics: HBM rows use partition_stride", "[semantics]") {
  Bench b;
  const auto h = b.tensor(DType::fp32, {4, 10});
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 3, 6);
  const AccessPattern whole = b.pattern(MemSpace::hbm, h, DType::fp32, 4, {{1, 10}}, 0, 0, 10);
  const auto x = b.fill(whole, [](std::uint32_t p, std::uint64_t f) { return p * 100.0 + f; });
  DmaCopy d;  // rows 1..3, columns 2..7
  d.src = b.pattern(MemSpace::hbm, h, DType::fp32, 3, {{1, 6}}, 1, 8, 10);
  d.dst = b.tile(s_a, 3, 6);
  b.run(d);
  for (std::uint32_t p = 0; p < 3; ++p)
    for (std::uint32_t f = 0; f < 6; ++f)
      REQUIRE(b.get(d.dst, p, f) == x[(p + 1) * 10 + 2 + f]);
  // Back to HBM as a column (partition_stride 1, free stride 10): a transposed write.
  const auto h2 = b.tensor(DType::bf16, {6, 3});
  DmaCopy back;
  back.src = d.dst;
  back.dst = b.pattern(MemSpace::hbm, h2, DType::bf16, 3, {{3, 6}}, 0, 0, 1);
  b.run(back);
  const AccessPattern h2_rows = b.pattern(MemSpace::hbm, h2, DType::bf16, 6, {{1, 3}}, 0, 0, 3);
  for (std::uint32_t p = 0; p < 3; ++p)
    for (std::uint32_t f = 0; f < 6; ++f)
      REQUIRE(close(b.get(h2_rows, f, p), x[(p + 1) * 10 + 2 + f], dtype_tol(DType::bf16)));
}

TEST_CASE("semantics: results do not depend on dst aliasing an input", "[semantics]") {
  SECTION("in place, same rows") {
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 8);
    const auto c = b.alloc(MemSpace::sbuf, DType::fp32, 16, 8, 0, 64);
    TensorTensor tt;
    tt.a = b.tile(a, 16, 8);
    tt.b = b.tile(c, 16, 8);
    tt.dst = tt.a;
    tt.op = AluOp::multiply;
    const auto x = b.fill_random(tt.a, 902), y = b.fill_random(tt.b, 903);
    b.run(tt);
    for (std::uint32_t p = 0; p < 16; ++p)
      for (std::uint32_t f = 0; f < 8; ++f)
        REQUIRE(b.get(tt.dst, p, f) == static_cast<float>(x[p * 8 + f] * y[p * 8 + f]));
  }
  SECTION("dst shifted one partition down over src") {
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 32, 4);
    TensorCopy tc;
    tc.src = b.pattern(MemSpace::sbuf, a, DType::fp32, 16, {{1, 4}}, 0);
    tc.dst = b.pattern(MemSpace::sbuf, a, DType::fp32, 16, {{1, 4}}, 1);
    const auto x = b.fill_random(tc.src, 904);
    b.run(tc);  // row by row this would smear row 0 down every row
    for (std::uint32_t p = 0; p < 16; ++p)
      for (std::uint32_t f = 0; f < 4; ++f)
        REQUIRE(b.get(tc.dst, p, f) == x[p * 4 + f]);
  }
  SECTION("reversed element order within the row") {
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, DType::bf16, 4, 16);
    TensorCopy tc;
    tc.src = b.tile(a, 4, 16);
    tc.dst = b.pattern(MemSpace::sbuf, a, DType::bf16, 4, {{-1, 16}}, 0, 30);
    const auto x = b.fill_random(tc.src, 905);
    b.run(tc);
    for (std::uint32_t p = 0; p < 4; ++p)
      for (std::uint32_t f = 0; f < 16; ++f)
        REQUIRE(b.get(tc.src, p, f) == x[p * 16 + 15 - f]);
  }
  SECTION("dma within one HBM tensor, overlapping rows") {
    Bench b;
    const auto h = b.tensor(DType::fp32, {9, 4});
    DmaCopy d;
    d.src = b.pattern(MemSpace::hbm, h, DType::fp32, 8, {{1, 4}}, 0, 0, 4);
    d.dst = b.pattern(MemSpace::hbm, h, DType::fp32, 8, {{1, 4}}, 1, 0, 4);
    const auto x = b.fill_random(d.src, 906);
    b.run(d);
    for (std::uint32_t p = 0; p < 8; ++p)
      for (std::uint32_t f = 0; f < 4; ++f)
        REQUIRE(b.get(d.dst, p, f) == x[p * 4 + f]);
  }
  SECTION("scalar_tensor_tensor with dst over b, shifted") {
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 2);
    const auto c = b.alloc(MemSpace::sbuf, DType::fp32, 9, 2, 0, 64);
    ScalarTensorTensor st;
    st.a = b.tile(a, 8, 2);
    st.b = b.pattern(MemSpace::sbuf, c, DType::fp32, 8, {{1, 2}}, 1);
    st.dst = b.pattern(MemSpace::sbuf, c, DType::fp32, 8, {{1, 2}}, 0);
    st.scalar = 2.0f;
    const auto x = b.fill_random(st.a, 907), y = b.fill_random(st.b, 908);
    b.run(st);
    for (std::uint32_t p = 0; p < 8; ++p)
      for (std::uint32_t f = 0; f < 2; ++f)
        REQUIRE(b.get(st.dst, p, f) == static_cast<float>(x[p * 2 + f] * 2 + y[p * 2 + f]));
  }
}

TEST_CASE("semantics: errors name the instruction, line and field", "[semantics]") {
  Bench b;
  b.k.name = "kern";
  const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 4);
  TensorTensor tt;
  tt.a = b.tile(a, 8, 4);
  tt.b = b.tile(a, 4, 4);
  tt.dst = tt.a;
  Instruction instr;
  instr.op = tt;
  instr.source_line = 17;
  CHECK_THROWS_WITH(execute(b.k, instr, b.mem),
                    "kernel 'kern': tensor_tensor (line 17): b: is [4, 4] but dst is [8, 4]");
  tt.b.buffer = 9;
  instr.op = tt;
  CHECK_THROWS_WITH(execute(b.k, instr, b.mem), Catch::Contains("allocation 9"));
  tt.b = tt.a;
  tt.b.ndims = 0;
  instr.op = tt;
  CHECK_THROWS_WITH(execute(b.k, instr, b.mem), Catch::Contains("0 free dims"));
  instr.op = Nop{};
  CHECK_NOTHROW(execute(b.k, instr, b.mem));
}
