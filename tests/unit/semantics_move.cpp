// Copies and generators: tensor_copy, memset, iota, select, affine_select, dma_copy.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

TEST_CASE("semantics: tensor_copy casts floats with round to nearest even", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 1, 4);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::bf16, 1, 4, 0, 64);
  TensorCopy tc;
  tc.src = b.tile(s_a, 1, 4);
  tc.dst = b.tile(d_a, 1, 4);
  // bf16 keeps 7 fraction bits: 1 + 2^-8 is a tie (to even: 1), 1 + 3*2^-8 rounds up.
  const float in[] = {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8),
                      -1.0f - std::ldexp(1.0f, -9), 3.4e38f};
  const float want[] = {1.0f, 1.0f + std::ldexp(1.0f, -6), -1.0f,
                        std::numeric_limits<float>::infinity()};
  for (int f = 0; f < 4; ++f)
    b.set(tc.src, 0, f, in[f]);
  b.run(tc);
  for (int f = 0; f < 4; ++f)
    CHECK(b.get(tc.dst, 0, f) == want[f]);
}

TEST_CASE("semantics: tensor_copy moves same-dtype bits and int->int values exactly",
          "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 2, 2);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::fp32, 2, 2, 0, 64);
  TensorCopy tc;
  tc.src = b.tile(s_a, 2, 2);
  tc.dst = b.tile(d_a, 2, 2);
  b.set_bits(tc.src, 0, 0, 0x7FC12345u);  // a NaN with a payload
  b.set_bits(tc.src, 0, 1, 0xFF800001u);  // a signalling NaN
  b.set_bits(tc.src, 1, 0, 0x80000000u);  // -0
  b.set_bits(tc.src, 1, 1, 0x00000001u);  // the smallest subnormal
  b.run(tc);
  CHECK(b.bits(tc.dst, 0, 0) == 0x7FC12345u);
  CHECK(b.bits(tc.dst, 0, 1) == 0xFF800001u);
  CHECK(b.bits(tc.dst, 1, 0) == 0x80000000u);
  CHECK(b.bits(tc.dst, 1, 1) == 0x00000001u);

  const auto i_a = b.alloc(MemSpace::sbuf, DType::int32, 1, 3, 0, 128);
  const auto j_a = b.alloc(MemSpace::sbuf, DType::uint32, 1, 3, 0, 192);
  const auto k_a = b.alloc(MemSpace::sbuf, DType::int16, 1, 3, 0, 256);
  const AccessPattern i32 = b.tile(i_a, 1, 3), u32 = b.tile(j_a, 1, 3), i16 = b.tile(k_a, 1, 3);
  b.set_int(i32, 0, 0, 16777217);
  b.set_int(i32, 0, 1, -5);
  b.set_int(i32, 0, 2, 2147483647);
  tc.src = i32;
  tc.dst = u32;
  b.run(tc);
  CHECK(b.get_int(u32, 0, 0) == 16777217);  // not representable in fp32: moved exactly
  CHECK(b.get_int(u32, 0, 1) == 0);         // saturates
  CHECK(b.get_int(u32, 0, 2) == 2147483647);
  tc.dst = i16;
  b.run(tc);
  CHECK(b.get_int(i16, 0, 0) == 32767);
  CHECK(b.get_int(i16, 0, 1) == -5);
}

