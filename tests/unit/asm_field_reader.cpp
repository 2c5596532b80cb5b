// isa::FieldReader: single field values read with the assembler's syntax and names, as a
// front end that builds instructions from their parts uses it (python/core/nki_kernel.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "asm/assembler.hpp"
#include "asm/syntax.hpp"
#include "base/error.hpp"

namespace {

using namespace neuronsim::isa;

const char* kDecls =
    "kernel k\n"
    "tensor a fp32[128, 512] input\n"
    "sbuf xa fp32[128, 512]\n"
    "queue q first_engine=0 engines=16\n";

TEST_CASE("field reader sets options and operands as the assembler reads them", "[asm]") {
  const Kernel declared = assemble(kDecls, "k.nasm");
  FieldReader reader(declared, "k.nasm");
  Operation op = asm_detail::default_operation(Opcode::matmul);
  reader.read(op, "acc", "first", 7);
  CHECK(std::get<Matmul>(op).acc == AccumulateFlag::first);

  Operation copy = asm_detail::default_operation(Opcode::dma_copy);
  reader.read(copy, "dst", "xa[0:128, 0:64]", 8);
  reader.read(copy, "src", "a{ap=[[512, 128], [1, 64]], offset=0}", 8);
  reader.read(copy, "queue", "q", 8);
  const Kernel written = assemble(std::string(kDecls) +
                                      "sync:\n"
                                      "    dma_copy xa[0:128, 0:64], a{ap=[[512, 128], [1, 64]], "
                                      "offset=0}, queue=q\n",
                                  "k.nasm");
  Instruction ins;
  ins.op = copy;
  CHECK(written.stream(Engine::sync).at(0) == ins);
}

TEST_CASE("field reader errors are the assembler's, at the line given", "[asm]") {
  const Kernel declared = assemble(kDecls, "k.nasm");
  FieldReader reader(declared, "k.nasm");
  Operation op = asm_detail::default_operation(Opcode::matmul);
  CHECK_THROWS_WITH(reader.read(op, "acc", "sideways", 42),
                    Catch::StartsWith("k.nasm:42: ") && Catch::Contains("unknown accumulate flag"));
  Operation copy = asm_detail::default_operation(Opcode::dma_copy);
  CHECK_THROWS_WITH(reader.read(copy, "dst", "nowhere[0:1]", 9),
                    Catch::StartsWith("k.nasm:9: ") && Catch::Contains("unknown name 'nowhere'"));
  CHECK_THROWS_WITH(reader.read(op, "acc", "first extra", 3),
                    Catch::StartsWith("k.nasm:3: ") && Catch::Contains("after the acc of matmul"));
  CHECK_THROWS_WITH(
      reader.read(op, "queue", "q", 5),
      Catch::StartsWith("k.nasm:5: ") && Catch::Contains("matmul has no field 'queue'"));
}

}  // namespace
