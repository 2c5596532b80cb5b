// Tensor engine: matmul and transpose (reference section 3). Both mix partitions, so both
// read every input into a temporary before writing: dst may alias an input.
#include <string>

#include "isa/semantics_loop.hpp"
#include "isa/semantics_ops.hpp"

namespace neuronsim::isa::sem {

namespace {

// out[n] = w * in[n] (first) or out[n] += w * in[n]: the product rounds to fp32, then the
// sum does (no fused multiply-add).
void accumulate_row(float* __restrict out, const float* __restrict in, float w, std::size_t n,
                    bool first) {
  if (first) {
    for_each_index(n, [&](std::size_t i) { out[i] = w * in[i]; });
    return;
  }
  for_each_index(n, [&](std::size_t i) {
    const float product = w * in[i];
    out[i] += product;
  });
}

std::string shape(std::uint64_t p, std::uint64_t f) {
  return "[" + std::to_string(p) + ", " + std::to_string(f) + "]";
}

}  // namespace

void run(const Site& s, const Matmul& mm) {
  const Operand dst(s, mm.dst, "dst"), st(s, mm.stationary, "stationary"),
      mv(s, mm.moving, "moving");
  const std::uint32_t k_rows = st.partitions();
  const std::size_t m_cols = st.free(), n_cols = mv.free();
  if (mv.partitions() != k_rows)
    s.fail("moving", "has " + std::to_string(mv.partitions()) +
                         " partitions (K) but stationary has " + std::to_string(k_rows));
  if (dst.partitions() != m_cols || dst.free() != n_cols)
    s.fail("dst", "is " + shape(dst.partitions(), dst.free()) + " but stationary^T @ moving is " +
                      shape(m_cols, n_cols));

  std::vector<float> stationary, moving;
  load_rows(st, 0, k_rows, stationary);
  load_rows(mv, 0, k_rows, moving);

  // sum[m][n] = sum_k stationary[k][m] * moving[k][n]: each product rounded to fp32, then
  // added in k order (no fused multiply-add), as the array's fp32 accumulation chain. The
  // k = 0 product is assigned, not added to 0, so that -0 survives.
  std::vector<float> sum(m_cols * n_cols);
  for (std::uint32_t k = 0; k < k_rows; ++k) {
    const float* moving_row = moving.data() + k * n_cols;
    for (std::size_t m = 0; m < m_cols; ++m)
      accumulate_row(sum.data() + m * n_cols, moving_row, stationary[k * m_cols + m], n_cols,
                     k == 0);
  }

  // PSUM (reference section 2): first/single overwrite; middle/last read-add-write in fp32.
  const bool accumulate = mm.acc == AccumulateFlag::middle || mm.acc == AccumulateFlag::last;
  if (accumulate) {
    std::vector<float> old(n_cols);
    for (std::size_t m = 0; m < m_cols; ++m) {
      float* out = sum.data() + m * n_cols;
      dst.load(static_cast<std::uint32_t>(m), old.data());
      for (std::size_t n = 0; n < n_cols; ++n)
        out[n] = old[n] + out[n];
    }
  }
  store_rows(dst, 0, static_cast<std::uint32_t>(m_cols), sum);
}

void run(const Site& s, const Transpose& tr) {
  const Operand dst(s, tr.dst, "dst"), src(s, tr.src, "src");
  const std::uint32_t rows = src.partitions();
  const std::size_t cols = src.free();
  if (dst.partitions() != cols || dst.free() != rows)
    s.fail("dst", "is " + shape(dst.partitions(), dst.free()) + " but the transpose of src is " +
                      shape(cols, rows));
  // An exact copy of values: raw bits for the same dtype, exact int->int, else via fp32.
  with_move_form(move_form(dst.dtype(), {src.dtype()}), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> in, out(cols * rows);
    load_rows(src, 0, rows, in);
    for (std::uint32_t p = 0; p < rows; ++p)
      for (std::size_t f = 0; f < cols; ++f)
        out[f * rows + p] = in[p * cols + f];
    store_rows(dst, 0, static_cast<std::uint32_t>(cols), out);
  });
}

}  // namespace neuronsim::isa::sem
