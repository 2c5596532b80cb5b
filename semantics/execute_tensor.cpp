// Tensor engine: matmul and transpose (reference section 3). Both mix partitions, so both
// read every input into a temporary before writing: dst may alias an input.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "base/lanes.hpp"
#include "base/parallel.hpp"
#include "semantics/ops.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa::sem {

namespace {

// The accumulation order is part of the semantics (docs/numerics.md): for every output
// element, sum = product(k = 0), then sum = sum + product(k) for k = 1, 2, ... in order;
// each product is rounded to fp32 before it is added (no fused multiply-add). The k = 0
// product is assigned, not added to 0, so that -0 survives. Any evaluation order that
// keeps this per-element chain gives the same bits, so the loops below are free to block.
//
// Register blocking: a kRows x kCols tile of sums stays in registers for the whole K loop
// (one pass over each moving row segment per tile, instead of streaming the [M, N] sums
// through the cache for every k). Tiles at the right and bottom edges take the generic
// path, with the same per-element order. Inlined into each instruction-set variant below
// (always_inline), so each is compiled for that variant's vector width.

// GCC vector extensions: V holds kLanes floats; element-wise * and + are the IEEE fp32
// operations, the same as scalar code, whatever the instruction set (a width the target
// lacks is split into narrower registers).
template <std::size_t kLanes>
using FloatVec [[gnu::vector_size(kLanes * sizeof(float))]] = float;

// v unchanged, but opaque to the optimiser: an add of the result cannot be fused with the
// multiply that produced it. GCC contracts a * b + c into a fused multiply-add (one rounding
// instead of two) wherever the target has FMA, which the AVX-512 variant's has; the
// semantics need the product rounded first.
// Clang contracts only within one expression by default (-ffp-contract=on), and the
// product is its own statement here; the pragmas in the loops below rule it out anyway.
template <class T>
[[gnu::always_inline]] inline T rounded_product(T v) {
#if !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
  asm("" : "+v"(v));
#endif
  return v;
}

// out[r * ld + c] for r < kRows, c < kVecs * lanes, over all k: st is [K, M] (row stride
// m_cols), mv is [K, N] (row stride n_cols), both as fp32. The moving row times the
// stationary scalar (x * w) is the same IEEE product as w * x.
template <std::size_t kRows, std::size_t kVecs, class V>
[[gnu::always_inline]] inline void matmul_tile(float* __restrict out, std::size_t ld,
                                               const float* __restrict st, std::size_t m_cols,
                                               const float* __restrict mv, std::size_t n_cols,
                                               std::uint32_t k_rows) {
#ifdef __clang__
#pragma clang fp contract(off)
#endif
  constexpr std::size_t kLanes = sizeof(V) / sizeof(float);
  // The loops over r and c are unrolled completely (GCC does not at -O2 by itself), so that
  // acc lives in registers instead of being stored and reloaded for every k.
  V acc[kRows][kVecs], x[kVecs];
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kVecs; ++c)
    std::memcpy(&x[c], mv + c * kLanes, sizeof(V));
#pragma GCC unroll 16
  for (std::size_t r = 0; r < kRows; ++r)
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kVecs; ++c)
      acc[r][c] = rounded_product(x[c] * st[r]);
  for (std::uint32_t k = 1; k < k_rows; ++k) {
    const float* w = st + k * m_cols;
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kVecs; ++c)
      std::memcpy(&x[c], mv + k * n_cols + c * kLanes, sizeof(V));
#pragma GCC unroll 16
    for (std::size_t r = 0; r < kRows; ++r) {
      const float wr = w[r];
#pragma GCC unroll 16
      for (std::size_t c = 0; c < kVecs; ++c) {
        const V product = rounded_product(x[c] * wr);
        acc[r][c] += product;
      }
    }
  }
#pragma GCC unroll 16
  for (std::size_t r = 0; r < kRows; ++r)
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kVecs; ++c)
      std::memcpy(out + r * ld + c * kLanes, &acc[r][c], sizeof(V));
}

// The same sums for any rows x cols block (the edges), one element chain at a time.
void matmul_edge(float* out, std::size_t ld, const float* st, std::size_t m_cols, const float* mv,
                 std::size_t n_cols, std::uint32_t k_rows, std::size_t rows, std::size_t cols) {
#ifdef __clang__
#pragma clang fp contract(off)
#endif
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      float sum = st[r] * mv[c];
      for (std::uint32_t k = 1; k < k_rows; ++k) {
        const float product = rounded_product(st[k * m_cols + r] * mv[k * n_cols + c]);
        sum += product;
      }
      out[r * ld + c] = sum;
    }
}

