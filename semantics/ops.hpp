#pragma once
// Internal to the semantics: one run() per operation (execute_*.cpp), and the helpers
// they share for moving blocks of rows, per-partition scalars and index arithmetic.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "semantics/access.hpp"

namespace neuronsim::isa::sem {

// One run() per opcode, declared from the opcode table (isa/instruction.hpp) and defined
// in the execute_*.cpp of its family: an opcode without one is a link error. execute()
// never calls nop's, which has none.
#define NEURONSIM_SEM_RUN(name, Struct, engines, page, colour) \
  void run(const Site& s, const Struct& op);
NEURONSIM_OPCODES(NEURONSIM_SEM_RUN)
#undef NEURONSIM_SEM_RUN

// Rows [p0, p0+n) of `op` into buf, row after row (buf is resized to n * free).
template <class T>
void load_rows(const Operand& op, std::uint32_t p0, std::uint32_t n, std::vector<T>& buf) {
  const std::size_t f = op.free();
  buf.resize(n * f);
  for (std::uint32_t i = 0; i < n; ++i)
    op.load(p0 + i, buf.data() + i * f);
}
template <class T>
void store_rows(const Operand& op, std::uint32_t p0, std::uint32_t n, const std::vector<T>& buf) {
  const std::size_t f = op.free();
  for (std::uint32_t i = 0; i < n; ++i)
    op.store(p0 + i, buf.data() + i * f);
}

// Calls fn(T{}) with T the value type of the move form (RawBits, int64, float).
template <class Fn>
void with_move_form(MoveForm form, Fn&& fn) {
  switch (form) {
    case MoveForm::raw:
      fn(RawBits{});
      return;
    case MoveForm::integer:
      fn(std::int64_t{});
      return;
    case MoveForm::fp32:
      fn(float{});
      return;
  }
}

// A float constant as a value of type T bound for a dst of dtype t (rounded and
// saturated as a store into t would).
template <class T>
T constant_as(DType t, float v);
template <>
inline float constant_as<float>(DType, float v) {
  return v;
}
template <>
inline RawBits constant_as<RawBits>(DType t, float v) {
  return encode(t, v);
}
template <>
inline std::int64_t constant_as<std::int64_t>(DType t, float v) {
  const RawBits bits = encode(t, v);
  return load_int(t, &bits.bits);
}

// The per-partition values of a ScalarArg (an immediate, or a [P,1] operand).
std::vector<float> scalar_column(const Site& s, const ScalarArg& arg, std::uint32_t partitions,
                                 std::string_view field);
// The same for integer instructions: immediates must be whole numbers, operands integers.
std::vector<std::int64_t> scalar_column_int(const Site& s, const ScalarArg& arg,
                                            std::uint32_t partitions, std::string_view field);

// Fails unless the operand has an integer dtype (bitwise and shift ops need integers).
void require_integer(const Site& s, const Operand& op, AluOp why);

// sum_k i_k * steps[k] for every element of the pattern's free dims, in logical order:
// the free-axis part of iota and affine_select.
std::vector<std::int64_t> affine_free_part(const AccessPattern& ap,
                                           const std::array<std::int32_t, kMaxFreeDims>& steps);

}  // namespace neuronsim::isa::sem
