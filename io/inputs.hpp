#pragma once
// The data of a kernel's input tensors, from specs such as "x=path.npy", "x=zeros",
// "x=ones", "x=fill:2.5", "x=uniform:-1,1" or "x=normal:0,1" (docs/npy.md). Generated
// values come from a PRNG of our own (xoshiro256** seeded by splitmix64, Box-Muller for
// the normal), so the same spec and seed give the same bytes on every platform, and are
// rounded into the tensor's dtype as an engine stores them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::io {

struct InputSpec {
  enum class Kind { file, zeros, ones, fill, uniform, normal };
  std::string text;    // the spec as written, for messages
  std::string tensor;  // the input tensor's name
  Kind kind = Kind::zeros;
  std::string path;  // Kind::file
  // fill: a is the value; uniform: [a, b); normal: mean a, standard deviation b.
  double a = 0, b = 0;
  std::optional<std::uint64_t> seed;  // ",seed=N": overrides the global seed
  bool cast = false;  // file ",cast": integer values given to a float tensor are converted
};

// "NAME=SOURCE[,seed=N]". SOURCE is zeros, ones, fill:V, uniform:LO,HI or normal:MEAN,STD;
// anything else is the path of a .npy file (write ./zeros for a file named zeros), with
// ",cast" after it to accept integers for a float tensor (npy_to_tensor).
// Throws neuronsim::Error naming the spec and the reason.
InputSpec parse_input_spec(std::string_view text);

// The bytes of `tensor` (its dtype, row-major) for `spec`. Without a seed of its own, a
// generator's seed is derived from `global_seed` and the tensor's name, so that tensors
// get different values and the order of specs does not matter. `raw_bits` as for
// npy_to_tensor (io/npy.hpp).
std::vector<std::uint8_t> make_input(const InputSpec& spec, const isa::HbmTensor& tensor,
                                     std::uint64_t global_seed, bool raw_bits = false);

// The data of every input tensor of `k`, indexed like k.tensors (empty for tensors that are
// not inputs). Each input needs exactly one spec; a spec naming no input is an error.
std::vector<std::vector<std::uint8_t>> make_inputs(const isa::Kernel& k,
                                                   const std::vector<InputSpec>& specs,
                                                   std::uint64_t global_seed,
                                                   bool raw_bits = false);

}  // namespace neuronsim::io
