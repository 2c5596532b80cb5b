// The vectorised numerics paths against plain per-element reference loops, bit for bit:
// the fused tensor_tensor rows (semantics/execute_vector.cpp) at every vector width the host
// has, the buffered ALU loops of tensor_scalar and scalar_tensor_tensor (semantics/alu.cpp), the
// lane-wise bf16 rounding (isa/dtype_bits.hpp) and the same-dtype row copy of tensor_copy
// (semantics/execute_move.cpp). Inputs are random bit patterns with NaNs (quiet, signalling,
// with payloads), infinities, subnormals and signed zeros mixed in. The reference is what
// every element computed before the fast paths: load_fp32, alu_f32, store_fp32.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "base/lanes.hpp"
#include "isa/dtype_bits.hpp"
#include "semantics/alu.hpp"
#include "semantics_test_memory.hpp"

using namespace semantics_test;
using neuronsim::kLanes;
using neuronsim::limit_vector_isa;
using neuronsim::U32Lanes;
using neuronsim::VectorIsa;

namespace {

// fp32 patterns: mostly values near 1 (so results round in interesting ways), every
// exponent sometimes, and the special values.
std::uint32_t random_fp32_bits(std::mt19937& rng) {
  static constexpr std::uint32_t kSpecials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                                0x7fc00000u, 0xffc12345u, 0x7f800001u, 0x7fa00000u,
                                                0x00000001u, 0x807fffffu, 0x00400000u, 0x7f7fffffu,
                                                0x3f808000u, 0x3f818000u, 0x7f7f8000u, 0xff7fffffu};
  const std::uint32_t r = rng();
  if (r % 8 == 0) return kSpecials[(r >> 3) % std::size(kSpecials)];
  if (r % 4 != 0) return (r & 0x807fffffu) | ((120u + (r >> 23) % 16u) << 23);
  return rng();
}

// A pattern of dtype t: bf16 takes the upper half of an fp32 pattern (so it sees the same
// specials); other dtypes take the low bytes.
std::uint32_t random_bits(DType t, std::mt19937& rng) {
  const std::uint32_t b = random_fp32_bits(rng);
  if (t == DType::bf16) return b >> 16;
  if (dtype_size(t) == 2) return b & 0xffffu;
  if (dtype_size(t) == 1) return b & 0xffu;
  return b;
}

bool is_nan_bits(DType t, std::uint32_t bits) {
  std::uint32_t b = bits;
  return std::isnan(load_fp32(t, &b));
}

// Arithmetic on two NaNs may return either payload (docs/numerics.md): only NaN-ness is
// specified there. Everything else (max/min/abs_max/comparisons/bypass) must match exactly.
bool payload_free(AluOp op) {
  return op == AluOp::add || op == AluOp::subtract || op == AluOp::multiply ||
         op == AluOp::divide || op == AluOp::pow;
}

bool same_result(AluOp op, DType t, std::uint32_t got, std::uint32_t want) {
  if (got == want) return true;
  return payload_free(op) && is_nan_bits(t, got) && is_nan_bits(t, want);
}

std::vector<AluOp> fp32_ops() {
  std::vector<AluOp> ops;
  for (int i = 0; i < kAluOpCount; ++i)
    if (!is_bitwise_op(static_cast<AluOp>(i))) ops.push_back(static_cast<AluOp>(i));
  return ops;
}

// Sets the vector width for one scope; back to the host's widest after.
struct WidthLimit {
  VectorIsa in_effect;
  explicit WidthLimit(VectorIsa isa) : in_effect(limit_vector_isa(isa)) {}
  ~WidthLimit() { limit_vector_isa(VectorIsa::avx512); }
};

const char* isa_name(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::avx512:
      return "avx512";
    case VectorIsa::avx2:
      return "avx2";
    case VectorIsa::baseline:
      break;
  }
  return "baseline";
}

// Stored patterns of every element of ap, row-major.
std::vector<std::uint32_t> snapshot(Bench& b, const AccessPattern& ap) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t p = 0; p < ap.partitions; ++p)
    for (std::uint64_t f = 0; f < ap.free_elems(); ++f)
      out.push_back(b.bits(ap, p, f));
  return out;
}

void fill_bits(Bench& b, const AccessPattern& ap, std::mt19937& rng) {
  for (std::uint32_t p = 0; p < ap.partitions; ++p)
    for (std::uint64_t f = 0; f < ap.free_elems(); ++f)
      b.set_bits(ap, p, f, random_bits(ap.dtype, rng));
}