TEST_CASE("semantics: memset stores its value exactly in every dtype", "[semantics]") {
  Bench b;
  struct Case {
    DType t;
    double value;
    double want;
  };
  const Case cases[] = {
      {DType::int32, 2147483647.0, 2147483647.0},
      {DType::uint32, 4294967295.0, 4294967295.0},
      {DType::int32, -2147483648.0, -2147483648.0},
      {DType::int8, 300.0, 127.0},
      {DType::uint16, 2.5, 2.0},  // round half to even
      {DType::fp32, 0.1, static_cast<double>(0.1f)},
      {DType::bf16, -3.0, -3.0},
      {DType::fp8_e4m3, 0.0, 0.0},
  };
  std::uint32_t offset = 0;
  for (const Case& c : cases) {
    INFO(dtype_name(c.t) << " " << c.value);
    const auto a = b.alloc(MemSpace::sbuf, c.t, 128, 7, 0, offset);
    offset += 64;
    Memset ms;
    ms.dst = b.pattern(MemSpace::sbuf, a, c.t, 128, {{2, 2}, {1, 3}});  // a strided 2x3 view
    ms.value = c.value;
    b.run(ms);
    const AccessPattern all = b.tile(a, 128, 7);
    for (std::uint32_t p = 0; p < 128; ++p) {
      for (std::uint32_t f : {0u, 1u, 2u, 3u, 4u}) {  // elements 0..4 of the row are written
        if (is_integer(c.t))
          REQUIRE(b.get_int(all, p, f) == static_cast<std::int64_t>(c.want));
        else
          REQUIRE(b.get(all, p, f) == c.want);
      }
      REQUIRE(b.bits(all, p, 5) == (0xEEEEEEEEu >> (32 - 8 * dtype_size(c.t))));  // untouched
    }
  }
}

TEST_CASE("semantics: iota fills base + p*partition_step + sum i_k*steps[k]", "[semantics]") {
  for (DType t : {DType::int32, DType::fp32, DType::bf16, DType::int8}) {
    INFO(dtype_name(t));
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, t, 16, 24);
    Iota io;
    io.dst = b.pattern(MemSpace::sbuf, a, t, 16, {{12, 2}, {1, 12}});
    io.base = -7;
    io.partition_step = 3;
    io.steps = {100, -1, 0, 0};
    b.run(io);
    for (std::uint32_t p = 0; p < 16; ++p)
      for (std::uint32_t i = 0; i < 2; ++i)
        for (std::uint32_t j = 0; j < 12; ++j) {
          const std::int64_t v = -7 + 3 * std::int64_t{p} + 100 * std::int64_t{i} - std::int64_t{j};
          const std::uint64_t f = i * 12 + j;
          if (t == DType::int8)
            REQUIRE(b.get_int(io.dst, p, f) == std::clamp<std::int64_t>(v, -128, 127));
          else if (is_integer(t))
            REQUIRE(b.get_int(io.dst, p, f) == v);
          else
            REQUIRE(close(b.get(io.dst, p, f), static_cast<double>(v), dtype_tol(t)));
        }
  }
  Bench b;  // large values stay exact in int32 (integer arithmetic, not fp32)
  const auto a = b.alloc(MemSpace::sbuf, DType::int32, 2, 2);
  Iota io;
  io.dst = b.tile(a, 2, 2);
  io.base = 16777216;
  io.partition_step = 2;
  io.steps = {1, 0, 0, 0};
  b.run(io);
  CHECK(b.get_int(io.dst, 1, 1) == 16777219);
}

