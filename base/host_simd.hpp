#pragma once
// The host CPU's vector instruction set, which the numerics' element loops and matmul
// tiles are chosen by (base/lanes.hpp). A property of the machine running neuronsim, not
// of the NeuronCore.

namespace neuronsim {

// The widest vector instruction set the element loops and the matmul use, detected once
// (x86-64: AVX-512 F/BW/VL, else AVX2, else the baseline SSE2; other hosts: baseline).
enum class VectorIsa { baseline, avx2, avx512 };
VectorIsa vector_isa();
// For tests: use at most `isa` (never more than the host has); returns the one in effect.
VectorIsa limit_vector_isa(VectorIsa isa);

}  // namespace neuronsim
