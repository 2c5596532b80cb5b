// Instructions that move or generate values rather than compute them: tensor_copy,
// memset, iota, select, affine_select and dma_copy. Copies keep values exactly where the
// dtypes allow: same dtype = the same bytes (NaN payloads survive), int -> int exact,
// otherwise through fp32 with the destination's rounding.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "semantics/alu.hpp"
#include "semantics/ops.hpp"

namespace neuronsim::isa::sem {

void run(const Site& s, const TensorCopy& tc) {
  const Operand dst(s, tc.dst, "dst"), src(s, tc.src, "src");
  require_same_shape(s, dst, src);
  const bool whole = dst.may_clobber_later_rows(src);
  const MoveForm form = move_form(dst.dtype(), {src.dtype()});
  if (form == MoveForm::raw && !whole && dst.rows_contiguous() && src.rows_contiguous()) {
    // Same dtype, whole rows contiguous: each row's bytes as they are. memmove reads the
    // row as if into a temporary first, as the general path does, so overlap within a row
    // gives the same result.
    const std::size_t bytes = dst.free() * dtype_size(dst.dtype());
    for (std::uint32_t p = 0; p < dst.partitions(); ++p)
      std::memmove(dst.row_data(p), src.row_data(p), bytes);
    return;
  }
  with_move_form(form, [&](auto tag) {
    std::vector<decltype(tag)> v;
    for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(src, p0, n, v);
      store_rows(dst, p0, n, v);
    });
  });
}

void run(const Site& s, const Memset& ms) {
  const Operand dst(s, ms.dst, "dst");
  RawBits value;
  if (is_integer(dst.dtype())) {
    // The double holds every int32/uint32 exactly: round half to even, saturate, NaN -> 0.
    double r = std::isnan(ms.value) ? 0.0 : std::nearbyint(ms.value);
    r = std::fmax(-9.2e18, std::fmin(9.2e18, r));  // inside int64 before the cast
    store_int(dst.dtype(), static_cast<std::int64_t>(r), &value.bits);
  } else {
    value = encode(dst.dtype(), static_cast<float>(ms.value));
  }
  for (std::uint32_t p = 0; p < dst.partitions(); ++p)
    dst.fill(p, value);
}

void run(const Site& s, const Iota& io) {
  const Operand dst(s, io.dst, "dst");
  const std::vector<std::int64_t> free_part = affine_free_part(dst.pattern(), io.steps);
  std::vector<std::int64_t> v(free_part.size());
  std::vector<float> vf;
  for (std::uint32_t p = 0; p < dst.partitions(); ++p) {
    const std::int64_t row = std::int64_t{io.base} + std::int64_t{p} * io.partition_step;
    for (std::size_t j = 0; j < v.size(); ++j)
      v[j] = row + free_part[j];
    if (is_integer(dst.dtype())) {
      dst.store(p, v.data());  // exact, saturating
    } else {
      vf.assign(v.begin(), v.end());  // int64 -> fp32 rounds to nearest even
      dst.store(p, vf.data());
    }
  }
}

void run(const Site& s, const Select& sel) {
  const Operand dst(s, sel.dst, "dst"), pred(s, sel.predicate, "predicate"),
      on_true(s, sel.on_true, "on_true"), on_false(s, sel.on_false, "on_false");
  for (const Operand* op : {&pred, &on_true, &on_false})
    require_same_shape(s, dst, *op);
  const bool whole = dst.may_clobber_later_rows(pred) || dst.may_clobber_later_rows(on_true) ||
                     dst.may_clobber_later_rows(on_false);
  with_move_form(move_form(dst.dtype(), {on_true.dtype(), on_false.dtype()}), [&](auto tag) {
    std::vector<decltype(tag)> vt, vf;
    std::vector<float> vp;
    for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(pred, p0, n, vp);
      load_rows(on_true, p0, n, vt);
      load_rows(on_false, p0, n, vf);
      // Any non-zero predicate, NaN included, selects on_true.
      for (std::size_t i = 0; i < vt.size(); ++i)
        if (vp[i] == 0.0f) vt[i] = vf[i];
      store_rows(dst, p0, n, vt);
    });
  });
}

