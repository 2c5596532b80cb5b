#pragma once
// Test support for the semantics tests: a MemoryView backed by std::vectors, a kernel
// with allocations and HBM tensors, and element access that computes addresses on its own
// (independently of the semantics' walker), so tests check the addressing rule too.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "isa/dtype.hpp"
#include "semantics/semantics.hpp"

namespace semantics_test {

using namespace neuronsim::isa;

class VectorMemory : public MemoryView {
 public:
  static constexpr std::uint32_t kPartitions = 128;
  static constexpr std::size_t kSbufRowBytes = 64 * 1024;
  static constexpr std::size_t kPsumRowBytes = 16 * 1024;

  VectorMemory()
      : sbuf(kPartitions, std::vector<std::uint8_t>(kSbufRowBytes, 0xEE)),
        psum(kPartitions, std::vector<std::uint8_t>(kPsumRowBytes, 0xEE)) {}

  std::uint8_t* row(MemSpace space, std::uint32_t partition) override {
    auto& rows = space == MemSpace::psum ? psum : sbuf;
    if (space == MemSpace::hbm || partition >= rows.size())
      throw std::out_of_range("VectorMemory::row: partition " + std::to_string(partition));
    return rows[partition].data();
  }
  std::uint8_t* hbm_tensor(std::uint32_t tensor) override { return hbm.at(tensor).data(); }

  std::vector<std::vector<std::uint8_t>> sbuf, psum, hbm;
};

// One test's kernel and memory. Patterns are built with pattern(); values are read and
// written by (pattern, partition, flat free index).
struct Bench {
  Kernel k;
  VectorMemory mem;

  std::uint32_t alloc(MemSpace space, DType t, std::uint32_t partitions, std::uint32_t free,
                      std::uint32_t start_partition = 0, std::uint32_t byte_offset = 0) {
    Allocation a;
    a.name = "a" + std::to_string(k.allocations.size());
    a.space = space;
    a.dtype = t;
    a.partitions = partitions;
    a.start_partition = start_partition;
    a.free_shape = {free};
    a.byte_offset = byte_offset;
    k.allocations.push_back(a);
    return static_cast<std::uint32_t>(k.allocations.size() - 1);
  }
  std::uint32_t tensor(DType t, std::vector<std::uint64_t> shape) {
    HbmTensor h;
    h.name = "t" + std::to_string(k.tensors.size());
    h.dtype = t;
    h.shape = shape;
    k.tensors.push_back(h);
    mem.hbm.emplace_back(h.bytes(), std::uint8_t{0xEE});
    return static_cast<std::uint32_t>(k.tensors.size() - 1);
  }

  // A pattern on buffer `buf` (its space taken from the allocation, or hbm).
  AccessPattern pattern(MemSpace space, std::uint32_t buf, DType t, std::uint32_t partitions,
                        std::initializer_list<Dim> dims, std::uint32_t start_partition = 0,
                        std::uint64_t byte_offset = 0, std::int64_t partition_stride = 0) const {
    AccessPattern ap;
    ap.space = space;
    ap.buffer = buf;
    ap.dtype = t;
    ap.partitions = partitions;
    ap.start_partition = start_partition;
    ap.byte_offset = byte_offset;
    ap.partition_stride = partition_stride;
    ap.ndims = static_cast<std::uint8_t>(dims.size());
    int i = 0;
    for (const Dim& d : dims)
      ap.dims[i++] = d;
    return ap;
  }
  // [partitions, free] contiguous on an SBUF/PSUM allocation.
  AccessPattern tile(std::uint32_t buf, std::uint32_t partitions, std::uint32_t free) const {
    const Allocation& a = k.allocations.at(buf);
    return pattern(a.space, buf, a.dtype, partitions, {{1, free}});
  }

