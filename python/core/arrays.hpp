#pragma once
// numpy arrays in and out of a kernel's HBM tensors, converted as `neuronsim run` converts
// .npy files (io/npy.hpp): floats are rounded into bf16/fp8/... as the engines round;
// unsigned integer arrays are bit patterns only when the caller says so (raw_bits).
#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "isa/kernel.hpp"

namespace neuronsim::python {

// The bytes of `tensor` from `array` (C-contiguous, little-endian). `what` names the input
// in errors. Throws neuronsim::Error for a wrong shape, an unsupported dtype, or integers
// for a float tensor without raw_bits (or with raw_bits but not the tensor's width).
std::vector<std::uint8_t> array_to_tensor(const pybind11::array& array,
                                          const isa::HbmTensor& tensor, bool raw_bits,
                                          const std::string& what);

// A new array of the tensor's shape: floats as float32 (bf16, tf32, fp8 and fp16 widen
// exactly), integers as themselves; with raw_bits every float tensor comes back as the
// unsigned integers of its bit patterns.
pybind11::array tensor_to_array(const std::vector<std::uint8_t>& bytes,
                                const isa::HbmTensor& tensor, bool raw_bits);

}  // namespace neuronsim::python