TEST_CASE("semantics: select takes on_true where the predicate is non-zero", "[semantics]") {
  Bench b;
  const auto p_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 4);
  const auto t_a = b.alloc(MemSpace::sbuf, DType::bf16, 4, 4, 0, 64);
  const auto f_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 4, 0, 128);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::fp16, 4, 4, 0, 192);
  Select sel;
  sel.predicate = b.tile(p_a, 4, 4);
  sel.on_true = b.tile(t_a, 4, 4);
  sel.on_false = b.tile(f_a, 4, 4);
  sel.dst = b.tile(d_a, 4, 4);
  const float preds[] = {0.0f, 1.0f, -0.0f, std::numeric_limits<float>::quiet_NaN()};
  const auto vt = b.fill(sel.on_true, [](std::uint32_t p, std::uint64_t f) { return p + f * 0.5; });
  const auto vf =
      b.fill(sel.on_false, [](std::uint32_t p, std::uint64_t f) { return -1.0 - p - f; });
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t f = 0; f < 4; ++f)
      b.set(sel.predicate, p, f, preds[(p + f) % 4]);
  b.run(sel);
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t f = 0; f < 4; ++f) {
      const int k = (p + f) % 4;
      const double want = (k == 1 || k == 3) ? vt[p * 4 + f] : vf[p * 4 + f];
      CHECK(b.get(sel.dst, p, f) == want);
    }
  // int32 select is exact beyond 2^24.
  const auto i_a = b.alloc(MemSpace::sbuf, DType::int32, 4, 4, 0, 256);
  sel.on_true = b.tile(i_a, 4, 4);
  sel.on_false = sel.on_true;
  sel.dst = sel.on_true;
  b.set_int(sel.on_true, 2, 2, 16777217);
  b.run(sel);
  CHECK(b.get_int(sel.dst, 2, 2) == 16777217);
}

TEST_CASE("semantics: affine_select builds a causal mask", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 64, 64);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::bf16, 64, 64, 0, 256);
  AffineSelect as;
  as.src = b.tile(s_a, 64, 64);
  as.dst = b.tile(d_a, 64, 64);
  as.offset = 0;
  as.partition_step = 1;
  as.steps = {-1, 0, 0, 0};
  as.cmp = AluOp::is_ge;  // keep where p - f >= 0
  as.fill = -30000.0f;
  const auto x = b.fill_random(as.src, 700);
  b.run(as);
  for (std::uint32_t p = 0; p < 64; ++p)
    for (std::uint32_t f = 0; f < 64; ++f)
      REQUIRE(b.get(as.dst, p, f) == (f <= p ? x[p * 64 + f] : -29952.0));  // bf16(-30000)
  as.cmp = AluOp::add;
  CHECK_THROWS_WITH(b.run(as), Catch::Contains("cmp") && Catch::Contains("not a comparison"));
}

TEST_CASE("semantics: dma_copy casts, keeps same-dtype bytes and accumulates", "[semantics]") {
  Bench b;
  const auto h = b.tensor(DType::fp32, {8, 16});
  const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 8, 16);
  DmaCopy load;
  load.src = b.pattern(MemSpace::hbm, h, DType::fp32, 8, {{1, 16}}, 0, 0, 16);
  load.dst = b.tile(s_a, 8, 16);
  const auto x = b.fill_random(load.src, 800);
  b.run(load);
  for (std::uint32_t p = 0; p < 8; ++p)
    for (std::uint32_t f = 0; f < 16; ++f)
      REQUIRE(close(b.get(load.dst, p, f), x[p * 16 + f], dtype_tol(DType::bf16)));

  // Accumulate: read-add-write in fp32 at the destination (HBM here).
  DmaCopy acc;
  acc.src = load.dst;
  acc.dst = load.src;
  acc.accumulate = true;
  std::vector<double> stored;
  for (std::uint32_t p = 0; p < 8; ++p)
    for (std::uint32_t f = 0; f < 16; ++f)
      stored.push_back(b.get(load.dst, p, f));
  b.run(acc);
  for (std::uint32_t p = 0; p < 8; ++p)
    for (std::uint32_t f = 0; f < 16; ++f)
      REQUIRE(b.get(acc.dst, p, f) ==
              static_cast<float>(x[p * 16 + f]) + static_cast<float>(stored[p * 16 + f]));

  // Same dtype: bytes exactly, a bf16 signalling NaN included.
  const auto s2 = b.alloc(MemSpace::sbuf, DType::bf16, 8, 16, 0, 512);
  DmaCopy mv;
  mv.src = load.dst;
  mv.dst = b.tile(s2, 8, 16);
  b.set_bits(mv.src, 3, 3, 0x7F81u);
  b.run(mv);
  CHECK(b.bits(mv.dst, 3, 3) == 0x7F81u);
  CHECK(b.bits(mv.dst, 7, 15) == b.bits(mv.src, 7, 15));

  // int16 -> int32 exact; int32 -> fp32 rounds.
  const auto hi = b.tensor(DType::int16, {2, 3});
  const auto si = b.alloc(MemSpace::sbuf, DType::int32, 2, 3, 0, 1024);
  DmaCopy ic;
  ic.src = b.pattern(MemSpace::hbm, hi, DType::int16, 2, {{1, 3}}, 0, 0, 3);
  ic.dst = b.tile(si, 2, 3);
  for (std::uint32_t p = 0; p < 2; ++p)
    for (std::uint32_t f = 0; f < 3; ++f)
      b.set_int(ic.src, p, f, -32768 + 12345 * std::int64_t{p * 3 + f});
  b.run(ic);
  for (std::uint32_t p = 0; p < 2; ++p)
    for (std::uint32_t f = 0; f < 3; ++f)
      CHECK(b.get_int(ic.dst, p, f) == -32768 + 12345 * std::int64_t{p * 3 + f});
}

