#pragma once
// Internal to the semantics: one run() per operation (semantics_*.cpp), and the helpers
// they share for moving blocks of rows, per-partition scalars and index arithmetic.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "semantics/access.hpp"

namespace neuronsim::isa::sem {

void run(const Site& s, const Matmul& op);              // semantics_tensor.cpp
void run(const Site& s, const Transpose& op);           // semantics_tensor.cpp
void run(const Site& s, const Activation& op);          // semantics_activation.cpp
void run(const Site& s, const TensorTensor& op);        // semantics_vector.cpp
void run(const Site& s, const TensorScalar& op);        // semantics_vector.cpp
void run(const Site& s, const ScalarTensorTensor& op);  // semantics_vector.cpp
void run(const Site& s, const TensorTensorScan& op);    // semantics_vector.cpp
void run(const Site& s, const TensorReduce& op);        // semantics_stats.cpp
void run(const Site& s, const BnStats& op);             // semantics_stats.cpp
void run(const Site& s, const BnAggr& op);              // semantics_stats.cpp
void run(const Site& s, const TensorCopy& op);          // semantics_move.cpp
void run(const Site& s, const Memset& op);              // semantics_move.cpp
void run(const Site& s, const Iota& op);                // semantics_move.cpp
void run(const Site& s, const Select& op);              // semantics_move.cpp
void run(const Site& s, const AffineSelect& op);        // semantics_move.cpp
void run(const Site& s, const DmaCopy& op);             // semantics_move.cpp
void run(const Site& s, const Reciprocal& op);          // execute_vector.cpp
void run(const Site& s, const PartitionReduce& op);     // execute_stats.cpp
void run(const Site& s, const Dropout& op);             // execute_dropout.cpp
void run(const Site& s, const Max8& op);                // execute_top8.cpp
void run(const Site& s, const FindIndex8& op);          // execute_top8.cpp
void run(const Site& s, const MatchReplace8& op);       // execute_top8.cpp

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
