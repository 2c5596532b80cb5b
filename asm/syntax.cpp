#include "asm/syntax.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace neuronsim::isa::asm_detail {

namespace {

template <typename Op, std::size_t... J>
std::vector<Field> fields_of(std::index_sequence<J...>) {
  [[maybe_unused]] constexpr auto all = Op::fields();
  [[maybe_unused]] auto one = [](const auto& f) {
    return Field{f.key, f.syntax == FieldSyntax::operand, f.syntax == FieldSyntax::required,
                 f.depends_on};
  };
  return {one(std::get<J>(all))...};
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
