#include "python/core/arrays.hpp"

#include <cstring>

#include "base/error.hpp"
#include "io/npy.hpp"
#include "isa/dtype.hpp"

namespace py = pybind11;

namespace neuronsim::python {

namespace {

// numpy's dtype of a float tensor's bit patterns: unsigned, the element's width.
std::string raw_bits_descr(isa::DType dtype) {
  switch (isa::dtype_size(dtype)) {
    case 1:
      return "|u1";
    case 2:
      return "<u2";
    default:
      return "<u4";
  }
}

std::vector<std::uint64_t> shape_of(const py::array& a) {
  std::vector<std::uint64_t> shape;
  for (py::ssize_t i = 0; i < a.ndim(); ++i)
    shape.push_back(static_cast<std::uint64_t>(a.shape(i)));
  return shape;
}

}  // namespace

std::vector<std::uint8_t> array_to_tensor(const py::array& array, const isa::HbmTensor& tensor,
                                          bool raw_bits, const std::string& what) {
  if (!(array.flags() & py::array::c_style)) throw Error(what + ": the array is not C-contiguous");
  const py::dtype dtype = array.dtype();
  const char kind = dtype.kind();
  const std::string descr = py::str(dtype.attr("str"));
  const std::string dtype_name(isa::dtype_name(tensor.dtype));
  io::NpyArray a;
  a.shape = shape_of(array);
  a.descr = descr;
  const auto* data = static_cast<const std::uint8_t*>(array.data());
  a.data.assign(data, data + array.nbytes());
  const bool integers = kind == 'i' || kind == 'u' || kind == 'b';
  if (isa::is_float(tensor.dtype) && integers) {
    const std::string bits = raw_bits_descr(tensor.dtype);
    if (!raw_bits)
      throw Error(what + ": tensor " + tensor.name + " is " + dtype_name +
                  " but the array holds integers (" + descr +
                  "): pass raw_bits=True if they are bit patterns (" + bits + "), or give floats");
    if (descr != bits)
      throw Error(what + ": with raw_bits=True the bit patterns of " + dtype_name + " tensor " +
                  tensor.name + " are " + bits + ", not " + descr);
    if (a.shape != tensor.shape)  // the same words as io::npy_to_tensor
      return io::npy_to_tensor(a, tensor, what);
    return std::move(a.data);
  }
  return io::npy_to_tensor(a, tensor, what);
}

py::array tensor_to_array(const std::vector<std::uint8_t>& bytes, const isa::HbmTensor& tensor,
                          bool raw_bits) {
  std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
  const bool is_float = isa::is_float(tensor.dtype);
  if (raw_bits && is_float) {
    py::array out(py::dtype(raw_bits_descr(tensor.dtype)), shape);
    std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
    return out;
  }
  if (!is_float || tensor.dtype == isa::DType::fp32) {
    py::array out(py::dtype(io::npy_descr(tensor.dtype, false)), shape);
    std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
    return out;
  }
  py::array_t<float> out(shape);
  float* dst = out.mutable_data();
  const std::size_t size = isa::dtype_size(tensor.dtype);
  const std::uint64_t elems = tensor.elems();
  for (std::uint64_t i = 0; i < elems; ++i)
    dst[i] = isa::load_fp32(tensor.dtype, bytes.data() + i * size);
  return out;
}

}  // namespace neuronsim::python
