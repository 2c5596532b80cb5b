#pragma once
// The Scalar engine's activation functions (reference section 3), in fp32. Hardware uses
// table/polynomial approximations whose errors AWS does not publish; these are the libm
// float functions and closed forms listed in docs/numerics.md, which also says what
// tolerance to expect against a float64 reference.
#include <cstddef>

#include "isa/instruction.hpp"

namespace neuronsim::isa {

// f(x) for one element (prefer activate_array in loops).
float activate(ActFunc f, float x);
// out[i] = f(in[i]); `out` may be `in`. The function switch is outside the element loop.
void activate_array(ActFunc f, const float* in, float* out, std::size_t n);

}  // namespace neuronsim::isa
