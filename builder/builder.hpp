#pragma once
// Kernels in C++: the same kernels the assembly language writes (docs/assembly.md), built
// with typed handles instead of names. Declarations return handles; handles slice into
// AccessPatterns; each engine's stream appends instructions that take waits and signals:
//
//   Builder b("tiny_add", "trn2");
//   Buffer a = b.input("a", DType::fp32, {128, 512});
//   Buffer xa = b.sbuf("xa", DType::fp32, {128, 512});
//   Sem loaded = b.semaphore("loaded");
//   Queue q = b.queue("loads", 0, 1);
//   b.sync().dma_copy(xa, a, q).signal(loaded);
//   b.vector().tensor_scalar(xa, xa, AluOp::multiply, 2.0).wait(loaded, 1);
//   Kernel k = b.build();  // places allocations without an explicit offset
//
// Bad declarations (duplicate or unprintable names, slices outside the shape) throw
// neuronsim::Error naming the buffer and the reason. Hardware rules are validation's.
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "isa/kernel.hpp"
#include "isa/view.hpp"

namespace neuronsim::isa {

class Builder;

// An HBM tensor or an SBUF/PSUM allocation, seen with a dtype. Converts to the pattern
// covering all of it, so a handle can be passed wherever an operand is expected.
class Buffer {
 public:
  Buffer() = default;

  AccessPattern all() const { return isa::slice(view_, {}); }
  operator AccessPattern() const { return all(); }  // NOLINT: a buffer is its whole pattern

  // NumPy-like indices over the shape ([partitions, free...] for SBUF/PSUM): {start, stop}
  // or {start, stop, step} ranges, plain integers (drop the axis), Ix::all() for ":".
  AccessPattern slice(Ix i0) const { return slice_n({i0}); }
  AccessPattern slice(Ix i0, Ix i1) const { return slice_n({i0, i1}); }
  AccessPattern slice(Ix i0, Ix i1, Ix i2) const { return slice_n({i0, i1, i2}); }
  AccessPattern slice(Ix i0, Ix i1, Ix i2, Ix i3) const { return slice_n({i0, i1, i2, i3}); }
  AccessPattern slice(Ix i0, Ix i1, Ix i2, Ix i3, Ix i4) const {
    return slice_n({i0, i1, i2, i3, i4});
  }
  AccessPattern slice_n(const std::vector<Ix>& indices) const;
  // The same memory as elements of `t`: the innermost axis rescales by the size ratio.
  Buffer as(DType t) const;
  // Any pattern over this buffer, field by field (dims outermost first, 1..4 of them).
  AccessPattern raw(std::uint32_t start_partition, std::uint32_t partitions,
                    std::int64_t partition_stride, std::uint64_t byte_offset,
                    const std::vector<Dim>& dims) const;

  const std::string& name() const { return view_.name; }
  DType dtype() const { return view_.dtype; }
  MemSpace space() const { return view_.space; }
  std::uint32_t index() const { return view_.buffer; }
  const std::vector<std::uint64_t>& shape() const { return view_.shape; }

 private:
  friend class Builder;
  explicit Buffer(BufferView v) : view_(std::move(v)) {}
  BufferView view_;
};

struct Sem {
  std::uint16_t index = 0;
};
struct Queue {
  std::uint16_t index = 0;
};

// An fp32 immediate (any number) or a per-partition [P,1] pattern.
struct Scalar {
  ScalarArg value;
  Scalar(double v) : value(static_cast<float>(v)) {}                 // NOLINT
  Scalar(const AccessPattern& ap) : value(ap) {}                     // NOLINT
  Scalar(const Buffer& b) : value(static_cast<AccessPattern>(b)) {}  // NOLINT
};

// The instruction just appended, for adding waits and signals (and, in the subclasses,
// optional fields). Valid until the builder is destroyed.
template <typename Self>
class Appended {
 public:
  Appended(Builder* b, Engine e, std::size_t i) : b_(b), engine_(e), index_(i) {}
  // Start only when `sem` >= value.
  Self& wait(Sem sem, std::uint32_t value);
  // When done, add `n` to `sem`.
  Self& signal(Sem sem, std::uint32_t n = 1);
  // When done, set `sem` to `value`.
  Self& signal_set(Sem sem, std::uint32_t value);
  Instruction& instruction();

 protected:
  template <typename Op>
  Op& op() {
    return std::get<Op>(instruction().op);
  }
  Self& self() { return static_cast<Self&>(*this); }

