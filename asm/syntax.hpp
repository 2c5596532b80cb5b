#pragma once
// The operands and options of every opcode in the assembly language, as one table read by
// both the assembler and the printer, so the two cannot disagree. Generated from each
// operand struct's fields() (instruction.hpp): positional operands are access patterns;
// everything else is a `key=value` option.
#include <string_view>
#include <vector>

#include "isa/instruction.hpp"

namespace neuronsim::isa::asm_detail {

enum class FieldKind {
  pattern,      // AccessPattern
  opt_pattern,  // std::optional<AccessPattern>
  scalar,       // ScalarArg: a number or a [P,1] pattern
  f32,          // float
  f64,          // double
  i32,          // std::int32_t
  u8,           // std::uint8_t
  boolean,      // bool: true / false
  alu,          // AluOp
  opt_alu,      // std::optional<AluOp>
  act,          // ActFunc
  acc,          // AccumulateFlag
  queue,        // std::uint16_t index of Kernel::queues, written as the queue's name
  steps,        // std::array<std::int32_t, kMaxFreeDims>, written as a list
};

struct Field {
  std::string_view key;  // option key, or the operand's name in messages
  FieldKind kind;
  bool positional;
  bool required;                // options only: must be given (positionals always are)
  std::string_view depends_on;  // option that must be given for this one to mean anything
  void* (*get)(Operation& op);
};

const std::vector<Field>& fields(Opcode op);
// A default-constructed operation of the opcode's type.
Operation default_operation(Opcode op);

}  // namespace neuronsim::isa::asm_detail
