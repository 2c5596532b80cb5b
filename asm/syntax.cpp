#include "asm/syntax.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace neuronsim::isa::asm_detail {

namespace {

using K = FieldKind;

// The assembly kind of a field's C++ type; a type without one does not compile.
template <typename T>
constexpr FieldKind kind_of() {
  if constexpr (std::is_same_v<T, AccessPattern>) {
    return K::pattern;
  } else if constexpr (std::is_same_v<T, std::optional<AccessPattern>>) {
    return K::opt_pattern;
  } else if constexpr (std::is_same_v<T, ScalarArg>) {
    return K::scalar;
  } else if constexpr (std::is_same_v<T, float>) {
    return K::f32;
  } else if constexpr (std::is_same_v<T, double>) {
    return K::f64;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return K::i32;
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return K::u8;
  } else if constexpr (std::is_same_v<T, bool>) {
    return K::boolean;
  } else if constexpr (std::is_same_v<T, AluOp>) {
    return K::alu;
  } else if constexpr (std::is_same_v<T, std::optional<AluOp>>) {
    return K::opt_alu;
  } else if constexpr (std::is_same_v<T, ActFunc>) {
    return K::act;
  } else if constexpr (std::is_same_v<T, AccumulateFlag>) {
    return K::acc;
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    return K::queue;
  } else if constexpr (std::is_same_v<T, std::array<std::int32_t, kMaxFreeDims>>) {
    return K::steps;
  } else {
    static_assert(sizeof(T) == 0, "no assembly syntax for this field type");
  }
}

// The address of field J of operation struct Op, inside an Operation holding an Op.
template <typename Op, std::size_t J>
void* field_address(Operation& o) {
  constexpr auto f = std::get<J>(Op::fields());
  return &(std::get<Op>(o).*(f.member));
}

template <typename Op, std::size_t... J>
std::vector<Field> fields_of(std::index_sequence<J...>) {
  [[maybe_unused]] constexpr auto all = Op::fields();
  [[maybe_unused]] auto one = [](const auto& f, void* (*get)(Operation&)) {
    using V = typename std::decay_t<decltype(f)>::Value;
    return Field{f.key,
                 kind_of<V>(),
                 f.syntax == FieldSyntax::operand,
                 f.syntax == FieldSyntax::required,
                 f.depends_on,
                 get};
  };
  return {one(std::get<J>(all), &field_address<Op, J>)...};
}

template <std::size_t... I>
std::array<std::vector<Field>, kOpcodeCount> make_table(std::index_sequence<I...>) {
  return {fields_of<std::variant_alternative_t<I, Operation>>(
      std::make_index_sequence<
          std::tuple_size_v<decltype(std::variant_alternative_t<I, Operation>::fields())>>{})...};
}

template <std::size_t... I>
Operation make_default(std::size_t index, std::index_sequence<I...>) {
  Operation result;
  ((index == I ? (result = Operation(std::in_place_index<I>), 0) : 0), ...);
  return result;
}

}  // namespace

const std::vector<Field>& fields(Opcode op) {
  static const auto table = make_table(std::make_index_sequence<kOpcodeCount>{});
  return table[static_cast<int>(op)];
}

Operation default_operation(Opcode op) {
  return make_default(static_cast<std::size_t>(op),
                      std::make_index_sequence<std::variant_size_v<Operation>>{});
}

}  // namespace neuronsim::isa::asm_detail
