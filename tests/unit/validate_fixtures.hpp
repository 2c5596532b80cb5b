#pragma once
// Shared fixtures of the validation tests: trn1's limits, a small kernel whose
// declarations are valid, access-pattern shorthands, and a check that a kernel has
// exactly one problem naming the expected rule.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "validate/validate.hpp"

namespace validate_fixtures {

using namespace neuronsim::isa;
namespace params = neuronsim::params;

// trn1 (NeuronCore-v2), reference sections 1-2.
inline params::TargetLimits trn1_limits() {
  params::TargetLimits l;
  l.partitions = 128;
  l.sbuf_bytes_per_partition = 192 * 1024;
  l.psum_bytes_per_partition = 16 * 1024;
  l.psum_bank_bytes = 2048;
  l.max_sbuf_free_elems = 64 * 1024;
  l.max_psum_free_elems = 4 * 1024;
  l.matmul_max_k = 128;
  l.matmul_max_m = 128;
  l.matmul_max_n = 512;
  l.matmul_psum_banks = 1;  // v2: one bank (trn1.json tensor.matmul_psum_banks)
  l.tensor_transpose_max = 128;
  l.vector_transpose_max = 32;
  l.bn_stats_max_free = 512;
  l.semaphores = 32;
  l.dma_engines = 16;
  l.dma_queues_per_engine = 16;
  l.partition_start_granule = 32;
  l.ap_max_free_dims = 4;
  l.dma_max_free_dims = 4;
  l.dma_transpose = false;  // v2 (trn1.json dma.transpose)
  l.ap_max_dim_size = 65535;
  l.ap_max_stride = 32767;
  return l;
}

// Allocation indices of base_kernel().
enum Alloc : std::uint32_t { kX = 0, kY = 1, kW = 2, kVec = 3, kPs = 4, kInt = 5, kPs2 = 6 };
// Tensor indices of base_kernel().
enum Tensor : std::uint32_t { kIn = 0, kOut = 1, kConst = 2 };

inline Allocation alloc(const char* name, MemSpace space, DType dt, std::uint32_t free,
                        std::uint32_t byte_offset, std::uint32_t partitions = 128,
                        std::uint32_t start = 0) {
  Allocation a;
  a.name = name;
  a.space = space;
  a.dtype = dt;
  a.start_partition = start;
  a.partitions = partitions;
  a.free_shape = {free};
  a.byte_offset = byte_offset;
  return a;
}

// Declarations only, all valid: tests add the instructions they are about.
inline Kernel base_kernel() {
  Kernel k;
  k.name = "fixture";
  k.target = "trn1";
  HbmTensor in{"x", DType::fp32, {128, 512}, TensorRole::input, {}};
  HbmTensor out{"y", DType::fp32, {128, 512}, TensorRole::output, {}};
  HbmTensor c{"w", DType::bf16, {2, 2}, TensorRole::constant, std::vector<std::uint8_t>(8, 0)};
  k.tensors = {in, out, c};
  k.allocations = {
      alloc("xt", MemSpace::sbuf, DType::fp32, 512, 0),      // bytes [0, 2048)
      alloc("yt", MemSpace::sbuf, DType::fp32, 512, 2048),   // [2048, 4096)
      alloc("wt", MemSpace::sbuf, DType::bf16, 512, 4096),   // [4096, 5120)
      alloc("vec", MemSpace::sbuf, DType::fp32, 1, 5120),    // [5120, 5124)
      alloc("ps", MemSpace::psum, DType::fp32, 512, 0),      // bank 0
      alloc("it", MemSpace::sbuf, DType::int32, 512, 5124),  // [5124, 7172)
      alloc("ps2", MemSpace::psum, DType::fp32, 512, 2048),  // bank 1
  };
  k.semaphores = {{"s0", 0}, {"s1", 0}};
  k.queues = {{"q0", 0, 16}};
  return k;
}

// A pattern of `partitions` x `free` contiguous elements of an SBUF/PSUM allocation.
inline AccessPattern on_chip(MemSpace space, std::uint32_t buffer, std::uint32_t partitions,
                             std::uint32_t free, DType dt = DType::fp32) {
  AccessPattern ap;
  ap.space = space;
  ap.buffer = buffer;
  ap.dtype = dt;
  ap.partitions = partitions;
  ap.ndims = 1;
  ap.dims[0] = {1, free};
  return ap;
}
inline AccessPattern sbuf(std::uint32_t buffer, std::uint32_t partitions, std::uint32_t free,
                          DType dt = DType::fp32) {
  return on_chip(MemSpace::sbuf, buffer, partitions, free, dt);
}
inline AccessPattern psum(std::uint32_t buffer, std::uint32_t partitions, std::uint32_t free) {
  return on_chip(MemSpace::psum, buffer, partitions, free, DType::fp32);
}
// Rows of a row-major HBM tensor whose rows are `row_elems` long.
inline AccessPattern hbm(std::uint32_t tensor, std::uint32_t rows, std::uint32_t row_elems,
                         DType dt = DType::fp32) {
  AccessPattern ap;
  ap.space = MemSpace::hbm;
  ap.buffer = tensor;
  ap.dtype = dt;
  ap.partitions = rows;
  ap.partition_stride = row_elems;
  ap.ndims = 1;
  ap.dims[0] = {1, row_elems};
  return ap;
}

// dst = src op0 arg0, with the optional fields left at their defaults.
inline TensorScalar tensor_scalar(AccessPattern dst, AccessPattern src, AluOp op0, ScalarArg arg0) {
  TensorScalar t;
  t.dst = dst;
  t.src = src;
  t.op0 = op0;
  t.arg0 = arg0;
  return t;
}

inline Instruction instr(Operation op, std::uint32_t line = 0) {
  Instruction i;
  i.op = std::move(op);
  i.source_line = line;
  return i;
}

// base_kernel() plus one instruction on `engine`.
inline Kernel with(Engine engine, Operation op) {
  Kernel k = base_kernel();
  k.stream(engine).push_back(instr(std::move(op), 7));
  return k;
}

inline std::string listing(const std::vector<Diagnostic>& d) {
  std::string s;
  for (const auto& x : d)
    s += x.where + ": " + x.reason + "\n";
  return s;
}

// The kernel has exactly one problem, and its reason contains `phrase`.
inline void expect_one(const Kernel& k, const std::string& phrase,
                       const params::TargetLimits& limits = trn1_limits()) {
  const auto d = check(k, limits);
  INFO(listing(d));
  REQUIRE(d.size() == 1);
  CHECK_THAT(d[0].reason, Catch::Contains(phrase));
}

inline void expect_none(const Kernel& k, const params::TargetLimits& limits = trn1_limits()) {
  const auto d = check(k, limits);
  INFO(listing(d));
  CHECK(d.empty());
}

}  // namespace validate_fixtures
