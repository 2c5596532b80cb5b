// Placement of allocations without an explicit offset (isa/placement.hpp).
#include <catch2/catch.hpp>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "isa/placement.hpp"

namespace {

using namespace neuronsim::isa;

std::vector<std::uint32_t> offsets(const std::string& decls) {
  const Kernel k = assemble("kernel k\n" + decls, "place.nasm");
  std::vector<std::uint32_t> out;
  for (const auto& a : k.allocations)
    out.push_back(a.byte_offset);
  return out;
}

}  // namespace

TEST_CASE("asm: placement is first fit in declaration order", "[asm]") {
  CHECK(offsets("sbuf a fp32[128, 512]\nsbuf b fp32[128, 512]\nsbuf c fp32[128, 512]\n") ==
        std::vector<std::uint32_t>{0, 2048, 4096});
}

TEST_CASE("asm: placement aligns to 64 bytes", "[asm]") {
  CHECK(offsets("sbuf a fp32[128, 3]\nsbuf b bf16[128, 1]\nsbuf c fp8_e4m3[128, 65]\nsbuf d "
                "fp32[128]\n") == std::vector<std::uint32_t>{0, 64, 128, 256});
}

TEST_CASE("asm: placement shares offsets between disjoint partition ranges", "[asm]") {
  CHECK(offsets("sbuf lo fp32[32, 16]\nsbuf hi fp32[32, 16] partition=64\n"
                "sbuf all fp32[128, 16]\nsbuf mid fp32[64, 16] partition=32\n") ==
        std::vector<std::uint32_t>{0, 0, 64, 128});
}

TEST_CASE("asm: placement keeps explicit offsets and fills around them", "[asm]") {
  CHECK(
      offsets("sbuf a fp32[128, 16]\nsbuf fixed fp32[128, 16] offset=0\nsbuf b fp32[128, 16]\n") ==
      std::vector<std::uint32_t>{64, 0, 128});
  CHECK(offsets(
            "sbuf fixed fp32[128, 16] offset=100\nsbuf a fp32[128, 16]\nsbuf b fp32[128, 16]\n") ==
        std::vector<std::uint32_t>{100, 0, 192});
}

TEST_CASE("asm: placement keeps SBUF and PSUM apart and PSUM within banks", "[asm]") {
  // 1 KiB, then 2 KiB (would straddle banks 0-1 at 1024: goes to 2048), then 1 KiB
  // (fits the gap at 1024), then 3 KiB (more than a bank: starts on a bank boundary).
  CHECK(offsets("psum a fp32[128, 256]\npsum b fp32[128, 512]\npsum c fp32[128, 256]\n"
                "sbuf s fp32[128, 512]\npsum d fp32[128, 768]\n") ==
        std::vector<std::uint32_t>{0, 2048, 1024, 0, 4096});
}

TEST_CASE("asm: the printer leaves automatic offsets out and keeps explicit ones", "[asm]") {
  const std::string automatic =
      print(assemble("kernel k\nsbuf a fp32[128, 3]\nsbuf b fp32[128, 3]\n", "a"));
  CHECK(automatic.find("offset=") == std::string::npos);
  const std::string fixed =
      print(assemble("kernel k\nsbuf a fp32[128, 3]\nsbuf b fp32[128, 3] offset=1000\n", "b"));
  CHECK_THAT(fixed, Catch::Matchers::Contains("sbuf b fp32[128, 3] offset=1000"));
  CHECK_THAT(fixed, Catch::Matchers::Contains("sbuf a fp32[128, 3] offset=0"));
}

TEST_CASE("asm: place_allocations rejects mismatched flags", "[asm]") {
  std::vector<Allocation> allocs(2);
  REQUIRE_THROWS_AS(place_allocations(allocs, {false}), neuronsim::Error);
}
