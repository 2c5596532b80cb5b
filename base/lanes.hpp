#pragma once
// Element loops for the numerics' hot paths. GCC -O2 vectorises only loops that need no
// runtime alias check and no scalar epilogue, which rules out most loops over a pointer
// pair. So the hot loops are written on GCC vector extension types instead (a block of
// kLanes elements is loaded, computed and stored as one value): the compiler emits SIMD
// instructions for them at any optimisation level and for any target (a vector wider than
// the target's registers is split into several). Each lane does the same IEEE fp32 or
// integer operation the scalar code does, so the results are the scalar code's, bit for
// bit (tests/unit/semantics_bit_exact.cpp, semantics_fast_paths.cpp).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/host_simd.hpp"

// Vectors wider than the baseline's 16-byte registers (the AVX2/AVX-512 variants) are passed
// in memory between functions compiled without AVX, and in registers with it: GCC warns that
// the ABI differs. Every helper taking or returning a vector is always_inline, so no vector
// value crosses a call, where the two conventions would disagree (a helper left out of line
// and called from an AVX-512 function crashes: the fast-path tests run every width).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim {

// The vector types of N lanes: N = 4 fills a register of the baseline x86-64 (SSE2), 8 an
// AVX2 one, 16 an AVX-512 one. A vector wider than the target's registers would be split,
// but GCC then lowers its compares and selects one lane at a time, so each loop uses the
// width of the instruction set it is compiled for.
template <std::size_t N>
struct LaneTypes {
  using F32 [[gnu::vector_size(N * sizeof(float))]] = float;
  using U32 [[gnu::vector_size(N * sizeof(std::uint32_t))]] = std::uint32_t;
  using I32 [[gnu::vector_size(N * sizeof(std::int32_t))]] = std::int32_t;
  using U16 [[gnu::vector_size(N * sizeof(std::uint16_t))]] = std::uint16_t;
  using U8 [[gnu::vector_size(N)]] = std::uint8_t;
};

// The baseline's width, for loops compiled once.
inline constexpr std::size_t kLanes = 4;
using F32Lanes = LaneTypes<kLanes>::F32;
using U32Lanes = LaneTypes<kLanes>::U32;
using I32Lanes = LaneTypes<kLanes>::I32;
using U16Lanes = LaneTypes<kLanes>::U16;
using U8Lanes = LaneTypes<kLanes>::U8;

// Unaligned loads and stores of one block (memcpy: no alignment or aliasing assumption).
template <class V>
[[gnu::always_inline]] inline V load_lanes(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
[[gnu::always_inline]] inline void store_lanes(void* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}
// The same bits seen as another vector type of the same size.
template <class To, class From>
[[gnu::always_inline]] inline To bit_cast_lanes(const From& v) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  std::memcpy(&t, &v, sizeof t);
  return t;
}

// Every lane = x, bit for bit (arithmetic such as `V{} + x` would turn -0 into +0).
template <class V, class T>
[[gnu::always_inline]] inline V splat_lanes(T x) {
  V v;
  for (std::size_t i = 0; i < sizeof(V) / sizeof(T); ++i)
    v[i] = x;
  return v;
}

// Calls fn(i) for i in [0, n) in fixed blocks of 8 plus a tail, for bodies without a vector
// form (e.g. strided fp16/fp8 conversions). GCC vectorises such a block only when it can
// prove the pointers do not alias, which it mostly cannot: expect scalar code. Elements are
// independent: the order does not change any result.
template <class Fn>
inline void for_each_index(std::size_t n, Fn&& fn) {
  constexpr std::size_t kBlock = 8;
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (std::size_t j = 0; j < kBlock; ++j)
      fn(i + j);
  for (; i < n; ++i)
    fn(i);
}

// Calls block(i) for each whole block of kLanes elements [i, i + kLanes) and then one(i)
// for each element of the tail.
template <class Block, class One>
inline void for_each_block(std::size_t n, Block&& block, One&& one) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    block(i);
  for (; i < n; ++i)
    one(i);
}

}  // namespace neuronsim

#pragma GCC diagnostic pop
