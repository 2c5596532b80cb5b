// One test per class of assembly error: each names the file and line and says why.
#include <catch2/catch.hpp>

#include <string>

#include "asm/assembler.hpp"
#include "base/error.hpp"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using neuronsim::isa::assemble;

// Lines 1-6 declare one of everything; the text under test starts on line 7.
const std::string kPrelude =
    "kernel k target=trn2\n"
    "tensor a fp32[128, 512] input\n"
    "tensor h fp32[2, 2, 2, 2, 2, 2] input\n"
    "sbuf xa fp32[128, 512]\n"
    "sem s = 0\n"
    "queue q first_engine=0 engines=1\n";

void require_error(const std::string& body, int line, const std::string& reason) {
  INFO(body);
  REQUIRE_THROWS_WITH(assemble(kPrelude + body, "bad.nasm"),
                      StartsWith("bad.nasm:" + std::to_string(line) + ": ") && Contains(reason));
}

}  // namespace

TEST_CASE("asm: error unknown opcode", "[asm]") {
  require_error("vector:\n    tensor_tenser xa, xa, xa, op=add\n", 8,
                "unknown opcode 'tensor_tenser'");
}

TEST_CASE("asm: error unknown name", "[asm]") {
  require_error("vector:\n    tensor_copy xa, xb\n", 8, "unknown name 'xb'");
  require_error("vector:\n    nop  wait t>=1\n", 8, "unknown name 't'");
}

TEST_CASE("asm: error name of the wrong kind", "[asm]") {
  require_error("vector:\n    tensor_copy xa, s\n", 8,
                "'s' is a semaphore, not a tensor or allocation");
  require_error("vector:\n    nop  signal xa\n", 8, "'xa' is an allocation, not a semaphore");
  require_error("sync:\n    dma_copy xa, a, queue=s\n", 8, "'s' is a semaphore, not a queue");
}

TEST_CASE("asm: error unknown dtype", "[asm]") {
  require_error("sbuf xb fp33[128, 4]\n", 7, "unknown dtype 'fp33'");
  require_error("vector:\n    tensor_copy xa.bf17, xa\n", 8, "unknown dtype 'bf17'");
}

TEST_CASE("asm: error unknown option key", "[asm]") {
  require_error("vector:\n    tensor_tensor xa, xa, xa, op=add, mode=fast\n", 8,
                "unknown option 'mode' for tensor_tensor (expected op)");
  require_error("queue q2 engine=1\n", 7, "unknown option 'engine' for queue");
  require_error("vector:\n    tensor_copy xa{ap=[[0, 1], [1, 1]], stride=4}, xa\n", 8,
                "unknown raw pattern field 'stride'");
}

TEST_CASE("asm: error unknown enum value", "[asm]") {
  require_error("vector:\n    tensor_tensor xa, xa, xa, op=plus\n", 8, "unknown ALU op 'plus'");
  require_error("scalar:\n    activation xa, xa, func=swish\n", 8,
                "unknown activation function 'swish'");
  require_error("tensor w fp32[4] weights\n", 7, "unknown role 'weights'");
}

TEST_CASE("asm: error duplicate names and options", "[asm]") {
  require_error("sbuf a fp32[128, 4]\n", 7, "duplicate name 'a' (first declared on line 2)");
  require_error("sem xa\n", 7, "duplicate name 'xa' (first declared on line 4)");
  require_error("vector:\n    tensor_tensor xa, xa, xa, op=add, op=max\n", 8,
                "option 'op' given twice");
  require_error("sbuf inf fp32[1, 1]\n", 7, "'inf' is a reserved word");
}

TEST_CASE("asm: error malformed number", "[asm]") {
  require_error("sbuf xb fp32[128, 12x]\n", 7, "malformed integer '12x'");
  require_error("vector:\n    memset xa, value=1.5.2\n", 8, "malformed number '1.5.2'");
  require_error("vector:\n    tensor_scalar xa, xa, op0=add, arg0=1e999\n", 8,
                "malformed number '1e999'");
}

TEST_CASE("asm: error number out of range for its field", "[asm]") {
  require_error("queue q2 engines=300\n", 7, "engines 300 out of range (0..255)");
  require_error("sem t = -1\n", 7, "out of range");
  require_error("tensor c int8[2] constant = [1, 200]\n", 7, "value 200 out of range for int8");
  require_error("tensor c int32[2] constant = 1.5\n", 7, "'1.5' is not an integer");
}