 private:
  Builder* b_;
  Engine engine_;
  std::size_t index_;
};

class InstrRef : public Appended<InstrRef> {
  using Appended::Appended;
};

class ActivationRef : public Appended<ActivationRef> {
 public:
  using Appended::Appended;
  ActivationRef& scale(Scalar s);
  ActivationRef& bias(const AccessPattern& ap);
  ActivationRef& reduce(const AccessPattern& reduce_dst);
};

class TensorScalarRef : public Appended<TensorScalarRef> {
 public:
  using Appended::Appended;
  // dst = ((src op0 arg0) op1 arg1).
  TensorScalarRef& then(AluOp op1, Scalar arg1);
  TensorScalarRef& reverse0(bool on = true);  // arg0 op0 src instead
  TensorScalarRef& reverse1(bool on = true);
  TensorScalarRef& reduce(const AccessPattern& reduce_dst, AluOp op = AluOp::add);
};

// One engine's instruction stream. Every opcode of isa/instruction.hpp has a method;
// `append` takes any operation struct as it is.
class Stream {
 public:
  Stream(Builder* b, Engine e) : b_(b), engine_(e) {}

  InstrRef append(Operation op);
  // The opcodes whose handle adds optional fields (builder.cpp).
  ActivationRef activation(const AccessPattern& dst, const AccessPattern& src, ActFunc func);
  TensorScalarRef tensor_scalar(const AccessPattern& dst, const AccessPattern& src, AluOp op0,
                                Scalar arg0);
  // The others, each its operand struct in fields() order.
  InstrRef matmul(const AccessPattern& dst, const AccessPattern& stationary,
                  const AccessPattern& moving, AccumulateFlag acc = AccumulateFlag::single,
                  MatmulPerfMode perf_mode = MatmulPerfMode::none) {
    return append(Matmul{dst, stationary, moving, acc, perf_mode});
  }
  InstrRef transpose(const AccessPattern& dst, const AccessPattern& src) {
    return append(Transpose{dst, src});
  }
  InstrRef tensor_tensor(const AccessPattern& dst, const AccessPattern& a, const AccessPattern& b,
                         AluOp op) {
    return append(TensorTensor{dst, a, b, op});
  }
  InstrRef scalar_tensor_tensor(const AccessPattern& dst, const AccessPattern& a, Scalar scalar,
                                AluOp op0, const AccessPattern& b, AluOp op1) {
    return append(ScalarTensorTensor{dst, a, b, scalar.value, op0, op1});
  }
  InstrRef tensor_reduce(const AccessPattern& dst, const AccessPattern& src, AluOp op,
                         std::uint8_t axes = 1, bool negate = false) {
    return append(TensorReduce{dst, src, op, axes, negate});
  }
  // r = (data0[i] op0 r) op1 data1[i] along the free dims from r = initial (NKI's order).
  InstrRef tensor_tensor_scan(const AccessPattern& dst, const AccessPattern& data0,
                              const AccessPattern& data1, Scalar initial, AluOp op0, AluOp op1,
                              bool reverse0 = false, bool reverse1 = false) {
    return append(TensorTensorScan{dst, data0, data1, op0, op1, reverse0, reverse1, initial.value});
  }
  InstrRef tensor_copy(const AccessPattern& dst, const AccessPattern& src) {
    return append(TensorCopy{dst, src});
  }
  // dst = 1 / src in fp32 (NKI reciprocal, Vector).
  InstrRef reciprocal(const AccessPattern& dst, const AccessPattern& src) {
    return append(Reciprocal{dst, src});
  }
  // dst[1, F] = src[0, :] op src[1, :] op ... (NKI tensor_partition_reduce, GpSimd).
  InstrRef tensor_partition_reduce(const AccessPattern& dst, const AccessPattern& src, AluOp op) {
    return append(PartitionReduce{dst, src, op});
  }
  // dst = src with each element zeroed with probability prob (NKI dropout, Vector).
  InstrRef dropout(const AccessPattern& dst, const AccessPattern& src, Scalar prob,
                   std::int32_t seed = 0) {
    return append(Dropout{dst, src, prob.value, seed});
  }
  // NKI max8 / nc_find_index8 / nc_match_replace8 (Vector): top-8 values, their indices,
  // and replacing them (dst_idx optional).
  InstrRef max8(const AccessPattern& dst, const AccessPattern& src) {
    return append(Max8{dst, src});
  }
  InstrRef find_index8(const AccessPattern& dst, const AccessPattern& data,
                       const AccessPattern& vals) {
    return append(FindIndex8{dst, data, vals});
  }
  InstrRef match_replace8(const AccessPattern& dst, const AccessPattern& data,
                          const AccessPattern& vals, float imm,
                          std::optional<AccessPattern> dst_idx = std::nullopt) {
    return append(MatchReplace8{dst, data, vals, imm, dst_idx});
  }
  // NKI quantize_mx (Vector) and nc_matmul_mx (Tensor), NeuronCore-v4+: MX quantisation to
  // packed x4 fp8 with e8m0 scales, and the matmul of two such tiles.
  InstrRef quantize_mx(const AccessPattern& dst, const AccessPattern& src,
                       const AccessPattern& dst_scale) {
    return append(QuantizeMx{dst, src, dst_scale});
  }
  InstrRef matmul_mx(const AccessPattern& dst, const AccessPattern& stationary,
                     const AccessPattern& moving, const AccessPattern& stationary_scale,
                     const AccessPattern& moving_scale,
                     AccumulateFlag acc = AccumulateFlag::single) {
    return append(MatmulMx{dst, stationary, moving, stationary_scale, moving_scale, acc});
  }
  InstrRef memset(const AccessPattern& dst, double value) { return append(Memset{dst, value}); }
  InstrRef iota(const AccessPattern& dst, std::int32_t base, std::int32_t partition_step,
                std::array<std::int32_t, kMaxFreeDims> steps = {}) {
    return append(Iota{dst, base, partition_step, Steps{steps}});
  }
  InstrRef select(const AccessPattern& dst, const AccessPattern& predicate,
                  const AccessPattern& on_true, const AccessPattern& on_false) {
    return append(Select{dst, predicate, on_true, on_false});
  }
  InstrRef affine_select(const AccessPattern& dst, const AccessPattern& src, AluOp cmp,
                         std::int32_t offset, std::int32_t partition_step,
                         std::array<std::int32_t, kMaxFreeDims> steps = {}, float fill = 0.0f) {
    return append(AffineSelect{dst, src, offset, partition_step, Steps{steps}, cmp, fill});
  }
  InstrRef bn_stats(const AccessPattern& dst, const AccessPattern& src) {
    return append(BnStats{dst, src});
  }
  InstrRef bn_aggr(const AccessPattern& dst, const AccessPattern& src) {
    return append(BnAggr{dst, src});
  }
  InstrRef dma_copy(const AccessPattern& dst, const AccessPattern& src, Queue queue,
                    bool accumulate = false, bool transpose = false,
                    std::optional<AccessPattern> src_index = std::nullopt,
                    std::optional<AccessPattern> dst_index = std::nullopt, bool oob_skip = false,
                    bool prebuilt_descriptors = false) {
    return append(DmaCopy{dst, src, queue.index, accumulate, transpose, std::move(src_index),
                          std::move(dst_index), oob_skip, prebuilt_descriptors});
  }
  InstrRef nop() { return append(Nop{}); }

