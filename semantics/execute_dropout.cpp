// NKI/dropout: each element is kept or replaced by zero, with the drop probability of its
// partition (an immediate or a [P,1] operand); kept values move exactly as tensor_copy
// moves them (no rescaling: the page's "kept with their original values").
#include <cmath>
#include <string>

#include "semantics/ops.hpp"
#include "semantics/random.hpp"

namespace neuronsim::isa::sem {

void run(const Site& s, const Dropout& d) {
  const Operand dst(s, d.dst, "dst"), src(s, d.src, "src");
  require_same_shape(s, dst, src);
  const std::uint32_t parts = dst.partitions();
  const std::vector<float> prob = scalar_column(s, d.prob, parts, "prob");
  for (std::uint32_t p = 0; p < parts; ++p)
    if (!(prob[p] >= 0.0f && prob[p] <= 1.0f))
      s.fail("prob", "partition " + std::to_string(p) + " has drop probability " +
                         std::to_string(prob[p]) + ", outside [0, 1]");
  const std::size_t f = dst.free();
  const auto seed = static_cast<std::uint32_t>(d.seed);
  const bool whole = dst.may_clobber_later_rows(src);
  with_move_form(move_form(dst.dtype(), {src.dtype()}), [&](auto tag) {
    using T = decltype(tag);
    const T zero = constant_as<T>(dst.dtype(), 0.0f);
    std::vector<T> v;
    for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(src, p0, n, v);
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < f; ++j)
          if (uniform01(seed, p0 + i, j) < prob[p0 + i]) v[i * f + j] = zero;
      store_rows(dst, p0, n, v);
    });
  });
}

}  // namespace neuronsim::isa::sem