TEST_CASE("semantics: dma_copy pairs elements in (partition, free) order across shapes",
          "[semantics]") {
  Bench b;
  const auto h = b.tensor(DType::fp16, {1, 64});
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 8);
  DmaCopy d;
  d.src = b.pattern(MemSpace::hbm, h, DType::fp16, 1, {{1, 64}}, 0, 0, 64);
  d.dst = b.tile(s_a, 8, 8);
  const auto x = b.fill(d.src, [](std::uint32_t, std::uint64_t f) { return f * 0.25 - 3; });
  b.run(d);
  for (std::uint32_t p = 0; p < 8; ++p)
    for (std::uint32_t f = 0; f < 8; ++f)
      REQUIRE(b.get(d.dst, p, f) == x[p * 8 + f]);
  d.dst.partitions = 7;
  CHECK_THROWS_WITH(b.run(d), Catch::Contains("src: has 64 elements but dst has 56"));
}

TEST_CASE("semantics: a transposing dma_copy writes dst[f][p] = src[p][f], bits exact",
          "[semantics]") {
  // NKI dma_transpose (2-D, permutation [1, 0]): HBM [6, 10] bf16 (free dims 2 x 5,
  // flattened in order) into an SBUF [10, 6] tile, then that tile SBUF to SBUF back.
  Bench b;
  const auto h = b.tensor(DType::bf16, {6, 10});
  const auto t = b.alloc(MemSpace::sbuf, DType::bf16, 10, 6);
  const auto back = b.alloc(MemSpace::sbuf, DType::bf16, 6, 10, 0, 64);
  DmaCopy load;
  load.src = b.pattern(MemSpace::hbm, h, DType::bf16, 6, {{5, 2}, {1, 5}}, 0, 0, 10);
  load.dst = b.tile(t, 10, 6);
  load.transpose = true;
  b.fill(load.src, [](std::uint32_t p, std::uint64_t f) { return p * 16.0 + f; });
  b.set_bits(load.src, 4, 7, 0x7F81u);  // a signalling NaN survives
  b.run(load);
  for (std::uint32_t p = 0; p < 6; ++p)
    for (std::uint32_t f = 0; f < 10; ++f)
      REQUIRE(b.bits(load.dst, f, p) == b.bits(load.src, p, f));
  CHECK(b.bits(load.dst, 7, 4) == 0x7F81u);

  DmaCopy again;
  again.src = load.dst;
  again.dst = b.tile(back, 6, 10);
  again.transpose = true;
  b.run(again);
  for (std::uint32_t p = 0; p < 6; ++p)
    for (std::uint32_t f = 0; f < 10; ++f)
      REQUIRE(b.bits(again.dst, p, f) == b.bits(load.src, p, f));

  again.dst = b.tile(back, 10, 6);
  CHECK_THROWS_WITH(b.run(again), Catch::Contains("dst: is [10,6] but a transpose of src [10,6]"));
}

