#pragma once
// The operands and options of every opcode in the assembly language, as one table read by
// both the assembler and the printer, so the two cannot disagree. Generated from each
// operand struct's fields() (instruction.hpp): positional operands are access patterns;
// everything else is a `key=value` option. How each kind of field is written is
// field_syntax.hpp's.
#include <string_view>
#include <vector>

#include "isa/instruction.hpp"

namespace neuronsim::isa::asm_detail {

struct Field {
  std::string_view key;  // option key, or the operand's name in messages
  bool positional;
  bool required;                // options only: must be given (positionals always are)
  std::string_view depends_on;  // option that must be given for this one to mean anything
};

const std::vector<Field>& fields(Opcode op);
// A default-constructed operation of the opcode's type.
Operation default_operation(Opcode op);

// What a declared name stands for.
enum class NameKind { tensor, allocation, semaphore, queue, source };

}  // namespace neuronsim::isa::asm_detail
