#pragma once
// Internal to the semantics: an access pattern bound to memory. Binding resolves each
// partition's row pointer once per instruction; rows are then walked with nested loops over
// the (up to 4) free dims, outermost first, with the dtype switch hoisted out of the loop.
// Values travel in one of three forms: fp32 (compute), int64 (integer ops, int->int moves)
// and raw bits (same-dtype moves: bytes exact, NaN payloads survive).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/lanes.hpp"
#include "isa/dtype_bits.hpp"
#include "semantics/semantics.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace neuronsim::isa::sem {

// The stored bits of one element (up to 4 bytes), moved without interpretation.
struct RawBits {
  std::uint32_t bits = 0;
};

// Where an instruction is, for error messages: "execute tensor_tensor (line 12): ".
struct Site {
  const Kernel& kernel;
  const Instruction& instr;
  MemoryView& mem;
  [[noreturn]] void fail(std::string_view field, const std::string& reason) const;
};

class Operand {
 public:
  Operand(const Site& site, const AccessPattern& ap, std::string_view field);

  const AccessPattern& pattern() const { return *ap_; }
  DType dtype() const { return ap_->dtype; }
  std::uint32_t partitions() const { return ap_->partitions; }
  std::uint64_t free() const { return free_; }
  std::string_view field() const { return field_; }

  // Row p (0-based within the pattern) in logical order, converted.
  void load(std::uint32_t p, float* out) const;
  void load(std::uint32_t p, std::int64_t* out) const;
  void load(std::uint32_t p, RawBits* out) const;
  void store(std::uint32_t p, const float* in) const;
  void store(std::uint32_t p, const std::int64_t* in) const;
  void store(std::uint32_t p, const RawBits* in) const;
  // Element 0 of row p: the value of a [P,1] operand.
  float first(std::uint32_t p) const;
  std::int64_t first_int(std::uint32_t p) const;
  // Writes one already-encoded element to every element of row p.
  void fill(std::uint32_t p, const RawBits& value) const;

  // True when every row is one contiguous run of free() elements (the dims collapse into
  // one with the element size as stride); row_data(p) is then element 0 of row p.
  bool rows_contiguous() const { return rows_contiguous_; }
  std::uint8_t* row_data(std::uint32_t p) const { return rows_[p]; }

  // True when writing this operand row by row could change a row of `in` that is read
  // later (the two share memory rows but map partition i to different rows), so the whole
  // input must be read before anything is written.
  bool may_clobber_later_rows(const Operand& in) const;

  // Calls run(first, count, stride_bytes) for each innermost run of row p, in logical
  // order; element i of a run is at first + i * stride_bytes.
  template <class Fn>
  void for_each_run(std::uint32_t p, Fn&& run) const {
    std::uint8_t* const base = rows_[p];
    for (std::uint64_t i0 = 0; i0 < size_[0]; ++i0) {
      std::uint8_t* const e0 = base + static_cast<std::int64_t>(i0) * stride_[0];
      for (std::uint64_t i1 = 0; i1 < size_[1]; ++i1) {
        std::uint8_t* const e1 = e0 + static_cast<std::int64_t>(i1) * stride_[1];
        for (std::uint64_t i2 = 0; i2 < size_[2]; ++i2)
          run(e1 + static_cast<std::int64_t>(i2) * stride_[2], size_[3], stride_[3]);
      }
    }
  }
  // Calls fn(element) for each element of row p, in logical order.
  template <class Fn>
  void for_each(std::uint32_t p, Fn&& fn) const {
    for_each_run(p, [&](std::uint8_t* first, std::uint64_t count, std::int64_t stride) {
      for (std::uint64_t i = 0; i < count; ++i)
        fn(first + static_cast<std::int64_t>(i) * stride);
    });
  }

 private:
  const AccessPattern* ap_;
  std::string_view field_;
  std::uint64_t free_ = 0;
  std::size_t elem_bytes_ = 0;
  std::int64_t first_row_ = 0;  // absolute partition (SBUF/PSUM) or row index (HBM)
  // The free dims right-aligned into 4 slots (unused outer slots have size 1), strides in
  // bytes.
  std::array<std::uint64_t, kMaxFreeDims> size_{};
  std::array<std::int64_t, kMaxFreeDims> stride_{};
  std::vector<std::uint8_t*> rows_;  // element (p, 0, 0, 0, 0) of each partition
  bool rows_contiguous_ = false;
};

