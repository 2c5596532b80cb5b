#pragma once
// One field of an instruction's operand struct, described once (instruction.hpp, each
// struct's fields()): its name, what it does to memory, how the assembly language writes
// it. Everything per-field derives from these descriptions: the patterns an instruction
// reads and writes (isa::operands), the roles validation names, the N and the streamed
// tensors of the cost model, the assembly syntax, the NEFF record layout and equality.
#include <cstdint>
#include <string_view>

namespace neuronsim::isa {

// What a field does to memory.
enum class FieldUse : std::uint8_t {
  read,          // a full-size tensor the instruction reads; it streams through the datapath
  write,         // a full-size tensor it writes; streams too
  read_column,   // a [P,1] per-partition vector read once per partition (scale, bias, arg0)
  write_column,  // a [P,1] per-partition vector written once per partition (reduce_dst)
  setting,       // no memory: an immediate, an enum, a flag, a queue index
};

// How the assembly language writes a field (docs/assembly.md).
enum class FieldSyntax : std::uint8_t {
  operand,   // positional, always given
  required,  // key=value, must be given
  optional,  // key=value, defaults to the struct's default member value
};

template <typename Op, typename T>
struct OperandField {
  using Owner = Op;
  using Value = T;

  std::string_view name;  // the member's name: validation roles, NEFF error messages
  std::string_view key;   // the assembly option key (the name unless renamed)
  FieldUse use = FieldUse::setting;
  FieldSyntax syntax = FieldSyntax::optional;
  // Key of the optional field this one means something only with (arg1 needs op1): absent
  // that field, this one is neither printed, compared, read, nor named to validation.
  std::string_view depends_on;
  bool is_n = false;  // the tensor whose free size is N of the cost formulas
  T Op::*member = nullptr;
  // A written tensor that is also read when this says so (accumulation into dst).
  bool (*also_read)(const Op&) = nullptr;

  constexpr OperandField required() const {
    OperandField f = *this;
    f.syntax = FieldSyntax::required;
    return f;
  }
  constexpr OperandField key_is(std::string_view k) const {
    OperandField f = *this;
    f.key = k;
    return f;
  }
  constexpr OperandField only_with(std::string_view k) const {
    OperandField f = *this;
    f.depends_on = k;
    return f;
  }
  constexpr OperandField sets_n() const {
    OperandField f = *this;
    f.is_n = true;
    return f;
  }
  constexpr OperandField read_when(bool (*pred)(const Op&)) const {
    OperandField f = *this;
    f.also_read = pred;
    return f;
  }
};

namespace field {

// A positional tensor the instruction reads.
template <typename Op, typename T>
constexpr OperandField<Op, T> in(std::string_view name, T Op::*m) {
  return {name, name, FieldUse::read, FieldSyntax::operand, {}, false, m, nullptr};
}
// A positional tensor the instruction writes.
template <typename Op, typename T>
constexpr OperandField<Op, T> out(std::string_view name, T Op::*m) {
  return {name, name, FieldUse::write, FieldSyntax::operand, {}, false, m, nullptr};
}
// An optional [P,1] vector read per partition (a ScalarArg or an optional pattern).
template <typename Op, typename T>
constexpr OperandField<Op, T> column(std::string_view name, T Op::*m) {
  return {name, name, FieldUse::read_column, FieldSyntax::optional, {}, false, m, nullptr};
}
// An optional [P,1] vector written per partition.
template <typename Op, typename T>
constexpr OperandField<Op, T> column_out(std::string_view name, T Op::*m) {
  return {name, name, FieldUse::write_column, FieldSyntax::optional, {}, false, m, nullptr};
}
// An optional setting: no memory.
template <typename Op, typename T>
constexpr OperandField<Op, T> setting(std::string_view name, T Op::*m) {
  return {name, name, FieldUse::setting, FieldSyntax::optional, {}, false, m, nullptr};
}

}  // namespace field

}  // namespace neuronsim::isa
