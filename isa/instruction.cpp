#include "isa/instruction.hpp"

#include "isa/names.hpp"

namespace neuronsim::isa {

namespace {

const detail::NameTable<AluOp, kAluOpCount> kAluOps{{"bypass",
                                                     "add",
                                                     "subtract",
                                                     "multiply",
                                                     "divide",
                                                     "max",
                                                     "min",
                                                     "pow",
                                                     "abs_max",
                                                     "is_equal",
                                                     "not_equal",
                                                     "is_ge",
                                                     "is_gt",
                                                     "is_le",
                                                     "is_lt",
                                                     "bitwise_and",
                                                     "bitwise_or",
                                                     "bitwise_xor",
                                                     "logical_shift_left",
                                                     "logical_shift_right"}};

const detail::NameTable<ActFunc, kActFuncCount> kActFuncs{
    {"copy", "square", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu", "sigmoid", "tanh",
     "gelu", "gelu_apprx_tanh", "silu", "softplus", "erf", "sin", "sign", "abs"}};

const detail::NameTable<AccumulateFlag, 4> kAccFlags{{"single", "first", "middle", "last"}};

const detail::NameTable<Opcode, kOpcodeCount> kOpcodes{
    {"matmul", "transpose", "activation", "tensor_tensor", "tensor_scalar", "scalar_tensor_tensor",
     "tensor_reduce", "tensor_copy", "memset", "iota", "select", "affine_select", "bn_stats",
     "bn_aggr", "dma_copy", "nop"}};

constexpr std::uint32_t bit(Engine e) {
  return 1u << static_cast<int>(e);
}
constexpr std::uint32_t kAllEngines = (1u << kEngineCount) - 1;

bool same_scalar(const ScalarArg& a, const ScalarArg& b) {
  return a == b;
}

}  // namespace

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

std::uint32_t allowed_engines(Opcode op) {
  // Reference section 3: which engine runs which instruction.
  switch (op) {
    case Opcode::matmul:
      return bit(Engine::tensor);
    case Opcode::transpose:
      return bit(Engine::tensor) | bit(Engine::vector);
    case Opcode::activation:
      return bit(Engine::scalar);
    case Opcode::tensor_tensor:
    case Opcode::tensor_scalar:
    case Opcode::scalar_tensor_tensor:
    case Opcode::tensor_reduce:
    case Opcode::select:
      return bit(Engine::vector) | bit(Engine::gpsimd);
    case Opcode::tensor_copy:
    case Opcode::memset:
      return bit(Engine::vector) | bit(Engine::scalar) | bit(Engine::gpsimd);
    case Opcode::iota:
      return bit(Engine::gpsimd) | bit(Engine::vector);
    case Opcode::affine_select:
      return bit(Engine::gpsimd);
    case Opcode::bn_stats:
    case Opcode::bn_aggr:
      return bit(Engine::vector);
    case Opcode::dma_copy:
    case Opcode::nop:
      return kAllEngines;
  }
  return 0;
}

namespace {

// Field-by-field equality of the operand structs.
struct OpEqual {
  bool operator()(const Matmul& a, const Matmul& b) const {
    return a.dst == b.dst && a.stationary == b.stationary && a.moving == b.moving && a.acc == b.acc;
  }
  bool operator()(const Transpose& a, const Transpose& b) const {
    return a.dst == b.dst && a.src == b.src;
  }
  bool operator()(const Activation& a, const Activation& b) const {
    return a.dst == b.dst && a.src == b.src && a.func == b.func && same_scalar(a.scale, b.scale) &&
           a.bias == b.bias && a.reduce_dst == b.reduce_dst;
  }
  bool operator()(const TensorTensor& a, const TensorTensor& b) const {
    return a.dst == b.dst && a.a == b.a && a.b == b.b && a.op == b.op;
  }
  bool operator()(const TensorScalar& a, const TensorScalar& b) const {
    return a.dst == b.dst && a.src == b.src && a.op0 == b.op0 && same_scalar(a.arg0, b.arg0) &&
           a.reverse0 == b.reverse0 && a.op1 == b.op1 &&
           (!a.op1 || (same_scalar(a.arg1, b.arg1) && a.reverse1 == b.reverse1)) &&
           a.reduce_dst == b.reduce_dst && (!a.reduce_dst || a.reduce_op == b.reduce_op);
  }
  bool operator()(const ScalarTensorTensor& a, const ScalarTensorTensor& b) const {
    return a.dst == b.dst && a.a == b.a && a.b == b.b && same_scalar(a.scalar, b.scalar) &&
           a.op0 == b.op0 && a.op1 == b.op1;
  }
  bool operator()(const TensorReduce& a, const TensorReduce& b) const {
    return a.dst == b.dst && a.src == b.src && a.op == b.op && a.axes == b.axes &&
           a.negate == b.negate;
  }
  bool operator()(const TensorCopy& a, const TensorCopy& b) const {
    return a.dst == b.dst && a.src == b.src;
  }
  bool operator()(const Memset& a, const Memset& b) const {
    return a.dst == b.dst && a.value == b.value;
  }
  bool operator()(const Iota& a, const Iota& b) const {
    return a.dst == b.dst && a.base == b.base && a.partition_step == b.partition_step &&
           a.steps == b.steps;
  }
  bool operator()(const Select& a, const Select& b) const {
    return a.dst == b.dst && a.predicate == b.predicate && a.on_true == b.on_true &&
           a.on_false == b.on_false;
  }
  bool operator()(const AffineSelect& a, const AffineSelect& b) const {
    return a.dst == b.dst && a.src == b.src && a.offset == b.offset &&
           a.partition_step == b.partition_step && a.steps == b.steps && a.cmp == b.cmp &&
           a.fill == b.fill;
  }
  bool operator()(const BnStats& a, const BnStats& b) const {
    return a.dst == b.dst && a.src == b.src;
  }
  bool operator()(const BnAggr& a, const BnAggr& b) const {
    return a.dst == b.dst && a.src == b.src;
  }
  bool operator()(const DmaCopy& a, const DmaCopy& b) const {
    return a.dst == b.dst && a.src == b.src && a.queue == b.queue && a.accumulate == b.accumulate;
  }
  bool operator()(const Nop&, const Nop&) const { return true; }
  template <typename A, typename B>
  bool operator()(const A&, const B&) const {
    return false;
  }
};

void add_scalar(std::vector<const AccessPattern*>& v, const ScalarArg& s) {
  if (auto* ap = std::get_if<AccessPattern>(&s)) v.push_back(ap);
}

}  // namespace

bool Instruction::operator==(const Instruction& o) const {
  return std::visit(OpEqual{}, op, o.op) && waits == o.waits && signals == o.signals;
}

Operands operands(const Instruction& instr) {
  Operands r;
  auto& rd = r.reads;
  auto& wr = r.writes;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Matmul>) {
          rd = {&x.stationary, &x.moving};
          wr = {&x.dst};
          // Accumulating groups read the partial sums they add to.
          if (x.acc == AccumulateFlag::middle || x.acc == AccumulateFlag::last)
            rd.push_back(&x.dst);
        } else if constexpr (std::is_same_v<T, Activation>) {
          rd = {&x.src};
          add_scalar(rd, x.scale);
          if (x.bias) rd.push_back(&*x.bias);
          wr = {&x.dst};
          if (x.reduce_dst) wr.push_back(&*x.reduce_dst);
        } else if constexpr (std::is_same_v<T, TensorTensor>) {
          rd = {&x.a, &x.b};
          wr = {&x.dst};
        } else if constexpr (std::is_same_v<T, TensorScalar>) {
          rd = {&x.src};
          add_scalar(rd, x.arg0);
          if (x.op1) add_scalar(rd, x.arg1);
          wr = {&x.dst};
          if (x.reduce_dst) wr.push_back(&*x.reduce_dst);
        } else if constexpr (std::is_same_v<T, ScalarTensorTensor>) {
          rd = {&x.a, &x.b};
          add_scalar(rd, x.scalar);
          wr = {&x.dst};
        } else if constexpr (std::is_same_v<T, Memset> || std::is_same_v<T, Iota>) {
          wr = {&x.dst};
        } else if constexpr (std::is_same_v<T, Select>) {
          rd = {&x.predicate, &x.on_true, &x.on_false};
          wr = {&x.dst};
        } else if constexpr (std::is_same_v<T, DmaCopy>) {
          rd = {&x.src};
          if (x.accumulate) rd.push_back(&x.dst);
          wr = {&x.dst};
        } else if constexpr (std::is_same_v<T, Nop>) {
        } else {
          // Transpose, TensorReduce, TensorCopy, AffineSelect, BnStats, BnAggr: dst <- src.
          rd = {&x.src};
          wr = {&x.dst};
        }
      },
      instr.op);
  return r;
}

}  // namespace neuronsim::isa
