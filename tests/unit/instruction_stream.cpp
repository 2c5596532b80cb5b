// The encoded instruction stream (isa/instruction_stream.hpp): lossless for every value an
// Instruction can hold, random access equal to sequential reading, edits that change a
// record's size, source lines kept beside the records, and its size per instruction.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "isa/instruction_stream.hpp"
#include "neff_fixtures.hpp"

using namespace neff_test;

namespace {

// Bit-for-bit equality of two instructions: Instruction::operator== compares values
// (NaN != NaN, -0 == +0) and skips settings not in effect; the stream must keep it all.
bool same_bits(const Instruction& a, const Instruction& b) {
  std::vector<std::uint8_t> x, y;
  encode_instruction(a, x);
  encode_instruction(b, y);
  return x == y && a.source_line == b.source_line;
}

AccessPattern extreme_pattern(std::mt19937_64& rng) {
  AccessPattern a;
  a.space = static_cast<MemSpace>(rng() % 3);
  a.dtype = static_cast<DType>(rng() % kDTypeCount);
  a.ndims = static_cast<std::uint8_t>(rng() % 6);  // 0 and 5 are invalid: kept as they are
  a.buffer = static_cast<std::uint32_t>(rng());
  a.start_partition = rng() % 2 ? 0 : std::numeric_limits<std::uint32_t>::max();
  a.partitions = static_cast<std::uint32_t>(rng() % 200);
  a.partition_stride =
      rng() % 2 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(rng());
  a.byte_offset = rng() % 2 ? std::numeric_limits<std::uint64_t>::max() : rng() % 1000;
  for (auto& d : a.dims) {  // unused dims too: whatever they hold survives
    d.stride = static_cast<std::int32_t>(rng());
    d.size = static_cast<std::uint32_t>(rng());
  }
  return a;
}

}  // namespace

TEST_CASE("instruction stream: every opcode of the fixture kernel round-trips", "[stream]") {
  const Kernel k = every_opcode_kernel();
  for (const auto& stream : k.streams) {
    InstructionStream::Reader reader(stream);
    Instruction decoded;
    for (std::size_t i = 0; reader.next(decoded); ++i) {
      CHECK(decoded == stream[i]);
      CHECK(same_bits(decoded, stream[i]));
    }
  }
}

TEST_CASE("instruction stream: extreme and invalid values survive bit for bit", "[stream]") {
  std::mt19937_64 rng(11);
  std::vector<Instruction> originals;
  for (int n = 0; n < 300; ++n) {
    Instruction ins;
    switch (n % 5) {
      case 0: {
        Activation a;
        a.dst = extreme_pattern(rng);
        a.src = extreme_pattern(rng);
        a.func = static_cast<ActFunc>(rng() % kActFuncCount);
        a.scale = n % 2 ? ScalarArg(extreme_pattern(rng)) : ScalarArg(-0.0f);
        if (n % 3) a.bias = extreme_pattern(rng);
        if (n % 4) a.reduce_dst = extreme_pattern(rng);
        ins.op = a;
        break;
      }
      case 1: {
        TensorScalar t;
        t.dst = extreme_pattern(rng);
        t.src = extreme_pattern(rng);
        t.op0 = AluOp::pow;
        t.arg0 = std::numeric_limits<float>::quiet_NaN();
        t.op1 = n % 2 ? std::optional<AluOp>(AluOp::bitwise_xor) : std::nullopt;
        t.arg1 = std::numeric_limits<float>::denorm_min();  // kept even without op1
        t.reverse1 = true;
        ins.op = t;
        break;
      }
      case 2: {
        Iota io{extreme_pattern(rng)};
        io.base = std::numeric_limits<std::int32_t>::min();
        io.partition_step = -1;
        io.steps = {std::numeric_limits<std::int32_t>::max(), -7, 0, 3};
        ins.op = io;
        break;
      }
      case 3:
        ins.op = Memset{extreme_pattern(rng), -std::numeric_limits<double>::infinity()};
        break;
      default:
        ins.op = DmaCopy{extreme_pattern(rng), extreme_pattern(rng), 65535, true, false,
                         std::nullopt,         std::nullopt,         false};
    }
    for (int w = 0; w < n % 5; ++w)  // more than the two kept inline, too
      ins.waits.push_back(
          SemWait{static_cast<std::uint16_t>(rng()), static_cast<std::uint32_t>(rng())});
    for (int s = 0; s < n % 4; ++s)
      ins.signals.push_back(SemSignal{static_cast<std::uint16_t>(rng()), SemUpdate::set,
                                      std::numeric_limits<std::uint32_t>::max()});
    ins.source_line = n % 7 == 0 ? 0 : static_cast<std::uint32_t>(n);
    originals.push_back(ins);
  }
  const InstructionStream stream(originals);
  REQUIRE(stream.size() == originals.size());
  std::size_t i = 0;
  for (const Instruction& decoded : stream)
    CHECK(same_bits(decoded, originals[i++]));
  for (std::size_t j = originals.size(); j-- > 0;)  // random access, backwards
    CHECK(same_bits(stream[j], originals[j]));
  // NaN immediates make instructions unequal by value, and so the streams.
  CHECK_FALSE(stream == InstructionStream(originals));
}

