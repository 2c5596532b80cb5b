#pragma once
// The slice form of access patterns (docs/assembly.md, "Access patterns"), shared by the
// assembler, the printer and the builder: a buffer viewed with a dtype and a shape, and
// NumPy-like indices over that shape that become an AccessPattern.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::isa {

// One index of a slice: a range start:stop:step (open ends allowed) or a single index,
// which drops its axis.
struct Ix {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
  bool single = false;

  Ix() = default;                                         // the whole axis, ":"
  Ix(std::int64_t index) : start(index), single(true) {}  // NOLINT: ints are indices
  Ix(std::int64_t start_, std::int64_t stop_, std::int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
  static Ix all() { return Ix(); }
};

// A buffer seen as elements of `dtype` over `shape`. For SBUF/PSUM the shape is
// [partitions, free...]; for HBM it is the tensor's shape. Reinterpreting as another
// dtype rescales the innermost axis by the ratio of the element sizes.
struct BufferView {
  MemSpace space = MemSpace::sbuf;
  std::uint32_t buffer = 0;
  std::string name;
  DType declared = DType::fp32;
  DType dtype = DType::fp32;
  std::vector<std::uint64_t> shape;
};

BufferView view_of(const HbmTensor& t, std::uint32_t index);
BufferView view_of(const Allocation& a, std::uint32_t index);
// Throws neuronsim::Error (the bare reason) when the innermost axis does not rescale.
BufferView reinterpret(const BufferView& v, DType t);

// Indices -> pattern. Missing trailing indices mean whole axes. Throws neuronsim::Error
// with the bare reason (index out of the shape, too many indices or dims, ...).
AccessPattern slice(const BufferView& v, const std::vector<Ix>& indices);

// The explicit form: every field given (ap[0] is (partition_stride, partitions)).
struct RawPattern {
  std::int64_t partition_stride = 0;
  std::uint32_t partitions = 1;
  std::vector<Dim> dims;  // 1..kMaxFreeDims
  std::uint32_t start_partition = 0;
  std::uint64_t byte_offset = 0;
};
// Throws neuronsim::Error when dims is empty or has more than kMaxFreeDims entries.
AccessPattern raw_pattern(const BufferView& v, const RawPattern& raw);

// The text of `ap` over its buffer: the slice form when it reproduces `ap` exactly, else
// the raw form. Throws neuronsim::Error when the buffer index is out of range.
std::string format_pattern(const Kernel& k, const AccessPattern& ap);

}  // namespace neuronsim::isa