 private:
  std::size_t push(Operation op);
  Builder* b_;
  Engine engine_;
};

class Builder {
 public:
  explicit Builder(std::string name, std::string target = "");

  // HBM tensors.
  Buffer hbm(const std::string& name, DType t, std::vector<std::uint64_t> shape, TensorRole role);
  Buffer input(const std::string& name, DType t, std::vector<std::uint64_t> shape);
  Buffer output(const std::string& name, DType t, std::vector<std::uint64_t> shape);
  Buffer scratch(const std::string& name, DType t, std::vector<std::uint64_t> shape);
  // Constants: every element `fill`, one value per element (row-major; each rounded to
  // the dtype, integers must be exact and in range), or the raw little-endian bytes.
  Buffer constant_fill(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                       double fill);
  Buffer constant(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                  const std::vector<double>& values);
  Buffer constant_bytes(const std::string& name, DType t, std::vector<std::uint64_t> shape,
                        std::vector<std::uint8_t> bytes);

  // SBUF/PSUM allocations; shape is [partitions, free...] as in the assembly. Without a
  // byte offset, build() places the allocation (isa/placement.hpp).
  Buffer sbuf(const std::string& name, DType t, const std::vector<std::uint32_t>& shape,
              std::uint32_t start_partition = 0,
              std::optional<std::uint32_t> byte_offset = std::nullopt);
  Buffer psum(const std::string& name, DType t, const std::vector<std::uint32_t>& shape,
              std::uint32_t start_partition = 0,
              std::optional<std::uint32_t> byte_offset = std::nullopt);

  Sem semaphore(const std::string& name, std::uint32_t initial = 0);
  Queue queue(const std::string& name, std::uint8_t first_engine = 0, std::uint8_t engines = 16);

  Stream stream(Engine e) { return Stream(this, e); }
  Stream tensor() { return stream(Engine::tensor); }
  Stream vector() { return stream(Engine::vector); }
  Stream scalar() { return stream(Engine::scalar); }
  Stream gpsimd() { return stream(Engine::gpsimd); }
  Stream sync() { return stream(Engine::sync); }

  // The kernel, with every automatic allocation placed. The builder stays usable.
  Kernel build() const;

 private:
  template <typename>
  friend class Appended;
  friend class Stream;
  void declare(const std::string& name, const char* what);
  Buffer allocation(MemSpace space, const std::string& name, DType t,
                    const std::vector<std::uint32_t>& shape, std::uint32_t start_partition,
                    std::optional<std::uint32_t> byte_offset);
  Buffer add_tensor(HbmTensor t);

  Kernel k_;  // without its streams: those are staged decoded, and encoded by build()
  // Decoded, so that an appended instruction's handle can still add waits and signals.
  std::array<std::vector<Instruction>, kEngineCount> staged_;
  std::vector<bool> fixed_;  // allocations with an explicit offset
  std::set<std::string> names_;
};

}  // namespace neuronsim::isa