TEST_CASE("instruction stream: edits that resize a record keep every other one", "[stream]") {
  std::vector<Instruction> v;
  for (std::uint32_t n = 0; n < 100; ++n) {
    Instruction ins;
    ins.op = Nop{};
    ins.waits.push_back(SemWait{1, n});
    v.push_back(ins);
  }
  InstructionStream s(v);
  s.edit(3, [](Instruction& i) {  // grows past several index blocks' offsets
    i.op = TensorTensor{pattern(MemSpace::sbuf, 1, DType::fp32, 128, {{1, 512}}),
                        pattern(MemSpace::sbuf, 2, DType::bf16, 128, {{1, 512}}),
                        pattern(MemSpace::sbuf, 3, DType::bf16, 128, {{1, 512}})};
  });
  v[3] = s[3];
  s.edit(50, [](Instruction& i) { i.waits.clear(); });  // shrinks
  v[50].waits.clear();
  s.replace(99, v[2]);
  v[99] = v[2];
  for (std::size_t i = 0; i < v.size(); ++i)
    CHECK(s[i] == v[i]);
  CHECK(s == InstructionStream(v));
  CHECK_THROWS_AS(s.at(100), std::out_of_range);
}

TEST_CASE("instruction stream: source lines, the first one included", "[stream]") {
  InstructionStream s;
  Instruction ins;
  ins.source_line = 5;
  s.push_back(ins);
  ins.source_line = 0;
  s.push_back(ins);
  ins.source_line = 9;
  s.push_back(ins);
  CHECK(s[0].source_line == 5);
  CHECK(s[1].source_line == 0);
  CHECK(s[2].source_line == 9);
  s.set_source_line(1, 6);
  CHECK(s.source_line(1) == 6);
  InstructionStream unnumbered;  // equality ignores lines, as Instruction's does
  for (int n = 0; n < 3; ++n)
    unnumbered.push_back(Instruction{});
  CHECK(unnumbered == s);
}

TEST_CASE("instruction stream: a nop with a wait and a signal takes a few bytes", "[stream]") {
  // The bench's chain instruction: nop, wait (sem 3 >= 1000), signal (sem 4 += 1).
  // Record: length 1 + opcode 1 + counts 2 + wait 1+2 + signal 1+1+1 = 10 bytes, plus
  // one 8-byte index entry per 16 instructions.
  InstructionStream s;
  Instruction nop;
  nop.op = Nop{};
  nop.waits.push_back(SemWait{3, 1000});
  nop.signals.push_back(SemSignal{4, SemUpdate::increment, 1});
  constexpr std::size_t kCount = 160000;
  s.reserve(kCount);
  for (std::size_t i = 0; i < kCount; ++i)
    s.push_back(nop);
  const double per_instruction = static_cast<double>(s.memory_bytes()) / kCount;
  INFO(per_instruction);
  CHECK(per_instruction <= 12.5 + 0.5);  // 10 + 8/16, and reserve's 12 per instruction
  CHECK(s[kCount - 1] == nop);
}
