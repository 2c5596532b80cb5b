#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the way kernel inputs come in and
// outputs go out; docs/npy.md describes the dtype mapping. Read arrays are little-endian,
// C-ordered, of the dtypes kernels use; written files are what numpy.save would write.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::io {

struct NpyArray {
  std::vector<std::uint64_t> shape;  // () for a 0-d array
  std::string descr;                 // numpy's dtype string as in the file: "<f4", "|u1", ...
  std::vector<std::uint8_t> data;    // the elements, little-endian, C order
  std::uint64_t elems() const;
};

// Reads and checks a whole .npy file; every problem (missing file, bad magic, unsupported
// version or dtype, Fortran order, header too long, truncated, size mismatch) is a
// neuronsim::Error naming `source` (the file) and the reason.
NpyArray read_npy(const std::string& path);
NpyArray parse_npy(const std::vector<std::uint8_t>& bytes, const std::string& source);

// The bytes of `tensor` (its dtype, row-major) from an array of exactly its shape. Values
// are converted as an engine would (isa::store_fp32 / store_int: round to nearest even,
// saturate). With raw_bits, an array of the raw-bits dtype of a bf16/tf32/fp8 tensor
// ("<u2", "<u4", "|u1") is taken as bit patterns, not numbers. An integer array
// for a float tensor is refused, naming the tensor, unless raw_bits or `cast` (convert the
// integer values): it is most often bit patterns saved without --raw-bits.
std::vector<std::uint8_t> npy_to_tensor(const NpyArray& a, const isa::HbmTensor& tensor,
                                        const std::string& source, bool raw_bits = false,
                                        bool cast = false);
// read_npy then npy_to_tensor, with the same checks and errors, but the file's elements go
// straight into the tensor's bytes (converted a chunk at a time when the dtypes differ):
// no copy of the whole file in memory.
std::vector<std::uint8_t> read_npy_tensor(const std::string& path, const isa::HbmTensor& tensor,
                                          bool raw_bits = false, bool cast = false);

// The largest .npy file that can hold `elems` elements of any dtype read (8-byte ones at
// most) with the longest header read: the bound a reader checks before reading a file.
std::uint64_t npy_max_file_bytes(std::uint64_t elems);

// numpy's dtype string for a tensor dtype written out: its own where numpy has it;
// bf16, tf32 and fp8 widen to "<f4", or with raw_bits are their bit patterns as unsigned.
std::string npy_descr(isa::DType dtype, bool raw_bits);

// A .npy file of `bytes` (dtype elements, row-major, of `shape`), byte for byte what
// numpy.save writes for the same array.
std::vector<std::uint8_t> encode_npy(isa::DType dtype, const std::vector<std::uint64_t>& shape,
                                     const std::vector<std::uint8_t>& bytes, bool raw_bits);
// encode_npy, written all-or-nothing (write_file_atomic).
void write_npy(const std::string& path, isa::DType dtype, const std::vector<std::uint64_t>& shape,
               const std::vector<std::uint8_t>& bytes, bool raw_bits);

}  // namespace neuronsim::io