void run(const Site& s, const AffineSelect& as) {
  const Operand dst(s, as.dst, "dst"), src(s, as.src, "src");
  require_same_shape(s, dst, src);
  if (!is_comparison_op(as.cmp))
    s.fail("cmp", std::string(alu_op_name(as.cmp)) + " is not a comparison");
  const std::vector<std::int64_t> free_part = affine_free_part(dst.pattern(), as.steps);
  const IntFormat fmt{64, true};
  const bool whole = dst.may_clobber_later_rows(src);
  const std::size_t f = dst.free();
  with_move_form(move_form(dst.dtype(), {src.dtype()}), [&](auto tag) {
    using T = decltype(tag);
    const T fill = constant_as<T>(dst.dtype(), as.fill);
    std::vector<T> v;
    for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(src, p0, n, v);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::int64_t row = std::int64_t{as.offset} + std::int64_t{p0 + i} * as.partition_step;
        for (std::size_t j = 0; j < f; ++j)
          if (alu_i64(as.cmp, row + free_part[j], 0, fmt) == 0) v[i * f + j] = fill;
      }
      store_rows(dst, p0, n, v);
    });
  });
}

namespace {

// The DMA engine's transpose (NKI/dma_transpose): dst[f][p] = src[p][f], bits unchanged
// (one 2-byte dtype on both sides, validation's rule). src is read whole before dst is
// written, so overlapping tiles transpose as if through a buffer.
void dma_transpose(const Site& s, const Operand& dst, const Operand& src) {
  const std::uint32_t parts = src.partitions();
  const std::uint64_t free = src.free();
  if (dst.partitions() != free || dst.free() != parts)
    s.fail("dst", "is [" + std::to_string(dst.partitions()) + "," + std::to_string(dst.free()) +
                      "] but a transpose of src [" + std::to_string(parts) + "," +
                      std::to_string(free) + "] is [" + std::to_string(free) + "," +
                      std::to_string(parts) + "]");
  if (dst.dtype() != src.dtype())
    s.fail("dst", "is " + std::string(dtype_name(dst.dtype())) + " but src is " +
                      std::string(dtype_name(src.dtype())) + "; a DMA transpose does not cast");
  std::vector<RawBits> in, out(std::size_t{parts} * free);
  load_rows(src, 0, parts, in);
  for (std::uint32_t p = 0; p < parts; ++p)
    for (std::uint64_t f = 0; f < free; ++f)
      out[f * parts + p] = in[p * free + f];
  store_rows(dst, 0, static_cast<std::uint32_t>(free), out);
}

// A gather (src_index) or scatter (dst_index), row by row in partition order: the index
// column is read now, when the transfer runs, and every index is checked against the
// indexed side's rows before anything moves (so a bad index moves nothing), or, with
// oob_skip, marks its row skipped (nothing moves for it). Repeated scatter indices: the
// later partition's row lands last (accumulate adds each). A gather with transpose is
// NKI/dma_transpose's indirect form (dma_gather_transpose): the gathered rows [N, F] land
// transposed, dst [F, N], dst[f][n] = row src_index[n] of src, element f (bits unchanged,
// as the direct transpose); a skipped row leaves dst's column n as it was.
void dma_indirect(const Site& s, const DmaCopy& dma) {
  const bool gather = dma.src_index.has_value();
  const std::string_view idx_field = gather ? "src_index" : "dst_index";
  const std::string_view table_field = gather ? "src" : "dst";
  const AccessPattern& table = gather ? dma.src : dma.dst;
  const Operand tile(s, gather ? dma.dst : dma.src, gather ? "dst" : "src");
  const Operand idx(s, *dma.index(), idx_field);
  if (dma.transpose && !gather)
    s.fail("transpose", "an indirect DMA transpose gathers (src_index)");
  if (dma.transpose && dma.accumulate) s.fail("accumulate", "a DMA transpose does not accumulate");
  // Rows moved (one per index) and elements per row: the tile's partitions and free size,
  // or, transposed, its free size and partitions.
  const auto count = static_cast<std::uint32_t>(dma.transpose ? tile.free() : tile.partitions());
  const std::uint64_t row_elems = dma.transpose ? tile.partitions() : tile.free();
  require_column(s, idx, count);
  if (!is_integer(idx.dtype()))
    s.fail(idx_field, "is " + std::string(dtype_name(idx.dtype())) + "; row indices are integers");
  if (table.free_elems() != row_elems)
    s.fail(table_field, "rows have " + std::to_string(table.free_elems()) + " elements but " +
                            std::string(tile.field()) + (dma.transpose ? "'s columns" : "'s rows") +
                            " have " + std::to_string(row_elems));
  // A skipped row (oob_skip, NKI/dma_copy oob_mode.skip: "silently skip") is kSkip.
  constexpr std::uint32_t kSkip = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> rows(count);
  for (std::uint32_t p = 0; p < count; ++p) {
    const std::int64_t i = idx.first_int(p);
    const bool outside = i < 0 || i >= std::int64_t{table.partitions};
    if (outside && dma.oob_skip) {
      rows[p] = kSkip;
      continue;
    }
    if (outside)
      s.fail(idx_field, "partition " + std::to_string(p) + " holds row index " + std::to_string(i) +
                            ", outside " + std::string(table_field) + "'s " +
                            std::to_string(table.partitions) + " rows (0 to " +
                            std::to_string(std::int64_t{table.partitions} - 1) + ")");
    rows[p] = static_cast<std::uint32_t>(i);
  }
  auto table_row = [&](std::uint32_t r) {  // row r of the indexed side
    AccessPattern one = table;
    one.start_partition = table.start_partition + r;
    one.partitions = 1;
    return one;
  };
  if (dma.transpose) {
    if (tile.dtype() != table.dtype)
      s.fail("dst", "is " + std::string(dtype_name(tile.dtype())) + " but src is " +
                        std::string(dtype_name(table.dtype)) + "; a DMA transpose does not cast");
    const auto parts = static_cast<std::uint32_t>(row_elems);
    std::vector<RawBits> out, v;
    load_rows(tile, 0, parts, out);  // dst as it was: a skipped row's column keeps it
    for (std::uint32_t n = 0; n < count; ++n) {
      if (rows[n] == kSkip) continue;
      const AccessPattern one = table_row(rows[n]);
      load_rows(Operand(s, one, table_field), 0, 1, v);
      for (std::uint32_t f = 0; f < parts; ++f)
        out[std::size_t{f} * count + n] = v[f];
    }
    store_rows(tile, 0, parts, out);
    return;
  }
  auto move = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> v, old;
    for (std::uint32_t p = 0; p < tile.partitions(); ++p) {
      if (rows[p] == kSkip) continue;
      const AccessPattern one = table_row(rows[p]);  // Operand keeps a pointer to it
      const Operand row(s, one, table_field);
      const Operand& from = gather ? row : tile;
      const Operand& to = gather ? tile : row;
      const std::uint32_t from_p = gather ? 0 : p, to_p = gather ? p : 0;
      load_rows(from, from_p, 1, v);
      if constexpr (std::is_same_v<T, float>) {
        if (dma.accumulate) {
          load_rows(to, to_p, 1, old);
          for (std::size_t j = 0; j < v.size(); ++j)
            v[j] = old[j] + v[j];
        }
      }
      store_rows(to, to_p, 1, v);
    }
  };
  if (dma.accumulate)
    move(float{});
  else
    with_move_form(move_form(dma.dst.dtype, {dma.src.dtype}), move);
}

}  // namespace

