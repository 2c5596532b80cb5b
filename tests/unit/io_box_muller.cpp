// The normal generator's lane-wise transform (io/box_muller.hpp) against its one-pair-at-a-
// time definition with libm, bit for bit, at every vector width: random uniforms as the
// generator draws them (53-bit multiples), the ends of their ranges, and the quadrant limits
// of theta, for means and deviations that round in different binades (cancellation at
// mean 1, a tiny deviation at mean -3). The hidden "[.dense]" case runs 2^26 pairs per case.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "base/host_simd.hpp"
#include "io/box_muller.hpp"

using neuronsim::limit_vector_isa;
using neuronsim::VectorIsa;

namespace {

struct WidthLimit {
  explicit WidthLimit(VectorIsa isa) { limit_vector_isa(isa); }
  ~WidthLimit() { limit_vector_isa(VectorIsa::avx512); }
};

std::size_t mismatches(std::size_t pairs, std::uint64_t seed) {
  std::vector<double> u1(pairs), u2(pairs);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < pairs; ++i) {
    u1[i] = 1.0 - static_cast<double>(rng() >> 11) * 0x1.0p-53;  // (0, 1]
    u2[i] = static_cast<double>(rng() >> 11) * 0x1.0p-53;        // [0, 1)
  }
  const double ends[][2] = {
      {1.0, 0.0}, {0x1p-53, 0.25}, {0.5, 0.5}, {1.0, 0.75}, {0x1p-30, 0x1.fffffffffffffp-1}};
  for (std::size_t i = 0; i < std::size(ends) && i < pairs; ++i) {
    u1[i] = ends[i][0];
    u2[i] = ends[i][1];
  }
  std::size_t bad = 0;
  const double params[][2] = {{0.0, 0.02}, {0.0, 1.0}, {1.0, 0.02}, {-3.0, 1e-3}, {0.5, 3.0}};
  for (VectorIsa isa : {VectorIsa::baseline, VectorIsa::avx2, VectorIsa::avx512}) {
    WidthLimit limit(isa);
    for (const auto& mean_std : params) {
      std::vector<float> got(2 * pairs), want(2 * pairs);
      neuronsim::io::box_muller(u1.data(), u2.data(), pairs, mean_std[0], mean_std[1], got.data());
      neuronsim::io::box_muller_scalar(u1.data(), u2.data(), pairs, mean_std[0], mean_std[1],
                                       want.data());
      for (std::size_t i = 0; i < 2 * pairs; ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ == 0)
          UNSCOPED_INFO("isa " << static_cast<int>(isa) << " mean " << mean_std[0] << " std "
                               << mean_std[1] << " pair " << i / 2 << ": u1 " << u1[i / 2] << " u2 "
                               << u2[i / 2] << ": " << got[i] << " vs " << want[i]);
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("box muller: the lane-wise transform gives the scalar floats at every width", "[io]") {
  CHECK(mismatches((1u << 18) + 3, 1) == 0);  // + 3: a tail at every width
}

TEST_CASE("box muller: 2^26 pairs per case give the scalar floats", "[.dense]") {
  CHECK(mismatches(std::size_t{1} << 26, 2) == 0);
}
