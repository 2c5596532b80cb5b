#pragma once
// Walking the fields() of an operand struct (instruction.hpp, operand_field.hpp): the one
// way per-field code (operands, validation roles, cost operands, assembly, NEFF codec,
// equality) reaches an instruction's members.
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "isa/field_kind.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::isa {

// Calls fn(field, value) for every field of `op`, in fields() order. With a const op the
// values are const.
template <typename Op, typename Fn>
void for_each_field(Op& op, Fn&& fn) {
  using T = std::remove_const_t<Op>;
  std::apply([&](const auto&... f) { (fn(f, op.*(f.member)), ...); }, T::fields());
}

// Fields of kind T hold a memory pattern (an operand), all other kinds are settings.
template <typename T>
inline constexpr bool holds_pattern_v = FieldKind<T>::holds_pattern;

// The pattern a field value holds, or nullptr (an absent optional, an immediate).
template <typename T>
const AccessPattern* pattern_of(const T& v) {
  return FieldKind<T>::pattern(v);
}

// An optional value is given when it holds one; everything else always is.
template <typename T>
bool is_given(const T& v) {
  return FieldKind<T>::given(v);
}

// Whether `f` means something in `op`: always, unless it depends on an optional field
// that is absent (tensor_scalar's arg1 without op1).
template <typename Op, typename F>
bool in_effect(const Op& op, const F& f) {
  if (f.depends_on.empty()) return true;
  bool given = false;
  for_each_field(op, [&](const auto& g, const auto& v) {
    if (g.key == f.depends_on) given = is_given(v);
  });
  return given;
}

// Calls fn(field, pattern) for every pattern `op` holds that is in effect.
template <typename Op, typename Fn>
void for_each_pattern(const Op& op, Fn&& fn) {
  for_each_field(op, [&](const auto& f, const auto& v) {
    using V = std::decay_t<decltype(v)>;
    if constexpr (holds_pattern_v<V>) {
      if (const AccessPattern* ap = pattern_of(v); ap && in_effect(op, f)) fn(f, *ap);
    }
  });
}

// Calls fn(pattern, written) for every memory operand of `instr`, without allocating: the
// fields in order (written ones with written = true), then an accumulating destination
// once more as a read. operands() lists the same patterns in the same order.
template <typename Fn>
void for_each_access(const Instruction& instr, Fn&& fn) {
  std::visit(
      [&](const auto& op) {
        auto is_write = [](const auto& f) {
          return f.use == FieldUse::write || f.use == FieldUse::write_column;
        };
        for_each_pattern(op, [&](const auto& f, const AccessPattern& ap) { fn(ap, is_write(f)); });
        for_each_pattern(op, [&](const auto& f, const AccessPattern& ap) {
          if (is_write(f) && f.also_read && f.also_read(op)) fn(ap, false);
        });
      },
      instr.op);
}

// --- Checks on every description, at compile time.

template <typename Op>
constexpr bool fields_consistent() {
  bool ok = true;
  std::size_t n_fields = 0;
  std::apply(
      [&](const auto&... f) {
        [[maybe_unused]] auto check = [&](const auto& one) {
          using V = typename std::decay_t<decltype(one)>::Value;
          // Every field is of one of the kinds (field_kind.hpp).
          static_assert(is_field_kind<V>(FieldKinds{}), "a field of a type that is no FieldKind");
          // A pattern reads or writes memory; a setting holds none.
          ok = ok && ((one.use == FieldUse::setting) != holds_pattern_v<V>);
          // Positional operands are whole tensors.
          ok = ok && (one.syntax != FieldSyntax::operand ||
                      (std::is_same_v<V, AccessPattern> &&
                       (one.use == FieldUse::read || one.use == FieldUse::write)));
          // N is a tensor's free size.
          ok = ok && (!one.is_n || std::is_same_v<V, AccessPattern>);
          n_fields += one.is_n ? 1 : 0;
        };
        (check(f), ...);
      },
      Op::fields());
  // Every instruction that touches memory has exactly one N.
  return ok && n_fields == (std::tuple_size_v<decltype(Op::fields())> == 0 ? 0 : 1);
}

template <std::size_t... I>
constexpr bool all_fields_consistent(std::index_sequence<I...>) {
  return (fields_consistent<std::variant_alternative_t<I, Operation>>() && ...);
}
static_assert(all_fields_consistent(std::make_index_sequence<std::variant_size_v<Operation>>{}),
              "an operand struct's fields() is inconsistent (see fields_consistent)");

}  // namespace neuronsim::isa
