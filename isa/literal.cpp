#include "isa/literal.hpp"

#include "base/little_endian.hpp"
#include "base/text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace neuronsim::isa {

namespace {

bool is_hex(std::string_view t) {
  return t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

// strtof/strtod accept leading spaces, signs and partial reads; the text must be a whole
// number token here, so those are ruled out before and after the call.
template <typename T, typename Fn>
std::optional<T> parse_floating(std::string_view text, bool negative, Fn convert) {
  if (text == "inf")
    return negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  if (text == "nan")
    return negative ? -std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::quiet_NaN();
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  T v = convert(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;  // overflow is malformed
  return negative ? -v : v;
}

std::uint64_t element_bits(DType t, const std::uint8_t* p) {
  return load_le(p, dtype_size(t));
}

// Values as a list, or one value when all are equal; lists wrap every 8 values.
std::string join_values(const std::vector<std::string>& items) {
  bool all_same = !items.empty();
  for (const auto& s : items)
    all_same = all_same && s == items[0];
  if (all_same) return items[0];
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += (i % 8 == 0) ? ",\n    " : ", ";
    out += items[i];
  }
  return out + "]";
}

}  // namespace

std::optional<std::int64_t> parse_int_literal(std::string_view text, bool negative) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  const bool hex_text = is_hex(text);
  std::string s(hex_text ? text.substr(2) : text);
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!(hex_text ? std::isxdigit(static_cast<unsigned char>(c))
                   : std::isdigit(static_cast<unsigned char>(c))))
      return std::nullopt;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), nullptr, hex_text ? 16 : 10);
  if (errno == ERANGE) return std::nullopt;
  if (negative) {
    if (v > 1ull << 63) return std::nullopt;
    return static_cast<std::int64_t>(0 - v);
  }
  if (v > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
    return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<float> parse_float_literal(std::string_view text, bool negative) {
  return parse_floating<float>(text, negative,
                               [](const char* s, char** e) { return std::strtof(s, e); });
}

std::optional<double> parse_double_literal(std::string_view text, bool negative) {
  return parse_floating<double>(text, negative,
                                [](const char* s, char** e) { return std::strtod(s, e); });
}

std::string format_float(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    float back = std::strtof(buf, nullptr);
    if (std::memcmp(&back, &v, sizeof v) == 0) break;
  }
  return buf;
}

std::string format_double(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    double back = std::strtod(buf, nullptr);
    if (std::memcmp(&back, &v, sizeof v) == 0) break;
  }
  return buf;
}

// A packed x4 element is written as its bit pattern (docs/assembly.md), an unsigned integer
// of its size: the 32-bit word of four fp8 lanes, the 16 bits of four fp4 ones.
namespace {
DType literal_dtype(DType type) {
  if (!is_packed_x4(type)) return type;
  return dtype_size(type) == 2 ? DType::uint16 : DType::uint32;
}
}  // namespace

std::optional<std::string> encode_literal(DType type, const Literal& lit, std::uint8_t* out) {
  const DType t = literal_dtype(type);
  if (is_float(t)) {
    auto v = parse_float_literal(lit.text, lit.negative);
    if (!v) return "malformed number '" + std::string(lit.negative ? "-" : "") + lit.text + "'";
    store_fp32(t, *v, out);
    return std::nullopt;
  }
  auto v = parse_int_literal(lit.text, lit.negative);
  if (!v) {
    return "'" + std::string(lit.negative ? "-" : "") + lit.text + "' is not an integer (" +
           std::string(dtype_name(t)) + " constant)";
  }
  const int bits = static_cast<int>(dtype_size(t) * 8);
  const std::int64_t lo = is_signed_integer(t) ? -(std::int64_t{1} << (bits - 1)) : 0;
  const std::int64_t hi =
      is_signed_integer(t) ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
  if (*v < lo || *v > hi) {
    return "value " + std::to_string(*v) + " out of range for " + std::string(dtype_name(t)) +
           " (" + std::to_string(lo) + ".." + std::to_string(hi) + ")";
  }
  store_int(t, *v, out);
  return std::nullopt;
}

std::optional<std::string> encode_bits(DType t, std::uint64_t bits, std::uint8_t* out) {
  const std::size_t size = dtype_size(t);
  if (size < 8 && bits >> (8 * size) != 0)
    return hex(bits) + " does not fit in " + std::to_string(size * 8) + " bits";
  store_le(out, bits, size);
  return std::nullopt;
}

std::string format_constant(DType type, const std::vector<std::uint8_t>& data) {
  const DType t = literal_dtype(type);  // as encode_literal
  const std::size_t size = dtype_size(t);
  const std::size_t n = data.size() / size;
  std::vector<std::string> values;
  values.reserve(n);
  bool exact = true;
  std::uint8_t back[8];
  for (std::size_t i = 0; i < n && exact; ++i) {
    const std::uint8_t* p = data.data() + i * size;
    Literal lit;
    if (is_float(t)) {
      lit.text = format_float(load_fp32(t, p));
    } else {
      lit.text = std::to_string(load_int(t, p));
    }
    if (lit.text[0] == '-') {
      lit.negative = true;
      lit.text.erase(0, 1);
    }
    exact = !encode_literal(t, lit, back) && std::memcmp(back, p, size) == 0;
    values.push_back((lit.negative ? "-" : "") + lit.text);
  }
  if (exact) return n == 0 ? "[]" : join_values(values);
  values.clear();
  for (std::size_t i = 0; i < n; ++i)
    values.push_back(hex(element_bits(t, data.data() + i * size)));
  return "bits " + join_values(values);
}

}  // namespace neuronsim::isa
