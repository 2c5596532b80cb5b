#pragma once
// One instruction: an operation (one operand struct per opcode, in a std::variant) plus
// the semaphores it waits on before it starts and the semaphores it updates when it
// finishes (reference section 5). What an instruction does lives in semantics.hpp; how
// long it takes lives in cost_model.hpp.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/engine.hpp"

namespace neuronsim::isa {

// Vector/GpSimd ALU operations. Arithmetic runs in fp32; bitwise and shift ops are for
// integer dtypes only. Comparisons give 1.0 or 0.0. `bypass` returns its first operand.
enum class AluOp : std::uint8_t {
  bypass,
  add,
  subtract,
  multiply,
  divide,
  max,
  min,
  pow,
  abs_max,
  is_equal,
  not_equal,
  is_ge,
  is_gt,
  is_le,
  is_lt,
  bitwise_and,
  bitwise_or,
  bitwise_xor,
  logical_shift_left,
  logical_shift_right,
};
inline constexpr int kAluOpCount = 20;
std::string_view alu_op_name(AluOp op);
std::optional<AluOp> parse_alu_op(std::string_view name);
bool is_bitwise_op(AluOp op);     // bitwise and shift ops: integer dtypes only
bool is_comparison_op(AluOp op);  // is_equal .. is_lt: results 1.0 or 0.0

// Scalar engine activation functions (reference section 3).
enum class ActFunc : std::uint8_t {
  copy,
  square,
  exp,
  log,
  sqrt,
  rsqrt,
  reciprocal,
  relu,
  sigmoid,
  tanh,
  gelu,
  gelu_apprx_tanh,
  silu,
  softplus,
  erf,
  sin,
  sign,
  abs,
};
inline constexpr int kActFuncCount = 18;
std::string_view act_func_name(ActFunc f);
std::optional<ActFunc> parse_act_func(std::string_view name);

// Matmul accumulation into PSUM: `first` overwrites (starts a group), `middle` adds,
// `last` adds and closes the group; `single` is first and last at once.
enum class AccumulateFlag : std::uint8_t { single, first, middle, last };
std::string_view accumulate_flag_name(AccumulateFlag f);
std::optional<AccumulateFlag> parse_accumulate_flag(std::string_view name);

// An operand that is either an fp32 immediate or a per-partition [P,1] vector.
using ScalarArg = std::variant<float, AccessPattern>;

// dst[M,N] = stationary[K,M]^T @ moving[K,N]; K = partitions of the inputs.
struct Matmul {
  AccessPattern dst, stationary, moving;
  AccumulateFlag acc = AccumulateFlag::single;
};
// dst[F,P] = src[P,F]^T. Tensor engine (through the array, to PSUM) or Vector (<= 32x32).
struct Transpose {
  AccessPattern dst, src;
};
// dst = func(src * scale + bias); optionally reduce_dst[P,1] = sum over free of dst values.
struct Activation {
  AccessPattern dst, src;
  ActFunc func = ActFunc::copy;
  ScalarArg scale = 1.0f;
  std::optional<AccessPattern> bias;        // [P,1]
  std::optional<AccessPattern> reduce_dst;  // [P,1], add-reduction of the results
};
// dst = a op b, elementwise.
struct TensorTensor {
  AccessPattern dst, a, b;
  AluOp op = AluOp::add;
};
// dst = (src op0 arg0) op1 arg1; with reverse, the operands of that op swap.
// Optional reduce_dst[P,1] = reduce_op over free of the results.
struct TensorScalar {
  AccessPattern dst, src;
  AluOp op0 = AluOp::bypass;
  ScalarArg arg0 = 0.0f;
  bool reverse0 = false;
  std::optional<AluOp> op1;
  ScalarArg arg1 = 0.0f;
  bool reverse1 = false;
  std::optional<AccessPattern> reduce_dst;
  AluOp reduce_op = AluOp::add;
};
// dst = (a op0 scalar) op1 b.
struct ScalarTensorTensor {
  AccessPattern dst, a, b;
  ScalarArg scalar = 0.0f;
  AluOp op0 = AluOp::multiply;
  AluOp op1 = AluOp::add;
};
// Reduce the innermost `axes` free dims of src with op (add, max, min, multiply);
// dst keeps the outer dims. negate flips the sign of the result.
struct TensorReduce {
  AccessPattern dst, src;
  AluOp op = AluOp::add;
  std::uint8_t axes = 1;
  bool negate = false;
};
struct TensorCopy {
  AccessPattern dst, src;
};
struct Memset {
  AccessPattern dst;
  double value = 0.0;  // double so that every int32/uint32 value is exact
};
// dst[p, i0..i3] = base + p * partition_step + sum_k i_k * steps[k] (integer arithmetic).
struct Iota {
  AccessPattern dst;
  std::int32_t base = 0;
  std::int32_t partition_step = 0;
  std::array<std::int32_t, kMaxFreeDims> steps{};
};
// dst = predicate != 0 ? on_true : on_false, elementwise.
struct Select {
  AccessPattern dst, predicate, on_true, on_false;
};
// dst = (affine cmp 0) ? src : fill, affine = offset + p * partition_step + sum i_k*steps[k].
// Builds masks such as causal (triangular) masks.
struct AffineSelect {
  AccessPattern dst, src;
  std::int32_t offset = 0;
  std::int32_t partition_step = 0;
  std::array<std::int32_t, kMaxFreeDims> steps{};
  AluOp cmp = AluOp::is_ge;
  float fill = 0.0f;
};
// Per partition, statistics of src as NKI's bn_stats: dst holds 6 values per partition,
// (count, mean, variance*count) of the even-indexed then of the odd-indexed elements.
struct BnStats {
  AccessPattern dst, src;
};
// Aggregates (count, mean, variance*count) triples in src into dst = (mean, variance).
struct BnAggr {
  AccessPattern dst, src;
};
// DMA transfer between HBM and SBUF (or SBUF and SBUF), casting through fp32 when the
// dtypes differ; accumulate adds the source to the destination (read-add-write).
struct DmaCopy {
  AccessPattern dst, src;
  std::uint16_t queue = 0;  // index into Kernel::queues
  bool accumulate = false;
};
// Does nothing but wait and signal: a pure synchronisation point.
struct Nop {};

using Operation = std::variant<Matmul, Transpose, Activation, TensorTensor, TensorScalar,
                               ScalarTensorTensor, TensorReduce, TensorCopy, Memset, Iota, Select,
                               AffineSelect, BnStats, BnAggr, DmaCopy, Nop>;

// Opcode numbers are the variant's indices, in the order above.
enum class Opcode : std::uint8_t {
  matmul,
  transpose,
  activation,
  tensor_tensor,
  tensor_scalar,
  scalar_tensor_tensor,
  tensor_reduce,
  tensor_copy,
  memset,
  iota,
  select,
  affine_select,
  bn_stats,
  bn_aggr,
  dma_copy,
  nop,
};
inline constexpr int kOpcodeCount = 16;
static_assert(std::variant_size_v<Operation> == kOpcodeCount);
std::string_view opcode_name(Opcode op);
std::optional<Opcode> parse_opcode(std::string_view name);
// The engines that may run an opcode (bit i set = Engine(i) may run it).
std::uint32_t allowed_engines(Opcode op);

struct SemWait {
  std::uint16_t sem = 0;    // index into Kernel::semaphores
  std::uint32_t value = 0;  // wait until the semaphore's value >= value
  bool operator==(const SemWait& o) const { return sem == o.sem && value == o.value; }
};
enum class SemUpdate : std::uint8_t { increment, set };
struct SemSignal {
  std::uint16_t sem = 0;
  SemUpdate kind = SemUpdate::increment;
  std::uint32_t value = 1;  // added (increment) or stored (set)
  bool operator==(const SemSignal& o) const {
    return sem == o.sem && kind == o.kind && value == o.value;
  }
};

struct Instruction {
  Operation op;
  std::vector<SemWait> waits;
  std::vector<SemSignal> signals;
  std::uint32_t source_line = 0;  // line in the assembly source, 0 when unknown

  Opcode opcode() const { return static_cast<Opcode>(op.index()); }
  // Equality ignores source_line: the same instruction written on another line is equal.
  bool operator==(const Instruction& o) const;
  bool operator!=(const Instruction& o) const { return !(*this == o); }
};

// Every access pattern an instruction reads and writes, for validation, port modelling
// and byte accounting.
struct Operands {
  std::vector<const AccessPattern*> reads;
  std::vector<const AccessPattern*> writes;
};
Operands operands(const Instruction& instr);

}  // namespace neuronsim::isa