// sum[m][n] = sum_k st[k][m] * mv[k][n], in the order above, for the `width` columns of
// sum and mv from their starts (`ld`: the row stride of both, the full N).
template <std::size_t kRows, std::size_t kVecs, class V>
[[gnu::always_inline]] inline void matmul_blocked(float* sum, const float* st, const float* mv,
                                                  std::uint32_t k_rows, std::size_t m_cols,
                                                  std::size_t width, std::size_t ld) {
  constexpr std::size_t kCols = kVecs * sizeof(V) / sizeof(float);
  const std::size_t m_full = m_cols / kRows * kRows, n_full = width / kCols * kCols;
  for (std::size_t m = 0; m < m_full; m += kRows) {
    for (std::size_t n = 0; n < n_full; n += kCols)
      matmul_tile<kRows, kVecs, V>(sum + m * ld + n, ld, st + m, m_cols, mv + n, ld, k_rows);
    if (n_full < width)
      matmul_edge(sum + m * ld + n_full, ld, st + m, m_cols, mv + n_full, ld, k_rows, kRows,
                  width - n_full);
  }
  if (m_full < m_cols)
    matmul_edge(sum + m_full * ld, ld, st + m_full, m_cols, mv, ld, k_rows, m_cols - m_full, width);
}

// The baseline x86-64 build (SSE2: 4 floats a register): 4 x 8 sums in 8 registers.
void matmul_fp32_baseline(float* sum, const float* st, const float* mv, std::uint32_t k_rows,
                          std::size_t m_cols, std::size_t width, std::size_t ld) {
  matmul_blocked<4, 2, FloatVec<4>>(sum, st, mv, k_rows, m_cols, width, ld);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_MATMUL_AVX2 1
// AVX2 (8 floats a register), chosen at run time: 4 x 16 sums in 8 registers. Not FMA:
// the product must round before the add. Same IEEE operations per element, same bits.
[[gnu::target("avx2")]] void matmul_fp32_avx2(float* sum, const float* st, const float* mv,
                                              std::uint32_t k_rows, std::size_t m_cols,
                                              std::size_t width, std::size_t ld) {
  matmul_blocked<4, 2, FloatVec<8>>(sum, st, mv, k_rows, m_cols, width, ld);
}
// AVX-512 (16 floats a register, 32 registers), chosen at run time: 8 x 32 sums in 16
// registers. The target has FMA: rounded_product keeps the two roundings.
[[gnu::target("avx512f")]] void matmul_fp32_avx512(float* sum, const float* st, const float* mv,
                                                   std::uint32_t k_rows, std::size_t m_cols,
                                                   std::size_t width, std::size_t ld) {
  matmul_blocked<8, 2, FloatVec<16>>(sum, st, mv, k_rows, m_cols, width, ld);
}
#endif

void matmul_columns(float* sum, const float* st, const float* mv, std::uint32_t k_rows,
                    std::size_t m_cols, std::size_t width, std::size_t ld) {
#ifdef NEURONSIM_MATMUL_AVX2
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return matmul_fp32_avx512(sum, st, mv, k_rows, m_cols, width, ld);
    case VectorIsa::avx2:
      return matmul_fp32_avx2(sum, st, mv, k_rows, m_cols, width, ld);
    case VectorIsa::baseline:
      break;
  }
#endif
  matmul_fp32_baseline(sum, st, mv, k_rows, m_cols, width, ld);
}

// Below this many multiply-adds a matmul runs on the calling thread alone: handing parts to
// the workers costs microseconds (a [128, 128] x [128, 512] matmul has 8 M).
constexpr std::uint64_t kParallelMacs = 1u << 20;

// Every output element is computed whole by one part, in the order above, so the bits do
// not depend on how the columns are split (base/parallel.hpp).
void matmul_fp32(float* sum, const float* st, const float* mv, std::uint32_t k_rows,
                 std::size_t m_cols, std::size_t n_cols) {
  const std::uint64_t macs = std::uint64_t{k_rows} * m_cols * n_cols;
  constexpr std::size_t kColumnGrain = 64;  // whole register tiles per part
  const std::size_t threads = macs < kParallelMacs ? 1 : numerics_threads();
  const std::size_t tiles = (n_cols + kColumnGrain - 1) / kColumnGrain;
  const std::size_t parts = std::min(threads, tiles);
  if (parts <= 1) return matmul_columns(sum, st, mv, k_rows, m_cols, n_cols, n_cols);
  const std::size_t per_part = (tiles + parts - 1) / parts * kColumnGrain;
  parallel_for(parts, [&](std::size_t p) {
    const std::size_t first = p * per_part;
    if (first >= n_cols) return;
    const std::size_t width = std::min(per_part, n_cols - first);
    matmul_columns(sum + first, st, mv + first, k_rows, m_cols, width, n_cols);
  });
}

