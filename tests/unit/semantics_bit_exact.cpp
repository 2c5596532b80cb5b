// The fast numerics paths against plain reference loops, bit for bit: the blocked matmul
// (semantics/execute_tensor.cpp) against the k-outer accumulation it replaced, and the
// inlined dtype conversions of Operand::load/store (semantics/access.cpp) against
// isa::load_fp32 / store_fp32, on random bit patterns including NaNs, infinities,
// subnormals and signed zeros. Equality of bits, not closeness: speed must not change
// a single output (NaN payloads out of arithmetic aside, see same_result).
#include <catch2/catch.hpp>

#include "base/lanes.hpp"
#include "base/parallel.hpp"

#include <cstring>
#include <random>

#include "semantics_test_memory.hpp"

using namespace semantics_test;
using neuronsim::limit_vector_isa;
using neuronsim::VectorIsa;

namespace {

// Random fp32 bit patterns: mostly finite values of every exponent, with specials mixed in.
std::uint32_t random_fp32_bits(std::mt19937& rng) {
  static constexpr std::uint32_t kSpecials[] = {0x00000000u, 0x80000000u, 0x7f800000u,
                                                0xff800000u, 0x7fc00000u, 0xffc12345u,
                                                0x7f800001u, 0x00000001u, 0x807fffffu};
  const std::uint32_t r = rng();
  if (r % 16 == 0) return kSpecials[(r >> 4) % std::size(kSpecials)];
  // Exponents near 127 most of the time, so sums cancel and round in interesting ways.
  if (r % 4 != 0) return (r & 0x807fffffu) | ((112u + (r >> 23) % 32u) << 23);
  return rng();
}

void write_bits(Bench& b, const AccessPattern& ap, std::uint32_t p, std::uint64_t f,
                std::uint32_t bits) {
  std::memcpy(b.address(ap, p, f), &bits, dtype_size(ap.dtype));
}

std::uint32_t read_bits(Bench& b, const AccessPattern& ap, std::uint32_t p, std::uint64_t f) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, b.address(ap, p, f), dtype_size(ap.dtype));
  return bits;
}

// Equal bits, or both NaN. Which NaN's payload an operation on two NaNs returns is the
// host's choice (x86 SIMD returns one operand's, and the compiler may order the operands
// of a commutative add or multiply either way), so it was never fixed by the old loop
// either; docs/numerics.md says so. Every other result must match bit for bit.
bool same_result(std::uint32_t got, std::uint32_t want) {
  auto is_nan = [](std::uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; };
  return got == want || (is_nan(got) && is_nan(want));
}

// The matmul as it was written before blocking: for each k, every sum row gets
// w * moving_row added (assigned at k = 0), products rounded to fp32 before the add.
std::vector<float> reference_matmul(const std::vector<float>& st, const std::vector<float>& mv,
                                    std::uint32_t k_rows, std::size_t m_cols, std::size_t n_cols) {
  std::vector<float> sum(m_cols * n_cols);
  for (std::uint32_t k = 0; k < k_rows; ++k)
    for (std::size_t m = 0; m < m_cols; ++m) {
      const float w = st[k * m_cols + m];
      for (std::size_t n = 0; n < n_cols; ++n) {
        const float product = w * mv[k * n_cols + n];
        if (k == 0)
          sum[m * n_cols + n] = product;
        else
          sum[m * n_cols + n] += product;
      }
    }
  return sum;
}

}  // namespace

TEST_CASE("semantics: the blocked matmul gives the reference loop's bits", "[semantics]") {
  struct Shape {
    std::uint32_t k, m, n;
  };
  // From 1 M multiply-adds a matmul is split by columns over the numerics threads
  // (base/parallel.hpp): [128,128,512] in whole halves, [128,128,130] with a ragged last part,
  // [128,100,452] with edge rows too.
  const Shape shapes[] = {{1, 1, 1},   {3, 5, 7},       {17, 9, 13},
                          {128, 4, 8}, {128, 128, 512}, {64, 33, 100},
                          {2, 128, 9}, {128, 128, 130}, {128, 100, 452}};
  unsigned seed = 1;
  // Every register-tile variant the host can run: baseline SSE2 4 x 8, AVX2 4 x 16,
  // AVX-512 8 x 32 (semantics/execute_tensor.cpp).
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    if (limit_vector_isa(isa) != isa) continue;
    for (DType t : {DType::fp32, DType::bf16})
      for (const Shape& s : shapes)
        for (AccumulateFlag acc : {AccumulateFlag::single, AccumulateFlag::middle}) {
          CAPTURE(static_cast<int>(isa), dtype_name(t), s.k, s.m, s.n, static_cast<int>(acc));
          Bench b;
          const auto st_a = b.alloc(MemSpace::sbuf, t, s.k, s.m);
          const auto mv_a = b.alloc(MemSpace::sbuf, t, s.k, s.n, 0, 8192);
          const auto ps_a = b.alloc(MemSpace::psum, DType::fp32, s.m, s.n);
          const AccessPattern st = b.tile(st_a, s.k, s.m), mv = b.tile(mv_a, s.k, s.n),
                              dst = b.tile(ps_a, s.m, s.n);
          std::mt19937 rng(seed++);
          // Inputs as stored, and as the fp32 values the array multiplies.
          std::vector<float> st_f(s.k * s.m), mv_f(s.k * s.n), old(s.m * s.n);
          auto fill = [&](const AccessPattern& ap, std::vector<float>& values, std::size_t cols) {
            for (std::uint32_t p = 0; p < ap.partitions; ++p)
              for (std::size_t f = 0; f < cols; ++f) {
                const std::uint32_t bits = random_fp32_bits(rng);
                write_bits(b, ap, p, f, t == DType::bf16 ? bits >> 16 : bits);
                values[p * cols + f] = load_fp32(t, b.address(ap, p, f));
              }
          };
          fill(st, st_f, s.m);
          fill(mv, mv_f, s.n);
          for (std::uint32_t p = 0; p < s.m; ++p)
            for (std::size_t f = 0; f < s.n; ++f) {
              write_bits(b, dst, p, f, random_fp32_bits(rng));
              old[p * s.n + f] = b.get(dst, p, f);
            }
          std::vector<float> want = reference_matmul(st_f, mv_f, s.k, s.m, s.n);
          if (acc == AccumulateFlag::middle)
            for (std::size_t i = 0; i < want.size(); ++i)
              want[i] = old[i] + want[i];
          b.run(Matmul{dst, st, mv, acc});
          std::size_t mismatches = 0;
          for (std::uint32_t p = 0; p < s.m; ++p)
            for (std::size_t f = 0; f < s.n; ++f) {
              std::uint32_t w;
              std::memcpy(&w, &want[p * s.n + f], 4);
              mismatches += !same_result(read_bits(b, dst, p, f), w);
            }
          CHECK(mismatches == 0);
        }
  }
  limit_vector_isa(VectorIsa::avx512);  // back to the host's widest
}