void run(const Site& s, const DmaCopy& dma) {
  if (dma.indexed()) {
    dma_indirect(s, dma);
    return;
  }
  if (dma.oob_skip) s.fail("oob_skip", "only an indirect dma_copy skips out-of-range rows");
  const Operand dst(s, dma.dst, "dst"), src(s, dma.src, "src");
  if (dma.transpose) {
    if (dma.accumulate) s.fail("accumulate", "a DMA transpose does not accumulate");
    dma_transpose(s, dst, src);
    return;
  }
  const std::uint64_t total = std::uint64_t{dst.partitions()} * dst.free();
  if (std::uint64_t{src.partitions()} * src.free() != total)
    s.fail("src", "has " + std::to_string(std::uint64_t{src.partitions()} * src.free()) +
                      " elements but dst has " + std::to_string(total));
  // Elements pair in (partition, free) order, so a DMA may reshape. Row by row when the
  // shapes match and rows cannot clobber later reads; else the whole transfer at once.
  const bool same_shape = src.partitions() == dst.partitions() && src.free() == dst.free();
  const bool whole = !same_shape || dst.may_clobber_later_rows(src);
  const MoveForm form = move_form(dst.dtype(), {src.dtype()});
  if (!dma.accumulate && form == MoveForm::raw && !whole && dst.rows_contiguous() &&
      src.rows_contiguous()) {
    // Same dtype, whole rows contiguous: each row's bytes as they are, as tensor_copy's.
    const std::size_t bytes = dst.free() * dtype_size(dst.dtype());
    for (std::uint32_t p = 0; p < dst.partitions(); ++p)
      std::memmove(dst.row_data(p), src.row_data(p), bytes);
    return;
  }
  auto transfer = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> v, old;
    for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(src, whole ? 0 : p0, whole ? src.partitions() : n, v);
      if constexpr (std::is_same_v<T, float>) {
        if (dma.accumulate) {  // read-add-write in fp32 at the destination
          load_rows(dst, p0, n, old);
          for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = old[i] + v[i];
        }
      }
      store_rows(dst, p0, n, v);
    });
  };
  if (dma.accumulate) {
    transfer(float{});
  } else {
    with_move_form(form, transfer);
  }
}

}  // namespace neuronsim::isa::sem
