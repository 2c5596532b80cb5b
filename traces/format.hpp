#pragma once
// Text for profile views: exact decimal forms of integer picoseconds (for JSON, where a
// double would lose digits), human units for the terminal, and an aligned text table.
// All of it is locale-independent and deterministic.
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim::traces {

// value / 10^decimals written exactly, trailing zeros dropped: (1234500, 6) -> "1.2345".
std::string exact_decimal(std::uint64_t value, int decimals);
inline std::string ps_as_us(std::uint64_t ps) {
  return exact_decimal(ps, 6);
}
inline std::string ps_as_ns(std::uint64_t ps) {
  return exact_decimal(ps, 3);
}

std::string human_time(std::uint64_t ps);      // "812 ps", "3.250 ns", "12.048 us", ...
std::string human_bytes(std::uint64_t bytes);  // "512 B", "4.00 KiB", "1.50 MiB", ...
std::string human_count(double value);         // "950", "12.3 K", "4.56 G", ...
std::string percent(double value);             // "12.3%"
std::string fixed(double value, int decimals);
// "(profiler cycle counter, 1.40 GHz)": which clock a neuroncore_cycle_count is in.
std::string cycle_counter_text(double ghz);

// Columns are right-aligned except the first `left_columns`, which are left-aligned.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::size_t left_columns = 1)
      : header_(std::move(header)), left_(left_columns) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string str(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::size_t left_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace neuronsim::traces