// The reference: element by element through load_fp32 / alu_f32 / store_fp32.
std::uint32_t reference_element(AluOp op, DType ta, std::uint32_t a, DType tb, std::uint32_t b,
                                DType td) {
  std::uint32_t out = 0;
  store_fp32(td, alu_f32(op, load_fp32(ta, &a), load_fp32(tb, &b)), &out);
  return out;
}

std::size_t count_mismatches(Bench& b, AluOp op, const AccessPattern& dst,
                             const std::vector<std::uint32_t>& want) {
  const std::vector<std::uint32_t> got = snapshot(b, dst);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    bad += !same_result(op, dst.dtype, got[i], want[i]);
  return bad;
}

}  // namespace

TEST_CASE(
    "fast paths: tensor_tensor gives the per-element reference's bits for every fp32 op, "
    "dtype mix and vector width",
    "[semantics]") {
  // Every mix of fp32 and bf16; fp16/fp8 inputs of one dtype into that dtype, fp32 or bf16
  // (fused); and mixes the fused path leaves to the buffered one.
  struct Mix {
    DType a, b, d;
  };
  std::vector<Mix> mixes;
  for (DType ta : {DType::fp32, DType::bf16})
    for (DType tb : {DType::fp32, DType::bf16})
      for (DType td : {DType::fp32, DType::bf16})
        mixes.push_back({ta, tb, td});
  for (DType t : {DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2})
    for (DType td : {t, DType::fp32, DType::bf16})
      mixes.push_back({t, t, td});
  mixes.push_back({DType::fp8_e4m3, DType::fp32, DType::fp8_e4m3});
  mixes.push_back({DType::fp32, DType::fp32, DType::fp8_e5m2});
  mixes.push_back({DType::fp8_e4m3, DType::fp8_e4m3, DType::fp16});
  unsigned seed = 7;
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    const WidthLimit width(isa);
    if (width.in_effect != isa) continue;  // the host has no such instruction set
    for (const Mix& mix : mixes) {
      const DType ta = mix.a, tb = mix.b, td = mix.d;
      // 83 columns: whole blocks of 4, 8 and 16 lanes, then a tail. One memory for all
      // ops (a Bench is 10 MB), fresh inputs for each.
      Bench b;
      const AccessPattern a = b.tile(b.alloc(MemSpace::sbuf, ta, 3, 83), 3, 83);
      const AccessPattern bb = b.tile(b.alloc(MemSpace::sbuf, tb, 3, 83, 0, 1024), 3, 83);
      const AccessPattern d = b.tile(b.alloc(MemSpace::sbuf, td, 3, 83, 0, 2048), 3, 83);
      for (AluOp op : fp32_ops()) {
        CAPTURE(isa_name(isa), alu_op_name(op), dtype_name(ta), dtype_name(tb), dtype_name(td));
        std::mt19937 rng(seed++);
        fill_bits(b, a, rng);
        fill_bits(b, bb, rng);
        const auto va = snapshot(b, a), vb = snapshot(b, bb);
        std::vector<std::uint32_t> want(va.size());
        for (std::size_t i = 0; i < va.size(); ++i)
          want[i] = reference_element(op, ta, va[i], tb, vb[i], td);
        b.run(TensorTensor{d, a, bb, op});
        CHECK(count_mismatches(b, op, d, want) == 0);
      }
    }
  }
}

