#pragma once
// The one check of given input bytes against a kernel's input tensors, made by the core
// for every launch request and by run_kernel (which writes inputs into HBM itself, so its
// bytes never pass through a request): each name must be an input tensor of the kernel,
// and each input's bytes its size.
#include <string>

#include "isa/kernel.hpp"
#include "neuronsim/launch.hpp"

namespace neuronsim::sim {

// Throws Error("<source>: no input tensor named 'a', 'b'") for names that are not input
// tensors (all of them, in name order), then Error("<source>: input 'x' has N bytes, the
// tensor needs M") for the first input, by name, of the wrong size.
void check_given_inputs(const isa::Kernel& k, const TensorBytes& inputs, const std::string& source);

}  // namespace neuronsim::sim