// out[n] = row[n] + out[n], row holding fp32 bits at any alignment.
void psum_add_row(const std::uint8_t* row, float* out, std::size_t n) {
  using V = FloatVec<kLanes>;
  constexpr std::size_t kWidth = kLanes;
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    V old, v;
    std::memcpy(&old, row + i * sizeof(float), sizeof old);
    std::memcpy(&v, out + i, sizeof v);
    v = old + v;
    std::memcpy(out + i, &v, sizeof v);
  }
  for (; i < n; ++i) {
    float old;
    std::memcpy(&old, row + i * sizeof(float), sizeof old);
    out[i] = old + out[i];
  }
}

std::string shape(std::uint64_t p, std::uint64_t f) {
  return "[" + std::to_string(p) + ", " + std::to_string(f) + "]";
}

}  // namespace

void run(const Site& s, const Matmul& mm) {
  const Operand dst(s, mm.dst, "dst"), st(s, mm.stationary, "stationary"),
      mv(s, mm.moving, "moving");
  const std::uint32_t partitions = st.partitions();
  // double_row (NKI Trainium2 architecture guide, "Double FP8 Matmul Performance"): each
  // partition holds two contraction rows, its free elements [2, F/2] (the most major free
  // dimension of size two), so the contraction is 2K.
  const std::uint32_t rows = Matmul::rows_per_partition(mm.perf_mode);
  if (st.free() % rows != 0 || mv.free() % rows != 0)
    s.fail(st.free() % rows != 0 ? "stationary" : "moving",
           "has an odd free size; perf_mode=double_row reads it as [2, F/2]");
  const std::size_t m_cols = st.free() / rows, n_cols = mv.free() / rows;
  if (mv.partitions() != partitions)
    s.fail("moving", "has " + std::to_string(mv.partitions()) +
                         " partitions (K) but stationary has " + std::to_string(partitions));
  if (dst.partitions() != m_cols || dst.free() != n_cols)
    s.fail("dst", "is " + shape(dst.partitions(), dst.free()) + " but stationary^T @ moving is " +
                      shape(m_cols, n_cols));

  // Scratch kept per thread, so a matmul allocates nothing once the largest has run.
  thread_local std::vector<float> stationary, moving, sum, old;
  load_rows(st, 0, partitions, stationary);
  load_rows(mv, 0, partitions, moving);

  // sum[m][n] = sum_k stationary[k][m] * moving[k][n], as the array's fp32 accumulation
  // chain (the order: matmul_fp32 above). Partition p's free elements are rows
  // p*rows .. p*rows + rows-1 of the contraction (row-major), so the loaded data is already
  // [K * rows, M] and [K * rows, N].
  const std::uint32_t k_rows = partitions * rows;
  sum.resize(m_cols * n_cols);
  if (k_rows == 0)
    std::fill(sum.begin(), sum.end(), 0.0f);  // an empty sum
  else
    matmul_fp32(sum.data(), stationary.data(), moving.data(), k_rows, m_cols, n_cols);

  // PSUM (reference section 2): first/single overwrite; middle/last read-add-write in fp32.
  const bool accumulate = mm.acc == AccumulateFlag::middle || mm.acc == AccumulateFlag::last;
  if (dst.dtype() == DType::fp32 && dst.rows_contiguous()) {
    // fp32 rows in place (loads and stores of fp32 are bit copies): old + sum per element,
    // the same adds as below, without the two row copies.
    for (std::size_t m = 0; m < m_cols; ++m) {
      float* out = sum.data() + m * n_cols;
      std::uint8_t* row = dst.row_data(static_cast<std::uint32_t>(m));
      if (accumulate) psum_add_row(row, out, n_cols);
      std::memcpy(row, out, n_cols * sizeof(float));
    }
    return;
  }
  if (accumulate) {
    old.resize(n_cols);
    for (std::size_t m = 0; m < m_cols; ++m) {
      float* out = sum.data() + m * n_cols;
      dst.load(static_cast<std::uint32_t>(m), old.data());
      for (std::size_t n = 0; n < n_cols; ++n)
        out[n] = old[n] + out[n];
    }
  }
  store_rows(dst, 0, static_cast<std::uint32_t>(m_cols), sum);
}

