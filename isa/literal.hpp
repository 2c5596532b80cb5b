#pragma once
// Numbers as text, shared by the assembler, the printer, the builder and the traces:
// integer and float literals read exactly, floats printed in the shortest text that reads
// back bit-exact, and the initial values of constant tensors (docs/assembly.md,
// "Constants").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/dtype.hpp"

namespace neuronsim::isa {

// Literal text (without a leading '-', given separately) -> value. nullopt when malformed.
// Integers: decimal or 0x hex. Floats: decimal, hex float, inf, nan.
std::optional<std::int64_t> parse_int_literal(std::string_view text, bool negative);
std::optional<float> parse_float_literal(std::string_view text, bool negative);
std::optional<double> parse_double_literal(std::string_view text, bool negative);

// Shortest decimal text that parses back to the same bits ("inf", "-inf", "nan" too).
std::string format_float(float v);
std::string format_double(double v);

// One element of a constant as written: its text and sign. Encoded according to the
// tensor's dtype: float dtypes round the value to nearest even, integer dtypes require an
// integer in range. Returns the reason when the literal does not fit.
struct Literal {
  std::string text;
  bool negative = false;
};
std::optional<std::string> encode_literal(DType t, const Literal& lit, std::uint8_t* out);
// Raw bits of one element (the `bits` form), little-endian; the value must fit the size.
std::optional<std::string> encode_bits(DType t, std::uint64_t bits, std::uint8_t* out);

// The text after `=` of a constant's declaration that reproduces `data` exactly: a fill
// value, a list, or the `bits` forms when a value would not read back bit-exact.
std::string format_constant(DType t, const std::vector<std::uint8_t>& data);

}  // namespace neuronsim::isa