  // Address of element (p, f): the documented rule, written out independently.
  std::uint8_t* address(const AccessPattern& ap, std::uint32_t p, std::uint64_t f) {
    std::int64_t off = 0;
    for (int d = ap.ndims - 1; d >= 0; --d) {
      off += static_cast<std::int64_t>(f % ap.dims[d].size) * ap.dims[d].stride;
      f /= ap.dims[d].size;
    }
    const auto es = static_cast<std::int64_t>(dtype_size(ap.dtype));
    if (ap.space == MemSpace::hbm)
      return mem.hbm.at(ap.buffer).data() + ap.byte_offset +
             ((static_cast<std::int64_t>(ap.start_partition) + p) * ap.partition_stride + off) * es;
    const Allocation& a = k.allocations.at(ap.buffer);
    return mem.row(ap.space, a.start_partition + ap.start_partition + p) + a.byte_offset +
           ap.byte_offset + off * es;
  }
  void set(const AccessPattern& ap, std::uint32_t p, std::uint64_t f, float v) {
    store_fp32(ap.dtype, v, address(ap, p, f));
  }
  void set_int(const AccessPattern& ap, std::uint32_t p, std::uint64_t f, std::int64_t v) {
    store_int(ap.dtype, v, address(ap, p, f));
  }
  float get(const AccessPattern& ap, std::uint32_t p, std::uint64_t f) {
    return load_fp32(ap.dtype, address(ap, p, f));
  }
  std::int64_t get_int(const AccessPattern& ap, std::uint32_t p, std::uint64_t f) {
    return load_int(ap.dtype, address(ap, p, f));
  }
  std::uint32_t bits(const AccessPattern& ap, std::uint32_t p, std::uint64_t f) {
    std::uint32_t b = 0;
    std::memcpy(&b, address(ap, p, f), dtype_size(ap.dtype));
    return b;
  }
  void set_bits(const AccessPattern& ap, std::uint32_t p, std::uint64_t f, std::uint32_t b) {
    std::memcpy(address(ap, p, f), &b, dtype_size(ap.dtype));
  }

  // Fills every element with values from `gen(p, f)` after a round trip through the
  // dtype, and returns them (as stored) row-major.
  template <class Gen>
  std::vector<double> fill(const AccessPattern& ap, Gen gen) {
    std::vector<double> out;
    for (std::uint32_t p = 0; p < ap.partitions; ++p)
      for (std::uint64_t f = 0; f < ap.free_elems(); ++f) {
        set(ap, p, f, static_cast<float>(gen(p, f)));
        out.push_back(get(ap, p, f));
      }
    return out;
  }
  std::vector<double> fill_random(const AccessPattern& ap, unsigned seed, double lo = -2.0,
                                  double hi = 2.0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    return fill(ap, [&](std::uint32_t, std::uint64_t) { return dist(rng); });
  }

  void run(Operation op) {
    Instruction instr;
    instr.op = std::move(op);
    execute(k, instr, mem);
  }
};

// How far a value correctly rounded into dtype t may be from the exact value: half an ulp,
// 2^-(mantissa bits + 1) relative (bf16: 2^-8), with 1% slack for the double rounding of
// fp32-then-t, plus half the smallest subnormal for results that underflow.
struct Tol {
  double rel, abs;
};
inline Tol dtype_tol(DType t) {
  auto half_ulp = [](int mantissa_bits) { return std::ldexp(1.01, -(mantissa_bits + 1)); };
  switch (t) {
    case DType::bf16:
      return {half_ulp(7), std::ldexp(1.0, -134)};
    case DType::fp16:
      return {half_ulp(10), std::ldexp(1.0, -25)};
    case DType::fp8_e4m3:
      return {half_ulp(3), std::ldexp(1.0, -10)};
    case DType::fp8_e5m2:
      return {half_ulp(2), std::ldexp(1.0, -17)};
    case DType::tf32:
      return {half_ulp(10), std::ldexp(1.0, -134)};
    default:
      return {half_ulp(23), std::ldexp(1.0, -150)};
  }
}

// |got - want| <= rel * |want| + abs.
inline bool close(double got, double want, double rel, double abs = 0.0) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rel * std::fabs(want) + abs;
}

}  // namespace semantics_test

namespace semantics_test {
inline bool close(double got, double want, Tol t) {
  return close(got, want, t.rel, t.abs);
}
}  // namespace semantics_test