TEST_CASE("semantics: a gathering transpose lands row src_index[n] as dst column n",
          "[semantics]") {
  // NKI dma_transpose, "DMA Indirect Transpose" (dma_gather_transpose): gathered =
  // src[indices], dst = gathered.T. A [10, 4] bf16 table, indices 7, 0, 7: dst [4, 3].
  Bench b;
  const auto h = b.tensor(DType::bf16, {10, 4});
  const auto t = b.alloc(MemSpace::sbuf, DType::bf16, 4, 3);
  const auto idx = b.alloc(MemSpace::sbuf, DType::uint32, 3, 1, 0, 64);
  const AccessPattern table = b.pattern(MemSpace::hbm, h, DType::bf16, 10, {{1, 4}}, 0, 0, 4);
  b.fill(table, [](std::uint32_t p, std::uint64_t f) { return p * 10.0 + f; });
  b.set_bits(table, 7, 2, 0x7F81u);  // a signalling NaN survives: the bits move
  const std::int64_t picks[3] = {7, 0, 7};
  for (std::uint32_t p = 0; p < 3; ++p)
    b.set_int(b.tile(idx, 3, 1), p, 0, picks[p]);
  DmaCopy g;
  g.src = table;
  g.dst = b.tile(t, 4, 3);
  g.src_index = b.tile(idx, 3, 1);
  g.transpose = true;
  b.run(g);
  for (std::uint32_t n = 0; n < 3; ++n)
    for (std::uint32_t f = 0; f < 4; ++f)
      REQUIRE(b.bits(g.dst, f, n) == b.bits(table, static_cast<std::uint32_t>(picks[n]), f));
  CHECK(b.bits(g.dst, 2, 0) == 0x7F81u);

  // oob_skip: index 10 is outside the 10 rows, so dst's column 1 keeps what it held.
  b.set_int(b.tile(idx, 3, 1), 1, 0, 10);
  CHECK_THROWS_WITH(b.run(g), Catch::Contains("src_index: partition 1 holds row index 10"));
  g.oob_skip = true;
  const std::uint32_t held = b.bits(g.dst, 3, 1);
  b.set_int(b.tile(idx, 3, 1), 0, 0, 1);
  b.run(g);
  CHECK(b.bits(g.dst, 3, 1) == held);
  CHECK(b.bits(g.dst, 3, 0) == b.bits(table, 1, 3));

  // A scatter does not transpose; dst must be [row length, index count].
  DmaCopy s;
  s.src = g.dst;
  s.dst = table;
  s.dst_index = g.src_index;
  s.transpose = true;
  CHECK_THROWS_WITH(b.run(s), Catch::Contains("an indirect DMA transpose gathers"));
  g.dst = b.tile(t, 3, 4);
  CHECK_THROWS_WITH(b.run(g), Catch::Contains("src_index:"));
}

