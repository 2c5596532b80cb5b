#pragma once
// The normal generator's transform (Box-Muller): each pair of uniforms (u1, u2), u1 in
// (0, 1], u2 in [0, 1), gives two floats, float(mean + std * (r cos(theta))) and then the
// same with sin, r = sqrt(-2 log(u1)), theta = 2 pi u2, every step in double with libm's log,
// cos and sin.
#include <cstddef>

namespace neuronsim::io {

// 2 pi in double, the one the transform's theta is computed with.
inline constexpr double kTwoPi = 6.283185307179586476925286766559;

// values[2i], values[2i + 1] for i < pairs, one pair at a time with libm: the definition.
void box_muller_scalar(const double* u1, const double* u2, std::size_t pairs, double mean,
                       double std_dev, float* values);

// The same floats, bit for bit, on vector lanes. log, cos and sin are polynomials in double
// with relative errors below 2^-48, where libm's are below 2^-52: both doubles then lie
// within (|std r c| + |v|) 2^-40 of the exact value, so wherever this double lies farther
// than that from a float rounding boundary both round to the same float. A pair with a value
// nearer a boundary (about 1 in 2^14), or outside the normal floats, is redone by
// box_muller_scalar. tests/unit/io_box_muller.cpp compares the two on dense sweeps.
void box_muller(const double* u1, const double* u2, std::size_t pairs, double mean, double std_dev,
                float* values);

}  // namespace neuronsim::io
