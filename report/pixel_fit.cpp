#include "report/pixel_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace neuronsim::report {

namespace {

// The narrow slices of one pixel column.
struct ColumnBin {
  long column = -1;
  std::map<std::uint16_t, std::uint64_t> busy_by_kind;
  std::uint32_t count = 0;
  std::uint64_t busy_ps = 0, bytes = 0, start_ps = 0, end_ps = 0;
};

double quarters(double share) {
  return std::clamp(std::ceil(share * 4.0 - 1e-9) / 4.0, 0.25, 1.0);
}

void flush(ColumnBin& bin, double column_ps, std::vector<PixelRect>& out) {
  if (bin.column < 0) return;
  PixelRect r;
  r.x0 = static_cast<double>(bin.column);
  r.x1 = r.x0 + 1;
  r.aggregated = true;
  std::uint64_t best = 0;
  bool chosen = false;
  for (const auto& [kind, ps] : bin.busy_by_kind)
    if (!chosen || ps > best) {
      best = ps;
      r.kind = kind;
      chosen = true;
    }
  r.coverage = quarters(static_cast<double>(bin.busy_ps) / column_ps);
  r.count = bin.count;
  r.busy_ps = bin.busy_ps;
  r.bytes = bin.bytes;
  r.start_ps = bin.start_ps;
  r.end_ps = bin.end_ps;
  PixelRect* prev = out.empty() ? nullptr : &out.back();
  if (prev && prev->aggregated && prev->x1 == r.x0 && prev->kind == r.kind &&
      prev->coverage == r.coverage) {
    prev->x1 = r.x1;
    prev->count += r.count;
    prev->busy_ps += r.busy_ps;
    prev->bytes += r.bytes;
    prev->end_ps = r.end_ps;
  } else {
    out.push_back(r);
  }
  bin = ColumnBin{};
}

}  // namespace

std::vector<PixelRect> fit_lane(const std::vector<Slice>& slices, std::uint64_t total_ps,
                                double width_px, double min_px) {
  std::vector<PixelRect> out;
  if (total_ps == 0 || width_px <= 0) return out;
  const double px_per_ps = width_px / static_cast<double>(total_ps);
  const double column_ps = static_cast<double>(total_ps) / width_px;
  const long last_column = static_cast<long>(std::ceil(width_px)) - 1;
  ColumnBin bin;
  for (const Slice& s : slices) {
    if (s.start_ps >= total_ps) break;
    const std::uint64_t end_ps = std::min(s.end_ps, total_ps);
    const double x0 = static_cast<double>(s.start_ps) * px_per_ps;
    const double x1 = static_cast<double>(end_ps) * px_per_ps;
    if (x1 - x0 >= min_px) {
      flush(bin, column_ps, out);
      PixelRect r;
      r.x0 = x0;
      r.x1 = x1;
      r.kind = s.kind;
      r.count = s.count;
      r.busy_ps = end_ps - s.start_ps;
      r.bytes = s.bytes;
      r.start_ps = s.start_ps;
      r.end_ps = end_ps;
      out.push_back(r);
      continue;
    }
    const long column =
        std::clamp(static_cast<long>(std::floor((x0 + x1) / 2)), 0L, std::max(last_column, 0L));
    if (column != bin.column) {
      flush(bin, column_ps, out);
      bin.column = column;
      bin.start_ps = s.start_ps;
    }
    const std::uint64_t ps = end_ps - s.start_ps;
    bin.busy_by_kind[s.kind] += ps;
    bin.busy_ps += ps;
    bin.count += s.count;
    bin.bytes += s.bytes;
    bin.end_ps = end_ps;
  }
  flush(bin, column_ps, out);
  return out;
}

}  // namespace neuronsim::report
