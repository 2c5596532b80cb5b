#pragma once
// A slow, independent model of rounding fp32 to a narrower IEEE-style float format, used to
// check the fast bit-manipulation conversions of isa/dtype_bits.hpp. It lists every finite
// value of the format (decoded with std::ldexp, not with the code under test) and rounds by
// searching the list: nearest value, ties to the even code, overflow to infinity from
// max finite + half an ulp on.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace neuronsim::isa::dtype_test {

inline std::uint32_t bits_of(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
inline float float_of(std::uint32_t u) {
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

class ReferenceFormat {
 public:
  ReferenceFormat(int exp_bits, int man_bits)
      : exp_bits_(exp_bits),
        man_bits_(man_bits),
        bias_((1 << (exp_bits - 1)) - 1),
        sign_bit_(1u << (exp_bits + man_bits)),
        inf_code_(((1u << exp_bits) - 1) << man_bits) {
    for (std::uint32_t code = 0; code < inf_code_; ++code) {
      values_.push_back(decode_magnitude(code));
    }
    const double max = values_.back();
    const double half_ulp =
        std::ldexp(1.0, (static_cast<int>(1u << exp_bits) - 2 - bias_) - man_bits - 1);
    overflow_ = max + half_ulp;
  }

  std::uint32_t sign_bit() const { return sign_bit_; }
  std::uint32_t inf_code() const { return inf_code_; }
  std::uint32_t code_count() const { return sign_bit_ << 1; }
  bool is_nan_code(std::uint32_t code) const { return (code & (sign_bit_ - 1)) > inf_code_; }

  // The value of a code (finite, infinite or NaN), from the format's definition.
  double decode(std::uint32_t code) const {
    const double sign = (code & sign_bit_) ? -1.0 : 1.0;
    const std::uint32_t magnitude = code & (sign_bit_ - 1);
    if (magnitude == inf_code_) return sign * HUGE_VAL;
    if (magnitude > inf_code_) return NAN;
    return sign * values_[magnitude];
  }

  // The code fp32 `x` rounds to (for a NaN, any NaN code is right; this gives inf_code + 1).
  std::uint32_t round(float x) const {
    if (std::isnan(x)) return inf_code_ + 1;
    const std::uint32_t sign = std::signbit(x) ? sign_bit_ : 0;
    const double a = std::fabs(static_cast<double>(x));
    if (a >= overflow_) return sign | inf_code_;
    const auto above = std::upper_bound(values_.begin(), values_.end(), a);
    const auto lo = static_cast<std::uint32_t>(above - values_.begin()) - 1;
    if (values_[lo] == a || lo + 1 == values_.size()) return sign | lo;
    const double below_gap = a - values_[lo];
    const double above_gap = values_[lo + 1] - a;
    if (below_gap < above_gap) return sign | lo;
    if (above_gap < below_gap) return sign | (lo + 1);
    return sign | ((lo & 1) ? lo + 1 : lo);  // a tie: the even code
  }

  // Every positive finite value of the format, in code order (which is value order).
  const std::vector<double>& values() const { return values_; }

 private:
  double decode_magnitude(std::uint32_t code) const {
    const int e = static_cast<int>(code >> man_bits_);
    const int m = static_cast<int>(code & ((1u << man_bits_) - 1));
    if (e == 0) return std::ldexp(m, 1 - bias_ - man_bits_);
    return std::ldexp((1 << man_bits_) + m, e - bias_ - man_bits_);
  }

  int exp_bits_;
  int man_bits_;
  int bias_;
  std::uint32_t sign_bit_;
  std::uint32_t inf_code_;
  double overflow_;
  std::vector<double> values_;
};

// fp32 inputs that probe a format: a sparse sweep of all fp32 patterns, every value of the
// format, every midpoint between neighbours and the fp32 numbers just either side of it.
inline std::vector<float> probe_inputs(const ReferenceFormat& format) {
  std::vector<float> probes;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 4093)
    probes.push_back(float_of(static_cast<std::uint32_t>(u)));
  const std::vector<double>& v = format.values();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double next = i + 1 < v.size() ? v[i + 1] : 2 * v[i] - v[i - 1];  // one past max
    const auto value = static_cast<float>(v[i]);
    const auto mid = static_cast<float>((v[i] + next) / 2);  // exact: needs 2 more bits
    for (float p : {value, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, HUGE_VALF)}) {
      probes.push_back(p);
      probes.push_back(-p);
    }
  }
  return probes;
}

}  // namespace neuronsim::isa::dtype_test
