#include "traces/format.hpp"

#include <algorithm>
#include <cstdio>

namespace neuronsim::traces {

std::string exact_decimal(std::uint64_t value, int decimals) {
  std::uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i)
    scale *= 10;
  std::string s = std::to_string(value / scale);
  std::string frac = std::to_string(value % scale);
  frac.insert(0, static_cast<std::size_t>(decimals) - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0')
    frac.pop_back();
  if (!frac.empty()) s += "." + frac;
  return s;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string cycle_counter_text(double ghz) {
  return "(profiler cycle counter, " + fixed(ghz, 2) + " GHz)";
}

std::string human_time(std::uint64_t ps) {
  if (ps < 1000) return std::to_string(ps) + " ps";
  static const char* units[] = {"ns", "us", "ms", "s"};
  double v = static_cast<double>(ps) / 1000.0;
  int u = 0;
  while (u < 3 && v >= 1000.0) {
    v /= 1000.0;
    ++u;
  }
  return fixed(v, 3) + " " + units[u];
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (u < 3 && v >= 1024.0) {
    v /= 1024.0;
    ++u;
  }
  return fixed(v, 2) + " " + units[u];
}

std::string human_count(double value) {
  if (value < 1000.0)
    return fixed(value, value == static_cast<double>(static_cast<std::uint64_t>(value)) ? 0 : 2);
  static const char* units[] = {"K", "M", "G", "T", "P"};
  double v = value / 1000.0;
  int u = 0;
  while (u < 4 && v >= 1000.0) {
    v /= 1000.0;
    ++u;
  }
  return fixed(v, 2) + " " + units[u];
}

std::string percent(double value) {
  return fixed(value, 1) + "%";
}

std::string TextTable::str(const std::string& indent) const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  };
  measure(header_);
  for (const auto& r : rows_)
    measure(r);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - cell.size(), ' ');
      if (c) out += "  ";
      out += c < left_ ? cell + pad : pad + cell;
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_)
    out += line(r);
  return out;
}

}  // namespace neuronsim::traces
