// The slice, view and raw forms of access patterns, and how the printer picks between them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"

namespace {

using namespace neuronsim::isa;

const char* kDecls =
    "kernel k\n"
    "tensor a fp32[256, 512] input\n"
    "tensor w bf16[4, 128, 64] input\n"
    "sbuf xa fp32[128, 512]\n"
    "sbuf t fp32[128, 4, 8]\n"
    "vector:\n";

// The pattern written as the destination of a memset.
AccessPattern pattern_of(const std::string& text) {
  const Kernel k = assemble(std::string(kDecls) + "    memset " + text + ", value=0\n", "p.nasm");
  return std::get<Memset>(k.stream(Engine::vector).at(0).op).dst;
}

// How the printer writes that pattern back.
std::string printed(const std::string& text) {
  const std::string out =
      print(assemble(std::string(kDecls) + "    memset " + text + ", value=0\n", "p.nasm"));
  const auto at = out.find("memset ");
  return out.substr(at + 7, out.find(", value=", at) - at - 7);
}

AccessPattern expect(MemSpace space, std::uint32_t buffer, DType t, std::uint32_t start,
                     std::uint32_t partitions, std::int64_t pstride, std::uint64_t offset,
                     std::vector<Dim> dims) {
  AccessPattern ap;
  ap.space = space;
  ap.buffer = buffer;
  ap.dtype = t;
  ap.start_partition = start;
  ap.partitions = partitions;
  ap.partition_stride = pstride;
  ap.byte_offset = offset;
  ap.ndims = static_cast<std::uint8_t>(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i)
    ap.dims[i] = dims[i];
  return ap;
}

}  // namespace

TEST_CASE("asm: SBUF slices: partition range, free ranges, steps, indices", "[asm]") {
  const auto sb = MemSpace::sbuf;
  CHECK(pattern_of("xa") == expect(sb, 0, DType::fp32, 0, 128, 0, 0, {{1, 512}}));
  CHECK(pattern_of("xa[32:64, 128:256]") ==
        expect(sb, 0, DType::fp32, 32, 32, 0, 128 * 4, {{1, 128}}));
  CHECK(pattern_of("xa[:, 0:512:2]") == expect(sb, 0, DType::fp32, 0, 128, 0, 0, {{2, 256}}));
  CHECK(pattern_of("xa[5]") == expect(sb, 0, DType::fp32, 5, 1, 0, 0, {{1, 512}}));
  CHECK(pattern_of("t[:, 1, 2:6]") == expect(sb, 1, DType::fp32, 0, 128, 0, 10 * 4, {{1, 4}}));
  CHECK(pattern_of("t[:, :, 0]") == expect(sb, 1, DType::fp32, 0, 128, 0, 0, {{8, 4}}));
  CHECK(pattern_of("t[0:64, 3, 7]") == expect(sb, 1, DType::fp32, 0, 64, 0, 31 * 4, {{1, 1}}));
}

TEST_CASE("asm: HBM slices: the first sliced axis is the partition axis", "[asm]") {
  const auto hbm = MemSpace::hbm;
  CHECK(pattern_of("a") == expect(hbm, 0, DType::fp32, 0, 256, 512, 0, {{1, 512}}));
  CHECK(pattern_of("a[128:256, :]") ==
        expect(hbm, 0, DType::fp32, 0, 128, 512, 128 * 512 * 4, {{1, 512}}));
  CHECK(pattern_of("w[2, :, 0:32]") ==
        expect(hbm, 1, DType::bf16, 0, 128, 64, 2 * 128 * 64 * 2, {{1, 32}}));
  CHECK(pattern_of("w[:, 0:128:2, 0:8]") ==
        expect(hbm, 1, DType::bf16, 0, 4, 128 * 64, 0, {{128, 64}, {1, 8}}));
  CHECK(pattern_of("a[3, 4]") == expect(hbm, 0, DType::fp32, 0, 1, 0, (3 * 512 + 4) * 4, {{1, 1}}));
}

TEST_CASE("asm: dtype views rescale the innermost axis", "[asm]") {
  CHECK(pattern_of("xa.bf16[:, 0:1024]") ==
        expect(MemSpace::sbuf, 0, DType::bf16, 0, 128, 0, 0, {{1, 1024}}));
  CHECK(pattern_of("xa.fp8_e4m3[0:32, 8:16]") ==
        expect(MemSpace::sbuf, 0, DType::fp8_e4m3, 0, 32, 0, 8, {{1, 8}}));
  CHECK(pattern_of("w.fp32[0, 0:2, :]") ==
        expect(MemSpace::hbm, 1, DType::fp32, 0, 2, 32, 0, {{1, 32}}));
}