// Vector values stay inside the numerics' loops (base/lanes.hpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// The float dtypes whose conversions have a lane-wise form, for the fused element loops:
// get/put convert one stored element, get_lanes/put_lanes kLanes contiguous ones, with the
// same bits as isa::load_fp32 / store_fp32 (tests/unit/semantics_fast_paths.cpp).
struct Fp32Codec {
  static constexpr std::size_t kBytes = 4;
  [[gnu::always_inline]] static float get(const std::uint8_t* p) {
    float v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  [[gnu::always_inline]] static void put(std::uint8_t* p, float v) { std::memcpy(p, &v, sizeof v); }
  template <std::size_t N>
  [[gnu::always_inline]] static typename LaneTypes<N>::F32 get_lanes(const std::uint8_t* p) {
    return load_lanes<typename LaneTypes<N>::F32>(p);
  }
  template <std::size_t N>
  [[gnu::always_inline]] static void put_lanes(std::uint8_t* p, typename LaneTypes<N>::F32 v) {
    store_lanes(p, v);
  }
};
// A bf16 is the upper half of an fp32: widening is a shift, narrowing rounds to nearest even
// (dtype_bits::round_fp32_mantissa).
struct Bf16Codec {
  static constexpr std::size_t kBytes = 2;
  [[gnu::always_inline]] static float get(const std::uint8_t* p) {
    std::uint16_t b;
    std::memcpy(&b, p, sizeof b);
    return dtype_bits::bf16_bits_to_fp32(b);
  }
  [[gnu::always_inline]] static void put(std::uint8_t* p, float v) {
    const std::uint16_t b = dtype_bits::fp32_to_bf16_bits(v);
    std::memcpy(p, &b, sizeof b);
  }
  template <std::size_t N>
  [[gnu::always_inline]] static typename LaneTypes<N>::F32 get_lanes(const std::uint8_t* p) {
    using T = LaneTypes<N>;
    return bit_cast_lanes<typename T::F32>(
        __builtin_convertvector(load_lanes<typename T::U16>(p), typename T::U32) << 16);
  }
  template <std::size_t N>
  [[gnu::always_inline]] static void put_lanes(std::uint8_t* p, typename LaneTypes<N>::F32 v) {
    using T = LaneTypes<N>;
    const typename T::U32 rounded =
        dtype_bits::round_fp32_mantissa_lanes<16>(bit_cast_lanes<typename T::U32>(v));
#if defined(__SSE2__)
    if constexpr (N == 4) {
      // The upper halves, sign-extended, then packed with signed saturation (which never
      // saturates: each value is in int16's range), are the bf16 patterns: 2 instructions
      // where GCC's generic narrowing on SSE2 takes 6.
      const __m128i high = _mm_srai_epi32(bit_cast_lanes<__m128i>(rounded), 16);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(high, high));
      return;
    }
#endif
    store_lanes(p, __builtin_convertvector(rounded >> 16, typename T::U16));
  }
};