TEST_CASE("asm: error slice out of the declared shape", "[asm]") {
  require_error("vector:\n    tensor_copy xa[0:128, 0:600], xa\n", 8,
                "slice 0:600 out of range for axis 1 of 'xa' (size 512)");
  require_error("vector:\n    tensor_copy xa[128, :], xa\n", 8,
                "index 128 out of range for axis 0 of 'xa' (size 128)");
  require_error("vector:\n    tensor_copy xa[0:0], xa\n", 8, "empty slice 0:0");
  require_error("vector:\n    tensor_copy xa[0:64:2], xa\n", 8,
                "partition axis of 'xa' takes no step");
  require_error("vector:\n    tensor_copy xa[:, 0:8:0], xa\n", 8, "a step 0 out of range");
}

TEST_CASE("asm: error too many indices or dims", "[asm]") {
  require_error("vector:\n    tensor_copy xa[0, 0, 0], xa\n", 8,
                "too many indices for 'xa': 3 given, it has 2 axes");
  require_error("sync:\n    dma_copy xa, h, queue=q\n", 8,
                "too many free dims for 'h': 5 (at most 4)");
  require_error(
      "vector:\n    tensor_copy xa{ap=[[0, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1]]}, xa\n", 8,
      "too many dims");
}

TEST_CASE("asm: error dtype view that does not fit", "[asm]") {
  require_error("sbuf odd bf16[128, 3]\nvector:\n    tensor_copy odd.fp32, odd\n", 9,
                "cannot view 'odd' as fp32: its innermost axis holds 6 bytes");
}

TEST_CASE("asm: error missing and extra operands", "[asm]") {
  require_error("vector:\n    tensor_tensor xa, xa, op=add\n", 8,
                "missing operand: tensor_tensor takes 3 (dst, a, b), got 2");
  require_error("vector:\n    tensor_copy xa, xa, xa\n", 8, "too many operands for tensor_copy");
  require_error("vector:\n    tensor_copy xa,\n", 8, "expected src of tensor_copy");
  require_error("vector:\n    tensor_tensor op=add, xa, xa, xa\n", 8, "operand after options");
}

TEST_CASE("asm: error missing or dependent option", "[asm]") {
  require_error("vector:\n    tensor_tensor xa, xa, xa\n", 8,
                "missing option: tensor_tensor needs op=");
  require_error("sync:\n    dma_copy xa, a\n", 8, "missing option: dma_copy needs queue=");
  require_error("vector:\n    tensor_scalar xa, xa, op0=add, arg0=1, arg1=2\n", 8,
                "option 'arg1' of tensor_scalar needs 'op1'");
}

TEST_CASE("asm: error instruction outside an engine section", "[asm]") {
  require_error("tensor_copy xa, xa\n", 7, "instruction 'tensor_copy' outside an engine section");
}

TEST_CASE("asm: error unknown engine section", "[asm]") {
  require_error("dma:\n", 7, "unknown engine section 'dma'");
}

TEST_CASE("asm: error kernel statement missing or repeated", "[asm]") {
  REQUIRE_THROWS_WITH(
      assemble("sem s\n", "bad.nasm"),
      StartsWith("bad.nasm:1: ") && Contains("the first statement must be 'kernel NAME'"));
  REQUIRE_THROWS_WITH(
      assemble("# nothing\n", "bad.nasm"),
      StartsWith("bad.nasm:1: ") && Contains("missing the 'kernel NAME' statement"));
  require_error("kernel again\n", 7, "second 'kernel' statement");
}

TEST_CASE("asm: error constant values", "[asm]") {
  require_error("tensor c fp32[4] constant = [1, 2, 3]\n", 7,
                "constant 'c' has 3 values but its shape holds 4");
  require_error("tensor c fp32[4] constant\n", 7, "constant 'c' needs a value");
  require_error("tensor c fp32[4] input = 0\n", 7, "only constant tensors take a value");
  require_error("tensor c bf16[1] constant = bits 0x12345\n", 7, "0x12345 does not fit in 16 bits");
}

TEST_CASE("asm: error stray tokens", "[asm]") {
  require_error("vector:\n    nop  wait s>=1 ;\n", 8, "unexpected character ';'");
  require_error("vector:\n    nop  wait s>=1 extra\n", 8, "unexpected 'extra' after nop");
  require_error("vector:\n    nop  wait s=1\n", 8, "expected '>='");
  require_error("kernel \"open\n", 7, "unterminated string");
}

TEST_CASE("asm: error messages carry the column", "[asm]") {
  REQUIRE_THROWS_WITH(assemble(kPrelude + "vector:\n    tensor_copy xa, xq\n", "bad.nasm"),
                      Contains("unknown name 'xq' (column 21)"));
}

TEST_CASE("asm: assemble_file names the missing file", "[asm]") {
  REQUIRE_THROWS_WITH(neuronsim::isa::assemble_file("/nonexistent/k.nasm"),
                      Contains("/nonexistent/k.nasm"));
}
