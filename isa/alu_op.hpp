#pragma once
// The Vector/GpSimd ALU operations (reference section 3), one table row each: the enum,
// its count, its names and every predicate the code branches on come from the row, and
// semantics/alu.hpp's per-op dispatch (with_alu_op) is generated from the same rows. An op
// is added by adding its row; each per-op function (alu_f32_fixed, alu_f32_lanes, alu_i64)
// then fails to compile until it has the op's case.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuronsim::isa {

// What an op computes, as far as the code cares: arithmetic runs in fp32; a comparison
// gives 1.0 or 0.0; bitvec (bitwise and shift) ops take integer dtypes only and treat
// the values as bit patterns (NKI/nki.isa.tensor_scalar.html).
enum class AluKind : std::uint8_t { arithmetic, comparison, bitvec };

// Traits of an op beyond its kind (a row's third column, or'ed together).
namespace alu_trait {
inline constexpr std::uint8_t none = 0;
// tensor_reduce and a tensor_scalar reduction may fold with it (reference section 3:
// add, max, min, multiply).
inline constexpr std::uint8_t reduction = 1;
// Has an integer form (alu_i64), used when an instruction holds a bitvec op: divide and
// pow have none, so they cannot share an instruction with one.
inline constexpr std::uint8_t integer = 2;
// Has a lane-wise fp32 form (alu_f32_lanes): not pow (powf per element), not bitvec ops.
inline constexpr std::uint8_t lanes = 4;
}  // namespace alu_trait

// X(name, kind, traits): one row per op, in AluOp number order (NEFF records and
// assembly hold the numbers and names: append, never renumber; tests/unit/isa_opcodes.cpp
// pins them). `bypass` returns its first operand.
#define NEURONSIM_ALU_OPS(X)                                                            \
  X(bypass, arithmetic, alu_trait::integer | alu_trait::lanes)                          \
  X(add, arithmetic, alu_trait::reduction | alu_trait::integer | alu_trait::lanes)      \
  X(subtract, arithmetic, alu_trait::integer | alu_trait::lanes)                        \
  X(multiply, arithmetic, alu_trait::reduction | alu_trait::integer | alu_trait::lanes) \
  X(divide, arithmetic, alu_trait::lanes)                                               \
  X(max, arithmetic, alu_trait::reduction | alu_trait::integer | alu_trait::lanes)      \
  X(min, arithmetic, alu_trait::reduction | alu_trait::integer | alu_trait::lanes)      \
  X(pow, arithmetic, alu_trait::none)                                                   \
  X(abs_max, arithmetic, alu_trait::integer | alu_trait::lanes)                         \
  X(is_equal, comparison, alu_trait::integer | alu_trait::lanes)                        \
  X(not_equal, comparison, alu_trait::integer | alu_trait::lanes)                       \
  X(is_ge, comparison, alu_trait::integer | alu_trait::lanes)                           \
  X(is_gt, comparison, alu_trait::integer | alu_trait::lanes)                           \
  X(is_le, comparison, alu_trait::integer | alu_trait::lanes)                           \
  X(is_lt, comparison, alu_trait::integer | alu_trait::lanes)                           \
  X(bitwise_and, bitvec, alu_trait::integer)                                            \
  X(bitwise_or, bitvec, alu_trait::integer)                                             \
  X(bitwise_xor, bitvec, alu_trait::integer)                                            \
  X(logical_shift_left, bitvec, alu_trait::integer)                                     \
  X(logical_shift_right, bitvec, alu_trait::integer)

enum class AluOp : std::uint8_t {
#define NEURONSIM_ALU_ENUMERATOR(name, kind, traits) name,
  NEURONSIM_ALU_OPS(NEURONSIM_ALU_ENUMERATOR)
#undef NEURONSIM_ALU_ENUMERATOR
};

struct AluOpInfo {
  std::string_view name;
  AluKind kind;
  std::uint8_t traits;
};
inline constexpr AluOpInfo kAluOpTable[] = {
#define NEURONSIM_ALU_ROW(name, kind, traits) {#name, AluKind::kind, traits},
    NEURONSIM_ALU_OPS(NEURONSIM_ALU_ROW)
#undef NEURONSIM_ALU_ROW
};
inline constexpr int kAluOpCount = static_cast<int>(std::size(kAluOpTable));

constexpr const AluOpInfo& alu_op_info(AluOp op) {
  return kAluOpTable[static_cast<std::size_t>(op)];
}
// "?" for a number outside the table (a corrupt record read before it is checked).
constexpr std::string_view alu_op_name(AluOp op) {
  return static_cast<int>(op) < kAluOpCount ? alu_op_info(op).name : std::string_view("?");
}
constexpr std::optional<AluOp> parse_alu_op(std::string_view name) {
  for (int i = 0; i < kAluOpCount; ++i)
    if (kAluOpTable[i].name == name) return static_cast<AluOp>(i);
  return std::nullopt;
}
constexpr bool is_bitwise_op(AluOp op) {  // bitvec: integer dtypes only
  return alu_op_info(op).kind == AluKind::bitvec;
}
constexpr bool is_comparison_op(AluOp op) {  // is_equal .. is_lt: results 1.0 or 0.0
  return alu_op_info(op).kind == AluKind::comparison;
}
constexpr bool is_reduction_op(AluOp op) {
  return (alu_op_info(op).traits & alu_trait::reduction) != 0;
}
constexpr bool has_integer_form(AluOp op) {
  return (alu_op_info(op).traits & alu_trait::integer) != 0;
}
constexpr bool has_fp32_lanes(AluOp op) {
  return (alu_op_info(op).traits & alu_trait::lanes) != 0;
}

}  // namespace neuronsim::isa