// fp16 and fp8 (Format: a dtype_bits::IeeeNarrowFloat, Bits: its storage): widened by bit
// arithmetic (IeeeNarrowFloat::to_fp32_bits_lanes), narrowed by from_fp32_lanes, the scalar
// rounding, overflow and NaN rules as selects.
template <class Format, class Bits>
struct NarrowFloatCodec {
  static constexpr std::size_t kBytes = sizeof(Bits);
  template <std::size_t N>
  using BitsLanes =
      std::conditional_t<sizeof(Bits) == 1, typename LaneTypes<N>::U8, typename LaneTypes<N>::U16>;
  [[gnu::always_inline]] static float get(const std::uint8_t* p) {
    Bits b;
    std::memcpy(&b, p, sizeof b);
    return Format::to_fp32(b);
  }
  [[gnu::always_inline]] static void put(std::uint8_t* p, float v) {
    const auto b = static_cast<Bits>(Format::from_fp32(v));
    std::memcpy(p, &b, sizeof b);
  }
  template <std::size_t N>
  [[gnu::always_inline]] static typename LaneTypes<N>::F32 get_lanes(const std::uint8_t* p) {
    using T = LaneTypes<N>;
    return bit_cast_lanes<typename T::F32>(Format::to_fp32_bits_lanes(widen_lanes<N>(p)));
  }
  // N stored patterns zero-extended to uint32 lanes. GCC 12 widens uint8 -> uint32 one lane
  // at a time (and through uint16 in about 7 instructions for 16 lanes), so the AVX2 and
  // AVX-512 widths of fp8 use the one instruction for it, vpmovzxbd, in inline assembly
  // (an intrinsic cannot be inlined into this function, which has no target attribute; the
  // N = 8 and N = 16 copies are only called from AVX2 and AVX-512 functions). Clang checks
  // the operand size against this function's own target (SSE2) and refuses the assembly;
  // it compiles the conversion below to vpmovzxbd itself, so it takes that.
  template <std::size_t N>
  [[gnu::always_inline]] static typename LaneTypes<N>::U32 widen_lanes(const std::uint8_t* p) {
    using T = LaneTypes<N>;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if constexpr (sizeof(Bits) == 1 && (N == 8 || N == 16)) {
      typename T::U32 wide;
      asm("vpmovzxbd %1, %0" : "=v"(wide) : "m"(*reinterpret_cast<const std::uint8_t(*)[N]>(p)));
      return wide;
    }
#endif
    return __builtin_convertvector(
        __builtin_convertvector(load_lanes<BitsLanes<N>>(p), typename T::U16), typename T::U32);
  }
  template <std::size_t N>
  [[gnu::always_inline]] static void put_lanes(std::uint8_t* p, typename LaneTypes<N>::F32 v) {
    using T = LaneTypes<N>;
    const typename T::U32 bits = Format::from_fp32_lanes(bit_cast_lanes<typename T::U32>(v));
    // Each lane's pattern fits: no bits are lost. AVX-512 narrows in one instruction; for
    // narrower vectors GCC 12 narrows uint32 -> uint8 one lane at a time, so through uint16.
    if constexpr (N >= 16 || sizeof(Bits) == 2)
      store_lanes(p, __builtin_convertvector(bits, BitsLanes<N>));
    else
      store_lanes(
          p, __builtin_convertvector(__builtin_convertvector(bits, typename T::U16), BitsLanes<N>));
  }
};
using Fp16Codec = NarrowFloatCodec<dtype_bits::Fp16Format, std::uint16_t>;
using Fp8E4M3Codec = NarrowFloatCodec<dtype_bits::Fp8E4M3Format, std::uint8_t>;
using Fp8E5M2Codec = NarrowFloatCodec<dtype_bits::Fp8E5M2Format, std::uint8_t>;

// Calls fn(codec) for fp16, fp8_e4m3 and fp8_e5m2 and returns true; false for the others.
template <class Fn>
bool with_narrow_codec(DType t, Fn&& fn) {
  switch (t) {
    case DType::fp16:
      fn(Fp16Codec{});
      return true;
    case DType::fp8_e4m3:
      fn(Fp8E4M3Codec{});
      return true;
    case DType::fp8_e5m2:
      fn(Fp8E5M2Codec{});
      return true;
    default:
      return false;
  }
}

// Calls fn(codec) for fp32 and bf16 and returns true; false for the other dtypes.
template <class Fn>
bool with_lane_codec(DType t, Fn&& fn) {
  switch (t) {
    case DType::fp32:
      fn(Fp32Codec{});
      return true;
    case DType::bf16:
      fn(Bf16Codec{});
      return true;
    default:
      return false;
  }
}

#pragma GCC diagnostic pop

// How values move in a copy-like instruction: raw when every operand has the dst's dtype,
// int64 when all are integers (exact), else through fp32.
enum class MoveForm { raw, integer, fp32 };
MoveForm move_form(DType dst, std::initializer_list<DType> sources);

// `value` stored into one element of dtype t (rounded, saturated as store_fp32 does).
RawBits encode(DType t, float value);

// Checks that `in` pairs element by element with `dst` ([P,F] both).
void require_same_shape(const Site& site, const Operand& dst, const Operand& in);
// Checks that a [P,1] operand serves `partitions` partitions.
void require_column(const Site& site, const Operand& col, std::uint32_t partitions);

// Runs body(p0, n) over partitions [0, P): one partition at a time, or all at once when
// `whole` (some input must be read completely before the first write).
template <class Body>
void for_partition_blocks(std::uint32_t partitions, bool whole, Body&& body) {
  if (whole) {
    if (partitions > 0) body(0u, partitions);
    return;
  }
  for (std::uint32_t p = 0; p < partitions; ++p)
    body(p, 1u);
}

// The same, in batches of up to kPartitionBatch rows where not whole: every row of a batch
// is read before any is written, which reads the same values as row by row because writing
// a row does not change a later row of the input (that is what !whole says). For loops
// that work on several rows at once (independent reductions side by side).
inline constexpr std::uint32_t kPartitionBatch = 16;
template <class Body>
void for_partition_batches(std::uint32_t partitions, bool whole, Body&& body) {
  if (whole) {
    if (partitions > 0) body(0u, partitions);
    return;
  }
  for (std::uint32_t p = 0; p < partitions; p += kPartitionBatch)
    body(p, std::min(kPartitionBatch, partitions - p));
}

}  // namespace neuronsim::isa::sem
