// Exhaustive and reference checks of the narrow float formats: every bit pattern decodes to
// the value the format defines and converts back to itself; fp32 inputs (a sweep, every
// value, every midpoint and its neighbours) round as an independent reference model says.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "dtype_reference.hpp"
#include "isa/dtype.hpp"

using namespace neuronsim::isa;
using namespace neuronsim::isa::dtype_test;

namespace {

struct FormatUnderTest {
  const char* name;
  int exp_bits;
  int man_bits;
  std::function<float(std::uint32_t)> to_fp32;
  std::function<std::uint32_t(float)> from_fp32;
};

std::vector<FormatUnderTest> formats() {
  return {
      {"bf16", 8, 7, [](std::uint32_t b) { return bf16_to_fp32(static_cast<std::uint16_t>(b)); },
       [](float v) { return std::uint32_t{fp32_to_bf16(v)}; }},
      {"fp16", 5, 10, [](std::uint32_t b) { return fp16_to_fp32(static_cast<std::uint16_t>(b)); },
       [](float v) { return std::uint32_t{fp32_to_fp16(v)}; }},
      {"fp8_e4m3", 4, 3,
       [](std::uint32_t b) { return fp8e4m3_to_fp32(static_cast<std::uint8_t>(b)); },
       [](float v) { return std::uint32_t{fp32_to_fp8e4m3(v)}; }},
      {"fp8_e5m2", 5, 2,
       [](std::uint32_t b) { return fp8e5m2_to_fp32(static_cast<std::uint8_t>(b)); },
       [](float v) { return std::uint32_t{fp32_to_fp8e5m2(v)}; }},
  };
}

// Value identity that also tells +0 from -0.
bool same_value(float a, double b) {
  return static_cast<double>(a) == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

TEST_CASE("dtype: every bf16/fp16/fp8 pattern decodes exactly and round-trips", "[dtype]") {
  for (const FormatUnderTest& f : formats()) {
    const ReferenceFormat ref(f.exp_bits, f.man_bits);
    std::uint32_t wrong_value = 0, wrong_round_trip = 0, nan_lost = 0;
    for (std::uint32_t code = 0; code < ref.code_count(); ++code) {
      const float v = f.to_fp32(code);
      const std::uint32_t back = f.from_fp32(v);
      if (ref.is_nan_code(code)) {
        nan_lost += !std::isnan(v) || !ref.is_nan_code(back);
        wrong_round_trip += back != code;  // the payload is kept, too
      } else {
        wrong_value += !same_value(v, ref.decode(code));
        wrong_round_trip += back != code;
      }
    }
    INFO(f.name);
    CHECK(wrong_value == 0);
    CHECK(wrong_round_trip == 0);
    CHECK(nan_lost == 0);
  }
}

TEST_CASE("dtype: fp32 to bf16/fp16/fp8 rounds like the reference model", "[dtype]") {
  for (const FormatUnderTest& f : formats()) {
    const ReferenceFormat ref(f.exp_bits, f.man_bits);
    std::size_t mismatches = 0, checked = 0;
    float first_bad = 0;
    for (float x : probe_inputs(ref)) {
      const std::uint32_t got = f.from_fp32(x);
      const std::uint32_t want = ref.round(x);
      const bool ok = std::isnan(x) ? ref.is_nan_code(got) : got == want;
      if (!ok && mismatches++ == 0) first_bad = x;
      ++checked;
    }
    INFO(f.name << ": " << checked << " inputs, first mismatch at fp32 0x" << std::hex
                << bits_of(first_bad));
    CHECK(mismatches == 0);
  }
}

TEST_CASE("dtype: NaN keeps its sign through every narrow format", "[dtype]") {
  for (const FormatUnderTest& f : formats()) {
    const ReferenceFormat ref(f.exp_bits, f.man_bits);
    INFO(f.name);
    for (std::uint32_t nan_bits : {0x7fc00000u, 0x7f800001u, 0x7fffffffu, 0x7f802000u}) {
      for (std::uint32_t sign : {0u, 0x80000000u}) {
        const std::uint32_t got = f.from_fp32(float_of(nan_bits | sign));
        CHECK(ref.is_nan_code(got));
        CHECK(((got & ref.sign_bit()) != 0) == (sign != 0));
      }
    }
  }
}