namespace {

// The dequantised contraction rows of an MX operand (NKI/nc_matmul_mx): data [K, F] packed
// x4 with its scale tile, into out [4K, F] fp32, row 4p + i holding lane i of partition p
// times 2^(scale - 127), the scale of p's group (mx_scale_row). The product is an fp32
// multiply: exact unless it leaves fp32's normal range (docs/numerics.md).
void dequantize_mx(const Operand& data, const Operand& scale, std::vector<float>& out) {
  thread_local std::vector<RawBits> packed, codes;
  const std::uint32_t k = data.partitions();
  const std::size_t f = data.free();
  load_rows(data, 0, k, packed);
  // Each lane's fp32 pattern, by lane code: fp8 (256 codes) or fp4 E2M1 (16).
  const bool fp4 = data.dtype() == DType::fp4_e2m1fn_x4;
  const unsigned width = lane_bits(data.dtype());
  const std::uint32_t lane_mask = (1u << width) - 1;
  std::array<std::uint32_t, 256> fp4_lanes{};
  if (fp4)
    for (std::uint32_t c = 0; c < 16; ++c)
      fp4_lanes[c] = dtype_bits::float_bits(fp4e2m1_to_fp32(static_cast<std::uint8_t>(c)));
  const auto& lanes = fp4                                             ? fp4_lanes
                      : lane_dtype(data.dtype()) == DType::fp8_e4m3fn ? dtype_bits::kFp8E4M3FnToFp32
                                                                      : dtype_bits::kFp8E5M2ToFp32;
  out.resize(std::size_t{k} * MatmulMx::kLanes * f);
  std::uint32_t loaded_row = ~0u;
  for (std::uint32_t p = 0; p < k; ++p) {
    const std::uint32_t row = mx_scale_row(p);
    if (row != loaded_row) {
      codes.resize(f);
      scale.load(row, codes.data());
      loaded_row = row;
    }
    for (std::uint32_t i = 0; i < MatmulMx::kLanes; ++i) {
      float* dst = out.data() + (std::size_t{p} * MatmulMx::kLanes + i) * f;
      for (std::size_t m = 0; m < f; ++m) {
        const std::uint32_t lane = (packed[p * f + m].bits >> (width * i)) & lane_mask;
        const float factor = dtype_bits::bits_float(dtype_bits::kE8M0ToFp32[codes[m].bits & 0xffu]);
        dst[m] = dtype_bits::bits_float(lanes[lane]) * factor;
      }
    }
  }
}

}  // namespace

void run(const Site& s, const MatmulMx& mm) {
  const Operand dst(s, mm.dst, "dst"), st(s, mm.stationary, "stationary"),
      mv(s, mm.moving, "moving"), st_scale(s, mm.stationary_scale, "stationary_scale"),
      mv_scale(s, mm.moving_scale, "moving_scale");
  const std::uint32_t partitions = st.partitions();
  const std::size_t m_cols = st.free(), n_cols = mv.free();
  if (mv.partitions() != partitions)
    s.fail("moving", "has " + std::to_string(mv.partitions()) + " partitions but stationary has " +
                         std::to_string(partitions));
  if (partitions % kMxQuadrantPartitions != 0)
    s.fail("stationary", "is not whole quadrants of 32 partitions");
  for (const Operand* sc : {&st_scale, &mv_scale}) {
    const std::size_t want = sc == &st_scale ? m_cols : n_cols;
    const bool rows_ok = sc->partitions() == partitions ||
                         (partitions == kMxQuadrantPartitions &&
                          sc->partitions() == kMxQuadrantPartitions / kMxGroupPartitions);
    if (!rows_ok || sc->free() != want)
      s.fail(sc->field(), "is not the quadrant layout of its data's scales");
  }
  if (dst.partitions() != m_cols || dst.free() != n_cols)
    s.fail("dst", "is " + shape(dst.partitions(), dst.free()) + " but stationary^T @ moving is " +
                      shape(m_cols, n_cols));

  thread_local std::vector<float> stationary, moving, sum, old;
  dequantize_mx(st, st_scale, stationary);
  dequantize_mx(mv, mv_scale, moving);
  // The same fp32 chain as matmul's, over the 4K contraction rows in order.
  const std::uint32_t k_rows = partitions * MatmulMx::kLanes;
  sum.resize(m_cols * n_cols);
  if (k_rows == 0)
    std::fill(sum.begin(), sum.end(), 0.0f);
  else
    matmul_fp32(sum.data(), stationary.data(), moving.data(), k_rows, m_cols, n_cols);
  if (MatmulMx::accumulates(mm)) {
    old.resize(n_cols);
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
