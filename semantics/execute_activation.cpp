// Scalar engine activation: dst = func(src * scale + bias), with an optional add-reduction
// of the results along the free axis (reference section 3).
#include <optional>

#include "base/lanes.hpp"
#include "semantics/activation.hpp"
#include "semantics/ops.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa::sem {

namespace {

// out[r] = ((0 + x[r][0]) + x[r][1]) + ... for each of `rows` rows of f elements, several
// rows side by side (each sum in its order: the same bits, without one add's latency per
// element).
void row_sums(const float* x, std::uint32_t rows, std::size_t f, float* out) {
  constexpr std::uint32_t kChains = 8;
  std::uint32_t r = 0;
  for (; r + kChains <= rows; r += kChains) {
    float acc[kChains] = {};
    const float* base = x + r * f;
    for (std::size_t j = 0; j < f; ++j)
      for (std::uint32_t c = 0; c < kChains; ++c)
        acc[c] += base[c * f + j];
    for (std::uint32_t c = 0; c < kChains; ++c)
      out[r + c] = acc[c];
  }
  for (; r < rows; ++r) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < f; ++j)
      sum += x[r * f + j];
    out[r] = sum;
  }
}

}  // namespace

void run(const Site& s, const Activation& act) {
  const Operand dst(s, act.dst, "dst"), src(s, act.src, "src");
  require_same_shape(s, dst, src);
  const std::uint32_t parts = dst.partitions();
  const std::size_t f = dst.free();
  const auto scale = scalar_column(s, act.scale, parts, "scale");
  std::optional<std::vector<float>> bias;
  if (act.bias) bias = scalar_column(s, *act.bias, parts, "bias");
  std::optional<Operand> reduce_dst;
  if (act.reduce_dst) {
    reduce_dst.emplace(s, *act.reduce_dst, "reduce_dst");
    require_column(s, *reduce_dst, parts);
  }

  const bool whole = dst.may_clobber_later_rows(src);
  std::vector<float> v, sums(parts);
  for_partition_batches(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, v);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t p = p0 + i;
      float* x = v.data() + i * f;
      // Two fp32 roundings (multiply, then add), no fused multiply-add. Without a bias
      // nothing is added, so -0 * scale stays -0.
      const float sc = scale[p];
      // Whole blocks as vectors (the same IEEE operations per lane), then the tail.
      const F32Lanes sc_lanes = splat_lanes<F32Lanes>(sc);
      if (bias) {
        const float bi = (*bias)[p];
        const F32Lanes bi_lanes = splat_lanes<F32Lanes>(bi);
        for_each_block(
            f,
            [&](std::size_t j) {
              const F32Lanes scaled = load_lanes<F32Lanes>(x + j) * sc_lanes;
              store_lanes(x + j, scaled + bi_lanes);
            },
            [&](std::size_t j) {
              const float scaled = x[j] * sc;
              x[j] = scaled + bi;
            });
      } else {
        for_each_block(
            f, [&](std::size_t j) { store_lanes(x + j, load_lanes<F32Lanes>(x + j) * sc_lanes); },
            [&](std::size_t j) { x[j] *= sc; });
      }
      activate_array(act.func, x, x, f);
    }
    // The accumulator sums the fp32 results before the output cast: it sits in the
    // engine's fp32 pipeline, so a bf16 dst does not coarsen the sum.
    if (reduce_dst) row_sums(v.data(), n, f, sums.data() + p0);
    store_rows(dst, p0, n, v);
  });
  // Written after dst, so a reduce_dst that overlaps dst holds the sums.
  if (reduce_dst)
    for (std::uint32_t p = 0; p < parts; ++p)
      reduce_dst->store(p, &sums[p]);
}

}  // namespace neuronsim::isa::sem