TEST_CASE("semantics: inlined conversions give load_fp32's bits for every narrow pattern",
          "[semantics]") {
  // [128, 512] = 65536 elements: every 16-bit pattern once (every 8-bit one 256 times), at
  // every vector width the host has (contiguous bf16 runs convert at that width).
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    if (limit_vector_isa(isa) != isa) continue;
    for (DType t : {DType::bf16, DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2}) {
      CAPTURE(static_cast<int>(isa), dtype_name(t));
      Bench b;
      const auto in_a = b.alloc(MemSpace::sbuf, t, 128, 512);
      const auto out_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 512, 0, 4096);
      const AccessPattern in = b.tile(in_a, 128, 512), out = b.tile(out_a, 128, 512);
      const std::uint32_t mask = dtype_size(t) == 1 ? 0xffu : 0xffffu;
      for (std::uint32_t p = 0; p < 128; ++p)
        for (std::uint32_t f = 0; f < 512; ++f)
          write_bits(b, in, p, f, (p * 512 + f) & mask);
      b.run(TensorCopy{out, in});
      std::size_t mismatches = 0;
      for (std::uint32_t p = 0; p < 128; ++p)
        for (std::uint32_t f = 0; f < 512; ++f) {
          const float want = load_fp32(t, b.address(in, p, f));
          std::uint32_t w;
          std::memcpy(&w, &want, 4);
          mismatches += read_bits(b, out, p, f) != w;
        }
      CHECK(mismatches == 0);
    }
  }
  limit_vector_isa(VectorIsa::avx512);
}

TEST_CASE("semantics: inlined conversions give store_fp32's bits on random fp32 patterns",
          "[semantics]") {
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    if (limit_vector_isa(isa) != isa) continue;
    for (DType t : {DType::bf16, DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2, DType::fp32}) {
      CAPTURE(static_cast<int>(isa), dtype_name(t));
      Bench b;
      const auto in_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 512);
      const auto out_a = b.alloc(MemSpace::sbuf, t, 128, 512, 0, 4096);
      const AccessPattern in = b.tile(in_a, 128, 512), out = b.tile(out_a, 128, 512);
      std::mt19937 rng(99);
      for (std::uint32_t p = 0; p < 128; ++p)
        for (std::uint32_t f = 0; f < 512; ++f)
          write_bits(b, in, p, f, random_fp32_bits(rng));
      b.run(TensorCopy{out, in});
      std::size_t mismatches = 0;
      for (std::uint32_t p = 0; p < 128; ++p)
        for (std::uint32_t f = 0; f < 512; ++f) {
          std::uint32_t want = 0;
          store_fp32(t, load_fp32(DType::fp32, b.address(in, p, f)), &want);
          mismatches += read_bits(b, out, p, f) != want;
        }
      CHECK(mismatches == 0);
    }
  }
  limit_vector_isa(VectorIsa::avx512);
}

TEST_CASE("parallel_for: every part runs once, and a part's exception reaches the caller",
          "[semantics]") {
  for (std::size_t parts : {1u, 2u, 3u, 17u}) {
    std::vector<int> runs(parts, 0);
    neuronsim::parallel_for(parts, [&](std::size_t p) { ++runs[p]; });
    CHECK(runs == std::vector<int>(parts, 1));
  }
  CHECK_THROWS_WITH(neuronsim::parallel_for(4,
                                            [](std::size_t p) {
                                              if (p == 2) throw std::runtime_error("part 2");
                                            }),
                    "part 2");
  // The pool is usable again after a failed loop.
  std::vector<int> after(5, 0);
  neuronsim::parallel_for(5, [&](std::size_t p) { ++after[p]; });
  CHECK(after == std::vector<int>(5, 1));
}