TEST_CASE("semantics: an indirect dma_copy gathers and scatters rows by a runtime index",
          "[semantics]") {
  // NKI dma_copy (software DGE gather/scatter): dst row p = src row src_index[p]; src row p
  // lands on dst row dst_index[p]. The indexed side's partitions are the rows an index may
  // name: here all 10 rows of a [10, 4] fp32 table.
  Bench b;
  const auto h = b.tensor(DType::fp32, {10, 4});
  const auto rows = b.alloc(MemSpace::sbuf, DType::bf16, 3, 4);
  const auto idx = b.alloc(MemSpace::sbuf, DType::int32, 3, 1, 0, 64);
  const AccessPattern table = b.pattern(MemSpace::hbm, h, DType::fp32, 10, {{1, 4}}, 0, 0, 4);
  const auto x = b.fill(table, [](std::uint32_t p, std::uint64_t f) { return p * 10.0 + f; });
  const std::int64_t picks[3] = {7, 0, 7};  // repeated indices are fine for a gather
  for (std::uint32_t p = 0; p < 3; ++p)
    b.set_int(b.tile(idx, 3, 1), p, 0, picks[p]);
  DmaCopy gather;
  gather.src = table;
  gather.dst = b.tile(rows, 3, 4);
  gather.src_index = b.tile(idx, 3, 1);
  b.run(gather);  // fp32 -> bf16: a casting gather (the values are exact in bf16)
  for (std::uint32_t p = 0; p < 3; ++p)
    for (std::uint32_t f = 0; f < 4; ++f)
      REQUIRE(b.get(gather.dst, p, f) == x[picks[p] * 4 + f]);

  // Scatter them back, accumulating, onto rows 2, 5, 2: row 2 gets both adds.
  const std::int64_t to[3] = {2, 5, 2};
  for (std::uint32_t p = 0; p < 3; ++p)
    b.set_int(b.tile(idx, 3, 1), p, 0, to[p]);
  DmaCopy scatter;
  scatter.src = gather.dst;
  scatter.dst = table;
  scatter.dst_index = b.tile(idx, 3, 1);
  scatter.accumulate = true;
  b.run(scatter);
  for (std::uint32_t f = 0; f < 4; ++f) {
    CHECK(b.get(table, 2, f) == x[2 * 4 + f] + x[7 * 4 + f] + x[7 * 4 + f]);
    CHECK(b.get(table, 5, f) == x[5 * 4 + f] + x[0 * 4 + f]);
    CHECK(b.get(table, 3, f) == x[3 * 4 + f]);
  }

  // An index outside the table's rows fails before anything moves.
  b.set_int(b.tile(idx, 3, 1), 1, 0, 10);
  scatter.accumulate = false;
  const float before = b.get(table, 2, 0);
  CHECK_THROWS_WITH(b.run(scatter),
                    Catch::Contains("dst_index: partition 1 holds row index 10, outside dst's 10 "
                                    "rows (0 to 9)"));
  CHECK(b.get(table, 2, 0) == before);
  b.set_int(b.tile(idx, 3, 1), 1, 0, -1);
  CHECK_THROWS_WITH(b.run(gather), Catch::Contains("src_index: partition 1 holds row index -1"));

  // oob_skip (NKI dma_copy oob_mode.skip): the out-of-range rows move nothing; the others
  // move as before. Indices 4, -1, 10: the gather writes dst row 0 only, the scatter
  // writes table row 4 only.
  const std::int64_t mixed[3] = {4, -1, 10};
  for (std::uint32_t p = 0; p < 3; ++p)
    b.set_int(b.tile(idx, 3, 1), p, 0, mixed[p]);
  std::vector<float> kept;
  for (std::uint32_t p = 0; p < 3; ++p)
    for (std::uint32_t f = 0; f < 4; ++f)
      kept.push_back(b.get(gather.dst, p, f));
  gather.oob_skip = true;
  b.run(gather);
  for (std::uint32_t f = 0; f < 4; ++f) {
    CHECK(b.get(gather.dst, 0, f) == b.get(table, 4, f));
    CHECK(b.get(gather.dst, 1, f) == kept[4 + f]);
    CHECK(b.get(gather.dst, 2, f) == kept[8 + f]);
  }
  std::vector<float> table_before;
  for (std::uint32_t r = 0; r < 10; ++r)
    for (std::uint32_t f = 0; f < 4; ++f)
      table_before.push_back(b.get(table, r, f));
  scatter.oob_skip = true;
  b.run(scatter);
  for (std::uint32_t r = 0; r < 10; ++r)
    for (std::uint32_t f = 0; f < 4; ++f)
      CHECK(b.get(table, r, f) ==
            (r == 4 ? b.get(gather.dst, 0, f) : table_before[std::size_t{r} * 4 + f]));
}
