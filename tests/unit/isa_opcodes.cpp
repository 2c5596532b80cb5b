// The numbers of opcodes and of the enums instructions carry are written into NEFF
// instruction records and NTFF traces: these literals pin every one of them. A test that
// fails here means a file format changed; renumbering is never the fix.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "asm/syntax.hpp"
#include "isa/for_each_field.hpp"
#include "isa/instruction.hpp"

using namespace neuronsim::isa;

namespace {

template <typename Enum, typename Name, typename Parse>
void check_numbers(const std::vector<std::pair<std::string, int>>& pinned, int count, Name name,
                   Parse parse) {
  REQUIRE(static_cast<int>(pinned.size()) == count);
  for (const auto& [text, number] : pinned) {
    INFO(text << " = " << number);
    CHECK(name(static_cast<Enum>(number)) == text);
    const auto parsed = parse(text);
    REQUIRE(parsed.has_value());
    CHECK(static_cast<int>(*parsed) == number);
  }
}

}  // namespace

TEST_CASE("opcodes: every opcode's number is pinned", "[isa]") {
  const std::vector<std::pair<std::string, int>> pinned = {
      {"matmul", 0},
      {"transpose", 1},
      {"activation", 2},
      {"tensor_tensor", 3},
      {"tensor_scalar", 4},
      {"scalar_tensor_tensor", 5},
      {"tensor_reduce", 6},
      {"tensor_copy", 7},
      {"memset", 8},
      {"iota", 9},
      {"select", 10},
      {"affine_select", 11},
      {"bn_stats", 12},
      {"bn_aggr", 13},
      {"dma_copy", 14},
      {"nop", 15},
      {"tensor_tensor_scan", 16},
      {"reciprocal", 17},
      {"tensor_partition_reduce", 18},
      {"dropout", 19},
      {"max8", 20},
      {"find_index8", 21},
      {"match_replace8", 22},
      {"quantize_mx", 23},
      {"matmul_mx", 24},
  };
  check_numbers<Opcode>(pinned, kOpcodeCount, opcode_name, parse_opcode);
  // The enumerators themselves, and the operand struct each number decodes to.
  CHECK(static_cast<int>(Opcode::matmul) == 0);
  CHECK(static_cast<int>(Opcode::dma_copy) == 14);
  CHECK(static_cast<int>(Opcode::nop) == 15);
  CHECK(static_cast<int>(Opcode::tensor_tensor_scan) == 16);
  CHECK(static_cast<int>(Opcode::reciprocal) == 17);
  CHECK(static_cast<int>(Opcode::tensor_partition_reduce) == 18);
  CHECK(static_cast<int>(Opcode::dropout) == 19);
  CHECK(static_cast<int>(Opcode::match_replace8) == 22);
  CHECK(static_cast<int>(Opcode::quantize_mx) == 23);
  CHECK(static_cast<int>(Opcode::matmul_mx) == 24);
  for (const auto& [text, number] : pinned) {
    const Operation op = asm_detail::default_operation(static_cast<Opcode>(number));
    CHECK(static_cast<int>(op.index()) == number);
  }
  CHECK(std::holds_alternative<Matmul>(asm_detail::default_operation(Opcode::matmul)));
  CHECK(std::holds_alternative<Nop>(asm_detail::default_operation(Opcode::nop)));
}

TEST_CASE("opcodes: ALU op, activation function and accumulate flag numbers are pinned", "[isa]") {
  check_numbers<AluOp>({{"bypass", 0},
                        {"add", 1},
                        {"subtract", 2},
                        {"multiply", 3},
                        {"divide", 4},
                        {"max", 5},
                        {"min", 6},
                        {"pow", 7},
                        {"abs_max", 8},
                        {"is_equal", 9},
                        {"not_equal", 10},
                        {"is_ge", 11},
                        {"is_gt", 12},
                        {"is_le", 13},
                        {"is_lt", 14},
                        {"bitwise_and", 15},
                        {"bitwise_or", 16},
                        {"bitwise_xor", 17},
                        {"logical_shift_left", 18},
                        {"logical_shift_right", 19}},
                       kAluOpCount, alu_op_name, parse_alu_op);
  check_numbers<ActFunc>({{"copy", 0},
                          {"square", 1},
                          {"exp", 2},
                          {"log", 3},
                          {"sqrt", 4},
                          {"rsqrt", 5},
                          {"reciprocal", 6},
                          {"relu", 7},
                          {"sigmoid", 8},
                          {"tanh", 9},
                          {"gelu", 10},
                          {"gelu_apprx_tanh", 11},
                          {"silu", 12},
                          {"softplus", 13},
                          {"erf", 14},
                          {"sin", 15},
                          {"sign", 16},
                          {"abs", 17}},
                         kActFuncCount, act_func_name, parse_act_func);
  check_numbers<AccumulateFlag>({{"single", 0}, {"first", 1}, {"middle", 2}, {"last", 3}},
                                kAccumulateFlagCount, accumulate_flag_name, parse_accumulate_flag);
  check_numbers<MatmulPerfMode>({{"none", 0}, {"double_row", 1}}, kMatmulPerfModeCount,
                                matmul_perf_mode_name, parse_matmul_perf_mode);
}

TEST_CASE("opcodes: every field dependency names an optional field of the same opcode", "[isa]") {
  for (int i = 0; i < kOpcodeCount; ++i) {
    const Operation op = asm_detail::default_operation(static_cast<Opcode>(i));
    std::visit(
        [&](const auto& x) {
          for_each_field(x, [&](const auto& f, const auto&) {
            if (f.depends_on.empty()) return;
            INFO(opcode_name(static_cast<Opcode>(i))
                 << "." << f.name << " depends on " << f.depends_on);
            bool found = false, optional = false;
            for_each_field(x, [&](const auto& g, const auto& v) {
              if (g.key != f.depends_on) return;
              found = true;
              optional = !is_given(v);  // absent in the default operation: an optional
            });
            CHECK(found);
            CHECK(optional);
          });
        },
        op);
  }
}

TEST_CASE("opcodes: the assembly syntax lists each opcode's fields once, keys unique", "[isa]") {
  for (int i = 0; i < kOpcodeCount; ++i) {
    const auto& spec = asm_detail::fields(static_cast<Opcode>(i));
    for (std::size_t a = 0; a < spec.size(); ++a)
      for (std::size_t b = a + 1; b < spec.size(); ++b) {
        INFO(opcode_name(static_cast<Opcode>(i)) << ": " << spec[a].key);
        CHECK(spec[a].key != spec[b].key);
      }
  }
}
