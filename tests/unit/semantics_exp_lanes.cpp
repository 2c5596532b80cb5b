// The lane-wise exponential (semantics/exp_lanes.hpp) against libm's expf, bit for bit:
// activate_array's exp, sigmoid and silu (lane-wise) against activate (one element, std::exp)
// at every vector width, on a dense sweep of all fp32 patterns, every pattern near the
// kernel's range limits, and runs whose length leaves a tail. The hidden "[.exhaustive]"
// case compares all 2^32 patterns (about a minute; run it by hand after changing the kernel:
// build/tests/unit_tests "[.exhaustive]").
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/host_simd.hpp"
#include "semantics/activation.hpp"

using neuronsim::limit_vector_isa;
using neuronsim::VectorIsa;
using neuronsim::isa::ActFunc;
using neuronsim::isa::activate;
using neuronsim::isa::activate_array;

namespace {

struct WidthLimit {
  explicit WidthLimit(VectorIsa isa) { limit_vector_isa(isa); }
  ~WidthLimit() { limit_vector_isa(VectorIsa::avx512); }
};

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Number of elements whose lane-wise result differs from activate's; reports the first.
std::size_t mismatches(ActFunc f, const std::vector<float>& in) {
  std::vector<float> out(in.size());
  activate_array(f, in.data(), out.data(), in.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t want = bits_of(activate(f, in[i])), got = bits_of(out[i]);
    if (want != got && bad++ == 0)
      UNSCOPED_INFO("x bits " << std::hex << bits_of(in[i]) << ": want " << want << ", got "
                              << got);
  }
  return bad;
}

// Every pattern in [bits - radius, bits + radius].
void add_around(std::vector<float>& v, float x, std::uint32_t radius) {
  const std::uint32_t b = bits_of(x);
  for (std::uint32_t d = 0; d <= 2 * radius; ++d)
    v.push_back(from_bits(b - radius + d));
}

}  // namespace

TEST_CASE("exp lanes: exp, sigmoid and silu give expf's bits at every vector width",
          "[semantics]") {
  std::vector<float> in;
  // Every 509th pattern (8.4 M: every exponent and sign, NaN payloads, subnormals).
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 509)
    in.push_back(from_bits(static_cast<std::uint32_t>(b)));
  // Around the limits of the vector range (exp_lanes.hpp) and the float limits of expf,
  // the special values, and a dense stretch of the softmax range [-1, 0].
  for (float x : {-87.0f, 88.5f, -104.0f, 89.0f, -87.33654f, 88.72284f, -103.97208f, 0.0f, -0.0f,
                  1.0f, -1.0f, 0.6931472f})
    add_around(in, x, 4096);
  for (std::uint32_t b = 0xbf800000u; b > 0xbf000000u; b -= 7)
    in.push_back(from_bits(b));
  for (std::uint32_t b : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u})
    in.push_back(from_bits(b));
  in.push_back(1.0f);  // an odd length: a tail at every width
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    WidthLimit limit(isa);
    INFO("vector isa " << static_cast<int>(isa));
    CHECK(mismatches(ActFunc::exp, in) == 0);
    // sigmoid and silu on the dense stretch and the limits only (the same exp_lanes).
    const std::vector<float> part(in.end() - (in.size() / 64), in.end());
    CHECK(mismatches(ActFunc::sigmoid, part) == 0);
    CHECK(mismatches(ActFunc::silu, part) == 0);
  }
}

TEST_CASE("exp lanes: all 2^32 fp32 patterns give expf's bits", "[.exhaustive]") {
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 24;
  std::vector<float> in(kChunk);
  std::size_t bad = 0;
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += kChunk) {
    for (std::uint64_t i = 0; i < kChunk; ++i)
      in[i] = from_bits(static_cast<std::uint32_t>(base + i));
    bad += mismatches(ActFunc::exp, in);
  }
  CHECK(bad == 0);
}