TEST_CASE("fast paths: tensor_tensor in place, overlapping and strided gives the reference",
          "[semantics]") {
  // Each case: dst placed relative to input a's row, in elements of a's dtype. In place and
  // disjoint rows take the fused path; a dst shifted by a few elements over a, or strided,
  // must take the buffered one (every element of the row read before the first write).
  struct Case {
    const char* name;
    std::int64_t dst_offset;  // elements from a's first element
    std::int32_t dst_stride;
  };
  const Case cases[] = {{"in place", 0, 1},
                        {"one element after a", 1, 1},
                        {"five before a", -5, 1},
                        {"disjoint", 200, 1},
                        {"strided over a", 0, 2}};
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx512}) {
    const WidthLimit width(isa);
    for (DType t : {DType::fp32, DType::bf16, DType::fp8_e4m3, DType::fp16})
      for (const Case& c : cases)
        for (AluOp op : {AluOp::add, AluOp::max}) {
          CAPTURE(isa_name(width.in_effect), dtype_name(t), c.name, alu_op_name(op));
          Bench b;
          const std::uint32_t es = static_cast<std::uint32_t>(dtype_size(t));
          // One allocation holding a (at element 16), dst somewhere around it; b elsewhere.
          const std::uint32_t buf = b.alloc(MemSpace::sbuf, t, 4, 512);
          const std::uint32_t other = b.alloc(MemSpace::sbuf, t, 4, 64, 0, 4096);
          const std::uint32_t n = 61;
          const AccessPattern a = b.pattern(MemSpace::sbuf, buf, t, 4, {{1, n}}, 0, 16 * es);
          const AccessPattern bb = b.pattern(MemSpace::sbuf, other, t, 4, {{1, n}});
          const AccessPattern d = b.pattern(MemSpace::sbuf, buf, t, 4, {{c.dst_stride, n}}, 0,
                                            static_cast<std::uint64_t>((16 + c.dst_offset) * es));
          std::mt19937 rng(11);
          for (std::uint32_t p = 0; p < 4; ++p)
            for (std::uint32_t f = 0; f < 512; ++f) {
              const std::uint32_t bits = random_bits(t, rng);
              std::memcpy(b.mem.row(MemSpace::sbuf, p) + f * es, &bits, es);
            }
          fill_bits(b, bb, rng);
          const auto va = snapshot(b, a), vb = snapshot(b, bb);
          std::vector<std::uint32_t> want(va.size());
          for (std::size_t i = 0; i < va.size(); ++i)
            want[i] = reference_element(op, t, va[i], t, vb[i], t);
          b.run(TensorTensor{d, a, bb, op});
          CHECK(count_mismatches(b, op, d, want) == 0);
        }
  }
}

TEST_CASE("fast paths: tensor_scalar and scalar_tensor_tensor give the per-element reference",
          "[semantics]") {
  // Scalars include -0 (a broadcast must keep its sign), a NaN with a payload and a
  // subnormal.
  const float kScalars[] = {1.5f, -0.0f, dtype_bits::bits_float(0x7fc01234u),
                            dtype_bits::bits_float(0x00000003u), -3.25e30f};
  unsigned seed = 100;
  // The ALU loops (semantics/alu.cpp) have a copy per vector width, as the fused rows do.
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    const WidthLimit width(isa);
    if (width.in_effect != isa) continue;  // the host has no such instruction set
    for (DType t : {DType::fp32, DType::bf16, DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2}) {
      Bench b;  // one memory for every case of this dtype
      const AccessPattern src = b.tile(b.alloc(MemSpace::sbuf, t, 2, 37), 2, 37);
      const AccessPattern other = b.tile(b.alloc(MemSpace::sbuf, t, 2, 37, 0, 1024), 2, 37);
      const AccessPattern d = b.tile(b.alloc(MemSpace::sbuf, t, 2, 37, 0, 2048), 2, 37);
      for (AluOp op : fp32_ops())
        for (float s : kScalars)
          for (bool reverse : {false, true}) {
            CAPTURE(isa_name(isa), dtype_name(t), alu_op_name(op), s, reverse);
            std::mt19937 rng(seed++);
            fill_bits(b, src, rng);
            fill_bits(b, other, rng);
            // Ties and signed zeros against the scalar, which random bits rarely give.
            const float kEdges[] = {0.0f, -0.0f,    s,
                                    -s,   INFINITY, dtype_bits::bits_float(0xffc00007u)};
            for (std::uint32_t p = 0; p < 2; ++p)
              for (std::size_t f = 0; f < std::size(kEdges); ++f)
                b.set(src, p, f + 3 * p, kEdges[f]);
            const auto vs = snapshot(b, src), vo = snapshot(b, other);

            // tensor_scalar: (src op s) then (t max s) as op1, or the reverse forms.
            TensorScalar ts;
            ts.dst = d;
            ts.src = src;
            ts.op0 = op;
            ts.reverse0 = reverse;
            ts.arg0 = s;
            ts.op1 = AluOp::subtract;
            ts.reverse1 = !reverse;
            ts.arg1 = s;
            std::vector<std::uint32_t> want(vs.size());
            for (std::size_t i = 0; i < vs.size(); ++i) {
              const float x = load_fp32(t, &vs[i]);
              float r = reverse ? alu_f32(op, s, x) : alu_f32(op, x, s);
              r = !reverse ? alu_f32(AluOp::subtract, s, r) : alu_f32(AluOp::subtract, r, s);
              std::uint32_t out = 0;
              store_fp32(t, r, &out);
              want[i] = out;
            }
            b.run(ts);
            // The second op (subtract) may meet two NaNs too.
            CHECK(count_mismatches(b, payload_free(op) ? op : AluOp::subtract, d, want) == 0);

            // scalar_tensor_tensor: (a op s) op b; then (a add s) op b.
            ScalarTensorTensor st;
            st.dst = d;
            st.a = src;
            st.b = other;
            st.scalar = s;
            st.op0 = reverse ? AluOp::add : op;
            st.op1 = reverse ? op : AluOp::multiply;
            for (std::size_t i = 0; i < vs.size(); ++i) {
              const float x = load_fp32(t, &vs[i]), y = load_fp32(t, &vo[i]);
              std::uint32_t out = 0;
              store_fp32(t, alu_f32(st.op1, alu_f32(st.op0, x, s), y), &out);
              want[i] = out;
            }
            b.run(st);
            CHECK(count_mismatches(b, AluOp::add, d, want) == 0);
          }
    }
  }
}

