#include "isa/instruction.hpp"

#include <array>
#include <utility>

#include "base/name_table.hpp"
#include "isa/for_each_field.hpp"

namespace neuronsim::isa {

namespace {

constexpr auto kActFuncs = detail::make_name_table<ActFunc, kActFuncCount>(
    "copy", "square", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu", "sigmoid", "tanh",
    "gelu", "gelu_apprx_tanh", "silu", "softplus", "erf", "sin", "sign", "abs");

constexpr auto kAccFlags = detail::make_name_table<AccumulateFlag, kAccumulateFlagCount>(
    "single", "first", "middle", "last");

constexpr auto kPerfModes =
    detail::make_name_table<MatmulPerfMode, kMatmulPerfModeCount>("none", "double_row");

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
std::string_view matmul_perf_mode_name(MatmulPerfMode m) {
  return kPerfModes.name(m);
}
std::optional<MatmulPerfMode> parse_matmul_perf_mode(std::string_view s) {
  return kPerfModes.parse(s);
}
std::optional<Opcode> parse_opcode(std::string_view s) {
  for (int i = 0; i < kOpcodeCount; ++i)
    if (kOpcodeTable[i].name == s) return static_cast<Opcode>(i);
  return std::nullopt;
}

bool Instruction::operator==(const Instruction& o) const {
  if (op.index() != o.op.index()) return false;
  // Field by field, each by its kind's equality of values (FieldKind<T>::equal), skipping what
  // is not in effect (arg1 without op1 means nothing).
  const bool same_op = std::visit(
      [&](const auto& a) {
        const auto& b = std::get<std::decay_t<decltype(a)>>(o.op);
        bool same = true;
        for_each_field(a, [&](const auto& f, const auto& value) {
          using V = std::decay_t<decltype(value)>;
          if (same && in_effect(a, f)) same = FieldKind<V>::equal(value, b.*(f.member));
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
