// The assembler on arbitrary text.
#include "asm/assembler.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::isa::assemble(text, "fuzz.nasm"); });
  return 0;
}