TEST_CASE("fast paths: lane-wise bf16 rounding gives the scalar bits for every upper half",
          "[semantics]") {
  // Every upper 16 bits (all signs, exponents, NaN payloads) with the lower halves that
  // decide rounding: zero, just below/at/above the half-way point, all ones, and random.
  std::mt19937 rng(3);
  std::size_t mismatches = 0;
  for (std::uint32_t high = 0; high < 0x10000u; ++high) {
    const std::uint32_t lows[] = {0u,
                                  1u,
                                  0x7fffu,
                                  0x8000u,
                                  0x8001u,
                                  0xffffu,
                                  static_cast<std::uint32_t>(rng() & 0xffffu),
                                  static_cast<std::uint32_t>(rng() & 0xffffu)};
    static_assert(std::size(lows) % kLanes == 0, "whole vectors");
    for (std::size_t i = 0; i < std::size(lows); i += kLanes) {
      U32Lanes u;
      for (std::size_t l = 0; l < kLanes; ++l)
        u[l] = (high << 16) | lows[i + l];
      const U32Lanes got = dtype_bits::round_fp32_mantissa_lanes<16>(u);
      for (std::size_t l = 0; l < kLanes; ++l)
        mismatches += got[l] != dtype_bits::round_fp32_mantissa<16>(u[l]);
    }
  }
  CHECK(mismatches == 0);
}

namespace {

// Lane-wise fp16/fp8 conversions against the scalar ones: every pattern widened; narrowed
// from every upper 16 bits of an fp32 with the lower halves that decide rounding (each
// k * 2^12 and its neighbours: the half-way points of fp16's normals, kDrop = 13, and of the
// subnormals' larger shifts; fp8 drops 20 or 21 bits, so the upper half holds its half-way
// points) and random ones. (All 2^32 fp32 patterns were checked once at 16 lanes, ~5 s per
// format: too slow for the suite; see docs/numerics.md "Performance".)
template <class Format>
std::size_t narrow_format_mismatches() {
  std::size_t bad = 0;
  for (std::uint32_t b = 0; b < (1u << Format::kWidth); b += kLanes) {
    U32Lanes in;
    for (std::size_t l = 0; l < kLanes; ++l)
      in[l] = b + static_cast<std::uint32_t>(l);
    const U32Lanes got = Format::to_fp32_bits_lanes(in);
    for (std::size_t l = 0; l < kLanes; ++l)
      bad += got[l] != Format::to_fp32_bits(in[l]);
  }
  std::vector<std::uint32_t> lows;
  for (std::uint32_t k = 0; k < 16; ++k)
    for (std::uint32_t d : {0u, 1u, 0xffffu})
      lows.push_back(((k << 12) + d) & 0xffffu);
  std::mt19937 rng(5);
  while (lows.size() % kLanes != 0 || lows.size() < 64)
    lows.push_back(rng() & 0xffffu);
  for (std::uint32_t high = 0; high < 0x10000u; ++high)
    for (std::size_t i = 0; i < lows.size(); i += kLanes) {
      U32Lanes u;
      for (std::size_t l = 0; l < kLanes; ++l)
        u[l] = (high << 16) | lows[i + l];
      const U32Lanes got = Format::from_fp32_lanes(u);
      for (std::size_t l = 0; l < kLanes; ++l)
        bad += got[l] != Format::from_fp32(dtype_bits::bits_float(u[l]));
    }
  return bad;
}

}  // namespace

TEST_CASE("fast paths: lane-wise fp16 and fp8 conversions give the scalar bits", "[semantics]") {
  CHECK(narrow_format_mismatches<dtype_bits::Fp16Format>() == 0);
  CHECK(narrow_format_mismatches<dtype_bits::Fp8E4M3Format>() == 0);
  CHECK(narrow_format_mismatches<dtype_bits::Fp8E5M2Format>() == 0);
}

