#include "isa/instruction.hpp"

#include <array>
#include <utility>

#include "base/name_table.hpp"
#include "isa/for_each_field.hpp"

namespace neuronsim::isa {

namespace {

constexpr auto kAluOps = detail::make_name_table<AluOp, kAluOpCount>(
    "bypass", "add", "subtract", "multiply", "divide", "max", "min", "pow", "abs_max", "is_equal",
    "not_equal", "is_ge", "is_gt", "is_le", "is_lt", "bitwise_and", "bitwise_or", "bitwise_xor",
    "logical_shift_left", "logical_shift_right");

constexpr auto kActFuncs = detail::make_name_table<ActFunc, kActFuncCount>(
    "copy", "square", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu", "sigmoid", "tanh",
    "gelu", "gelu_apprx_tanh", "silu", "softplus", "erf", "sin", "sign", "abs");

constexpr auto kAccFlags = detail::make_name_table<AccumulateFlag, kAccumulateFlagCount>(
    "single", "first", "middle", "last");

constexpr auto kOpcodes = detail::make_name_table<Opcode, kOpcodeCount>(
    "matmul", "transpose", "activation", "tensor_tensor", "tensor_scalar", "scalar_tensor_tensor",
    "tensor_reduce", "tensor_copy", "memset", "iota", "select", "affine_select", "bn_stats",
    "bn_aggr", "dma_copy", "nop");

template <std::size_t I>
void reset_to(Operation& op) {
  op.emplace<I>();
}
template <std::size_t... I>
void reset_at(Operation& op, std::size_t index, std::index_sequence<I...>) {
  static constexpr std::array<void (*)(Operation&), sizeof...(I)> kResets = {&reset_to<I>...};
  kResets[index](op);
}

}  // namespace

void reset_operation(Operation& op, Opcode opcode) {
  reset_at(op, static_cast<std::size_t>(opcode), std::make_index_sequence<kOpcodeCount>{});
}

std::string_view alu_op_name(AluOp op) {
  return kAluOps.name(op);
}
std::optional<AluOp> parse_alu_op(std::string_view s) {
  return kAluOps.parse(s);
}
bool is_bitwise_op(AluOp op) {
  switch (op) {
    case AluOp::bitwise_and:
    case AluOp::bitwise_or:
    case AluOp::bitwise_xor:
    case AluOp::logical_shift_left:
    case AluOp::logical_shift_right:
      return true;
    default:
      return false;
  }
}

bool is_comparison_op(AluOp op) {
  switch (op) {
    case AluOp::is_equal:
    case AluOp::not_equal:
    case AluOp::is_ge:
    case AluOp::is_gt:
    case AluOp::is_le:
    case AluOp::is_lt:
      return true;
    default:
      return false;
  }
}

std::string_view act_func_name(ActFunc f) {
  return kActFuncs.name(f);
}
std::optional<ActFunc> parse_act_func(std::string_view s) {
  return kActFuncs.parse(s);
}
std::string_view accumulate_flag_name(AccumulateFlag f) {
  return kAccFlags.name(f);
}
std::optional<AccumulateFlag> parse_accumulate_flag(std::string_view s) {
  return kAccFlags.parse(s);
}
std::string_view opcode_name(Opcode op) {
  return kOpcodes.name(op);
}
std::optional<Opcode> parse_opcode(std::string_view s) {
  return kOpcodes.parse(s);
}

namespace engine_sets {

constexpr std::uint32_t bit(Engine e) {
  return 1u << static_cast<int>(e);
}
constexpr std::uint32_t kAll = (1u << kEngineCount) - 1;
constexpr std::uint32_t kTensor = bit(Engine::tensor), kVector = bit(Engine::vector),
                        kScalar = bit(Engine::scalar), kGpSimd = bit(Engine::gpsimd);

// Which engines run each opcode: the NKI ISA reference, one nki.isa.* page per opcode
// (docs/isa-audit.md has the audit). One overload per operand struct and no fallback: an
// opcode added without its engines does not compile. What an engine may do beyond its
// opcode (bitvec ops on Vector only, the Scalar engine's
// tensor_scalar operator pairs, no PSUM on GpSimd) is validation's (validate_opcode.cpp).
//
// NKI/ below stands for
// https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/

// NKI/nki.isa.nc_matmul.html: "using Tensor Engine".
constexpr std::uint32_t of(const Matmul*) {
  return kTensor;
}
// NKI/nki.isa.nc_transpose.html: "using Tensor or Vector Engine".
constexpr std::uint32_t of(const Transpose*) {
  return kTensor | kVector;
}
// NKI/nki.isa.activation.html: "using Scalar Engine".
constexpr std::uint32_t of(const Activation*) {
  return kScalar;
}
// NKI/nki.isa.tensor_tensor.html: "using Vector Engine or GpSimd Engine".
constexpr std::uint32_t of(const TensorTensor*) {
  return kVector | kGpSimd;
}
// NKI/nki.isa.tensor_scalar.html: "using Vector or Scalar or GpSimd Engine", but the
// GpSimd engine only for rsqrt, an operator neuronsim's AluOp does not have.
constexpr std::uint32_t of(const TensorScalar*) {
  return kVector | kScalar;
}
// NKI/nki.isa.scalar_tensor_tensor.html: "using Vector Engine".
constexpr std::uint32_t of(const ScalarTensorTensor*) {
  return kVector;
}
// NKI/nki.isa.tensor_reduce.html: "using Vector Engine" (partition-axis reductions on
// GpSimd are nki.isa.tensor_partition_reduce, another instruction).
constexpr std::uint32_t of(const TensorReduce*) {
  return kVector;
}
// NKI/nki.isa.tensor_copy.html: "using Vector, Scalar or GpSimd Engine".
constexpr std::uint32_t of(const TensorCopy*) {
  return kVector | kScalar | kGpSimd;
}
// NKI/nki.isa.memset.html: "using Vector or GpSimd Engine".
constexpr std::uint32_t of(const Memset*) {
  return kVector | kGpSimd;
}
// NKI/nki.isa.iota.html: "using GpSimd Engine".
constexpr std::uint32_t of(const Iota*) {
  return kGpSimd;
}
// neuronsim's select (a full-tile on_false) has no page of its own; its NKI relatives
// NKI/nki.isa.select_reduce.html and NKI/nki.isa.tensor_copy_predicated.html run on the
// Vector Engine only.
constexpr std::uint32_t of(const Select*) {
  return kVector;
}
// NKI/nki.isa.affine_select.html: "using GpSimd Engine".
constexpr std::uint32_t of(const AffineSelect*) {
  return kGpSimd;
}
// NKI/nki.isa.bn_stats.html and NKI/nki.isa.bn_aggr.html: "using Vector Engine".
constexpr std::uint32_t of(const BnStats*) {
  return kVector;
}
constexpr std::uint32_t of(const BnAggr*) {
  return kVector;
}
// NKI/nki.isa.dma_copy.html names no engine: descriptors come from the runtime, the
// GpSimd engine (software DGE) or the Sync/Scalar sequencers (hardware DGE, v3+), and any
// engine's stream may start a queue (reference section 4).
constexpr std::uint32_t of(const DmaCopy*) {
  return kAll;
}
// neuronsim's semaphore-only instruction (reference section 5): every sequencer waits and
// signals.
constexpr std::uint32_t of(const Nop*) {
  return kAll;
}

template <std::size_t... I>
constexpr std::array<std::uint32_t, kOpcodeCount> table(std::index_sequence<I...>) {
  return {of(static_cast<const std::variant_alternative_t<I, Operation>*>(nullptr))...};
}
constexpr auto kTable = table(std::make_index_sequence<kOpcodeCount>{});

}  // namespace engine_sets

std::uint32_t allowed_engines(Opcode op) {
  return engine_sets::kTable[static_cast<std::size_t>(op)];
}

bool Instruction::operator==(const Instruction& o) const {
  if (op.index() != o.op.index()) return false;
  // Field by field, skipping what is not in effect (arg1 without op1 means nothing).
  const bool same_op = std::visit(
      [&](const auto& a) {
        const auto& b = std::get<std::decay_t<decltype(a)>>(o.op);
        bool same = true;
        for_each_field(a, [&](const auto& f, const auto& value) {
          if (same && in_effect(a, f)) same = value == b.*(f.member);
        });
        return same;
      },
      op);
  return same_op && waits == o.waits && signals == o.signals;
}

Operands operands(const Instruction& instr) {
  Operands r;
  for_each_access(instr, [&](const AccessPattern& ap, bool written) {
    (written ? r.writes : r.reads).push_back(&ap);
  });
  return r;
}

}  // namespace neuronsim::isa
