// The top-8 instructions of NKI's top-k kernels: max8, nc_find_index8 and
// nc_match_replace8. Values compare in fp32 (the pages: "converts them to fp32
// internally"); each works within one partition.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "semantics/ops.hpp"

namespace neuronsim::isa::sem {

namespace {

constexpr std::size_t kTop = 8;

// Descending order with NaN above every number (a NaN is the largest, as max propagates it).
bool before(float a, float b) {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a > b;
}

void require_eight(const Site& s, const Operand& op, std::uint32_t partitions) {
  if (op.partitions() != partitions || op.free() != kTop)
    s.fail(op.field(), "is [" + std::to_string(op.partitions()) + ", " + std::to_string(op.free()) +
                           "], not [" + std::to_string(partitions) + ", 8]");
}

// The stored form of "not found": all ones in dst's integer dtype (NKI/nc_find_index8).
std::int64_t all_ones(DType t) {
  return dtype_size(t) == 2 ? 0xffff : 0xffffffffll;
}

}  // namespace

void run(const Site& s, const Max8& m) {
  const Operand dst(s, m.dst, "dst"), src(s, m.src, "src");
  require_eight(s, dst, src.partitions());
  if (src.free() < kTop) s.fail("src", "has fewer than 8 elements per partition");
  std::vector<float> in, out(kTop);
  for (std::uint32_t p = 0; p < src.partitions(); ++p) {
    load_rows(src, p, 1, in);
    std::partial_sort(in.begin(), in.begin() + kTop, in.end(), before);
    std::copy(in.begin(), in.begin() + kTop, out.begin());
    dst.store(p, out.data());
  }
}

void run(const Site& s, const FindIndex8& f) {
  const Operand dst(s, f.dst, "dst"), data(s, f.data, "data"), vals(s, f.vals, "vals");
  require_eight(s, dst, data.partitions());
  require_eight(s, vals, data.partitions());
  if (dst.dtype() != DType::uint16 && dst.dtype() != DType::uint32)
    s.fail("dst", "is " + std::string(dtype_name(dst.dtype())) + "; indices are uint16 or uint32");
  std::vector<float> row, v;
  std::vector<std::int64_t> out(kTop);
  for (std::uint32_t p = 0; p < data.partitions(); ++p) {
    load_rows(data, p, 1, row);
    load_rows(vals, p, 1, v);
    for (std::size_t j = 0; j < kTop; ++j) {
      const auto it = std::find(row.begin(), row.end(), v[j]);
      out[j] = it == row.end() ? all_ones(dst.dtype()) : it - row.begin();
    }
    dst.store(p, out.data());
  }
}

void run(const Site& s, const MatchReplace8& m) {
  const Operand dst(s, m.dst, "dst"), data(s, m.data, "data"), vals(s, m.vals, "vals");
  require_same_shape(s, dst, data);
  require_eight(s, vals, data.partitions());
  std::optional<Operand> idx;
  if (m.dst_idx) {
    idx.emplace(s, *m.dst_idx, "dst_idx");
    require_eight(s, *idx, data.partitions());
    if (!is_integer(idx->dtype()))
      s.fail("dst_idx", "is " + std::string(dtype_name(idx->dtype())) + "; indices are integers");
  }
  // Every row is read (with the vals) before any row is written: dst may be data itself.
  const std::uint32_t parts = data.partitions();
  const std::size_t f = data.free();
  std::vector<float> rows, v;
  load_rows(data, 0, parts, rows);
  load_rows(vals, 0, parts, v);
  std::vector<std::int64_t> found(std::size_t{parts} * kTop);
  const std::int64_t absent = idx ? all_ones(idx->dtype()) : -1;
  for (std::uint32_t p = 0; p < parts; ++p) {
    float* row = rows.data() + std::size_t{p} * f;
    for (std::size_t j = 0; j < kTop; ++j) {
      // The first occurrence not already replaced: repeated vals (ties) take successive
      // occurrences, as a top-k loop of max8 and match_replace8 needs.
      const float want = v[std::size_t{p} * kTop + j];
      float* hit = std::find(row, row + f, want);
      found[std::size_t{p} * kTop + j] = hit == row + f ? absent : hit - row;
      if (hit != row + f) *hit = m.imm;
    }
  }
  store_rows(dst, 0, parts, rows);
  if (idx) store_rows(*idx, 0, parts, found);
}

}  // namespace neuronsim::isa::sem