TEST_CASE("asm: the raw form sets every field", "[asm]") {
  CHECK(pattern_of("xa{ap=[[0, 64], [16, 8], [1, 4]], start=64, offset=256}") ==
        expect(MemSpace::sbuf, 0, DType::fp32, 64, 64, 0, 256, {{16, 8}, {1, 4}}));
  CHECK(pattern_of("a.int32{offset=8, ap=[[-512, 2], [-1, 3], [2, 2], [0, 5], [7, 1]]}") ==
        expect(MemSpace::hbm, 0, DType::int32, 0, 2, -512, 8, {{-1, 3}, {2, 2}, {0, 5}, {7, 1}}));
}

TEST_CASE("asm: the printer writes slices when they reproduce the pattern", "[asm]") {
  CHECK(printed("xa") == "xa");
  CHECK(printed("xa[0:128, 0:512]") == "xa");
  CHECK(printed("xa[32:64, 128:256]") == "xa[32:64, 128:256]");
  CHECK(printed("xa[:, 1:512:2]") == "xa[:, 1:512:2]");
  CHECK(printed("t[:, 1, 2:6]") == "t[:, 1, 2:6]");
  CHECK(printed("a[128:256, :]") == "a[128:256, :]");
  CHECK(printed("w[2, :, 0:32]") == "w[2, :, 0:32]");
  CHECK(printed("xa.bf16[:, 0:1024]") == "xa.bf16");
  // A transposed walk has no slice form: raw.
  CHECK(printed("t{ap=[[0, 128], [1, 8], [8, 4]]}") == "t{ap=[[0, 128], [1, 8], [8, 4]]}");
  CHECK(printed("xa{ap=[[0, 2], [1, 4]], offset=2}") == "xa{ap=[[0, 2], [1, 4]], offset=2}");
}

TEST_CASE("asm: floats print in the shortest form that reads back bit-exact", "[asm]") {
  const std::string src = std::string(kDecls) +
                          "    tensor_scalar xa, xa, op0=multiply, arg0=0.1, op1=add, arg1=-0\n"
                          "    memset xa, value=0.1\n"
                          "    affine_select xa, xa, cmp=is_ge, fill=-inf\n"
                          "    tensor_scalar xa, xa, op0=add, arg0=0x1.8p-3\n";
  const Kernel k = assemble(src, "f.nasm");
  const std::string text = print(k);
  CHECK_THAT(text, Catch::Matchers::Contains("arg0=0.1, op1=add, arg1=-0"));
  CHECK_THAT(text, Catch::Matchers::Contains("memset xa, value=0.1\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("fill=-inf"));
  CHECK_THAT(text, Catch::Matchers::Contains("arg0=0.1875"));
  const auto ts = std::get<TensorScalar>(k.stream(Engine::vector)[0].op);
  CHECK(std::get<float>(ts.arg0) == 0.1f);
  CHECK(std::signbit(std::get<float>(ts.arg1)));
  CHECK(std::get<Memset>(k.stream(Engine::vector)[1].op).value == 0.1);
  CHECK(assemble(text, "f2.nasm") == k);
}

TEST_CASE("asm: constants: fill, list and bits forms", "[asm]") {
  const Kernel k = assemble(
      "kernel k\n"
      "tensor f bf16[2, 2] constant = 1.5\n"
      "tensor l int8[4] constant = [1, -2,\n  3, -128]\n"
      "tensor n fp32[2] constant = bits [0x7fc00001, 0x3f800000]\n"
      "tensor u uint32[1] constant = 0xffffffff\n",
      "c.nasm");
  CHECK(k.tensors[0].data ==
        std::vector<std::uint8_t>{0xc0, 0x3f, 0xc0, 0x3f, 0xc0, 0x3f, 0xc0, 0x3f});
  CHECK(k.tensors[1].data == std::vector<std::uint8_t>{1, 0xfe, 3, 0x80});
  CHECK(k.tensors[2].data == std::vector<std::uint8_t>{1, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x3f});
  CHECK(k.tensors[3].data == std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xff});
  const std::string text = print(k);
  CHECK_THAT(text, Catch::Matchers::Contains("tensor f bf16[2, 2] constant = 1.5\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("tensor l int8[4] constant = [1, -2, 3, -128]\n"));
  // A NaN payload does not survive a value: the printer falls back to bits.
  CHECK_THAT(text, Catch::Matchers::Contains("constant = bits [0x7fc00001, 0x3f800000]\n"));
  CHECK(assemble(text, "c2.nasm") == k);
}