TEST_CASE("fast paths: same-dtype tensor_copy of whole rows keeps every byte, overlap included",
          "[semantics]") {
  for (DType t : {DType::fp32, DType::bf16, DType::fp8_e4m3, DType::int32})
    for (std::int64_t shift : {0, 3, -3, 100}) {
      CAPTURE(dtype_name(t), shift);
      Bench b;
      const std::uint32_t es = static_cast<std::uint32_t>(dtype_size(t));
      const std::uint32_t buf = b.alloc(MemSpace::sbuf, t, 3, 256);
      const AccessPattern src = b.pattern(MemSpace::sbuf, buf, t, 3, {{1, 50}}, 0, 8 * es);
      const AccessPattern dst = b.pattern(MemSpace::sbuf, buf, t, 3, {{1, 50}}, 0,
                                          static_cast<std::uint64_t>((8 + shift) * es));
      std::mt19937 rng(5);
      fill_bits(b, src, rng);
      const auto want = snapshot(b, src);
      b.run(TensorCopy{dst, src});
      CHECK(snapshot(b, dst) == want);
    }
}

TEST_CASE("fast paths: activation's scale and bias give the per-element reference's bits",
          "[semantics]") {
  // dst = src * scale (+ bias): two roundings, no bias = no add (so -0 * 1 stays -0).
  const float kScales[] = {1.0f, -0.0f, 3.0e-39f, dtype_bits::bits_float(0x7fc00042u), 1.0e30f};
  unsigned seed = 40;
  for (DType t : {DType::fp32, DType::bf16})
    for (float scale : kScales)
      for (bool with_bias : {false, true}) {
        CAPTURE(dtype_name(t), scale, with_bias);
        Bench b;
        const AccessPattern src = b.tile(b.alloc(MemSpace::sbuf, t, 3, 45), 3, 45);
        const AccessPattern d = b.tile(b.alloc(MemSpace::sbuf, t, 3, 45, 0, 1024), 3, 45);
        const AccessPattern bias =
            b.tile(b.alloc(MemSpace::sbuf, DType::fp32, 3, 1, 0, 2048), 3, 1);
        std::mt19937 rng(seed++);
        fill_bits(b, src, rng);
        fill_bits(b, bias, rng);
        const auto vs = snapshot(b, src);
        std::vector<std::uint32_t> want(vs.size());
        for (std::size_t i = 0; i < vs.size(); ++i) {
          float x = load_fp32(t, &vs[i]) * scale;
          if (with_bias) x = x + b.get(bias, static_cast<std::uint32_t>(i / 45), 0);
          std::uint32_t out = 0;
          store_fp32(t, x, &out);
          want[i] = out;
        }
        Activation act;
        act.dst = d;
        act.src = src;
        act.func = ActFunc::copy;
        act.scale = scale;
        if (with_bias) act.bias = bias;
        b.run(act);
        CHECK(count_mismatches(b, AluOp::add, d, want) == 0);
      }
}

TEST_CASE("fast paths: fp8 tensor_tensor into the same fp8 gives the reference for every pair",
          "[semantics]") {
  // The fused fp8 path: all 256 x 256 input pairs at once, a [128, 512] tile, for every
  // fp32 op at every width; and 509 columns (a tail at every width) on the same pairs.
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    const WidthLimit width(isa);
    if (width.in_effect != isa) continue;
    for (DType t : {DType::fp8_e4m3, DType::fp8_e5m2})
      for (std::uint32_t cols : {512u, 509u}) {
        Bench b;
        const AccessPattern a = b.tile(b.alloc(MemSpace::sbuf, t, 128, cols), 128, cols);
        const AccessPattern bb = b.tile(b.alloc(MemSpace::sbuf, t, 128, cols, 0, 1024), 128, cols);
        const AccessPattern d = b.tile(b.alloc(MemSpace::sbuf, t, 128, cols, 0, 2048), 128, cols);
        for (std::uint32_t p = 0; p < 128; ++p)
          for (std::uint32_t f = 0; f < cols; ++f) {
            const std::uint32_t i = p * cols + f;
            b.set_bits(a, p, f, (i >> 8) & 0xffu);
            b.set_bits(bb, p, f, i & 0xffu);
          }
        const auto va = snapshot(b, a), vb = snapshot(b, bb);
        for (AluOp op : fp32_ops()) {
          CAPTURE(isa_name(isa), alu_op_name(op), dtype_name(t), cols);
          std::vector<std::uint32_t> want(va.size());
          for (std::size_t i = 0; i < va.size(); ++i)
            want[i] = reference_element(op, t, va[i], t, vb[i], t);
          b.run(TensorTensor{d, a, bb, op});
          CHECK(count_mismatches(b, op, d, want) == 0);
        }
      }
  }
}
