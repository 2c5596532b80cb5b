// Validation of access patterns: structure, buffers, bounds, start partitions, free size,
// PSUM banks, and the instruction-level rules (engine, semaphores).
#include <catch2/catch.hpp>

#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

namespace {
// A vector-engine copy from xt to yt: valid as it stands; tests break one field.
TensorCopy copy_x_to_y(std::uint32_t partitions = 128, std::uint32_t free = 512) {
  return TensorCopy{sbuf(kY, partitions, free), sbuf(kX, partitions, free)};
}
}  // namespace

TEST_CASE("validate: opcode on an engine that cannot run it", "[validate]") {
  Matmul mm{psum(kPs, 128, 512), sbuf(kW, 128, 128, DType::bf16), sbuf(kW, 128, 512, DType::bf16)};
  expect_none(with(Engine::tensor, mm));
  const auto d = check(with(Engine::vector, mm), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "vector[0] (line 7) matmul");
  CHECK_THAT(d[0].reason, Catch::Contains("opcode matmul cannot run on the vector engine"));
}

TEST_CASE("validate: semaphore indices out of range", "[validate]") {
  Kernel k = with(Engine::vector, copy_x_to_y());
  k.stream(Engine::vector).edit(0, [](Instruction& i) { i.waits.push_back({2, 1}); });
  expect_one(k, "waits on semaphore 2: index out of range (the kernel has 2 semaphores)");
  k.stream(Engine::vector).edit(0, [](Instruction& i) { i.waits.clear(); });
  k.stream(Engine::vector).edit(0, [](Instruction& i) {
    i.signals.push_back({5, SemUpdate::increment, 1});
  });
  expect_one(k, "signals semaphore 5: index out of range");
}

TEST_CASE("validate: allocation index out of range", "[validate]") {
  auto op = copy_x_to_y();
  op.src.buffer = 99;
  expect_one(with(Engine::vector, op), "src: allocation index 99 is out of range");
}

TEST_CASE("validate: tensor index out of range", "[validate]") {
  DmaCopy dma{sbuf(kX, 128, 512), hbm(kIn, 128, 512), 0,    false, false,
              std::nullopt,       std::nullopt,       false};
  expect_none(with(Engine::sync, dma));
  dma.src.buffer = 3;
  expect_one(with(Engine::sync, dma), "src: tensor index 3 is out of range");
}

TEST_CASE("validate: pattern space must match its allocation's", "[validate]") {
  auto op = copy_x_to_y();
  op.src.space = MemSpace::psum;  // xt is in sbuf
  expect_one(with(Engine::vector, op), "src: is in psum but names allocation xt, which is in sbuf");
}

TEST_CASE("validate: hbm pattern dtype must match its tensor", "[validate]") {
  DmaCopy dma{sbuf(kX, 128, 512),
              hbm(kIn, 128, 512, DType::int32),
              0,
              false,
              false,
              std::nullopt,
              std::nullopt,
              false};
  expect_one(with(Engine::sync, dma), "src: dtype int32 differs from tensor x's fp32");
}

TEST_CASE("validate: compute instructions do not touch hbm", "[validate]") {
  TensorCopy op{sbuf(kY, 128, 512), hbm(kIn, 128, 512)};
  expect_one(with(Engine::vector, op), "only dma_copy reaches hbm");
}

TEST_CASE("validate: ndims must be 1..4", "[validate]") {
  auto op = copy_x_to_y();
  op.dst.ndims = 0;
  expect_one(with(Engine::vector, op), "dst: ndims 0 is not in 1..4");
  op.dst.ndims = 5;
  expect_one(with(Engine::vector, op), "dst: ndims 5 is not in 1..4");
}

TEST_CASE("validate: dim sizes must be 1..65535", "[validate]") {
  auto op = copy_x_to_y();
  op.dst.ndims = 2;
  op.dst.dims[0] = {512, 0};
  op.dst.dims[1] = {1, 512};
  expect_one(with(Engine::vector, op), "dst: dim 0 size 0 is not in 1..65535");
  op.dst.dims[0] = {0, 65536};
  expect_one(with(Engine::vector, op), "dst: dim 0 size 65536 is not in 1..65535");
}

TEST_CASE("validate: strides must fit int16", "[validate]") {
  auto op = copy_x_to_y(128, 2);
  op.src.dims[0] = {40000, 2};
  expect_one(with(Engine::vector, op), "src: dim 0 stride 40000 is not in -32768..32767");
  op.src.dims[0] = {-32769, 2};
  expect_one(with(Engine::vector, op), "src: dim 0 stride -32769 is not in -32768..32767");
}

TEST_CASE("validate: pattern limits are the target's", "[validate]") {
  // ap_max_free_dims, ap_max_dim_size and ap_max_stride replace the reference's 4, uint16
  // and int16 (trn1_limits() holds those values).
  auto op = copy_x_to_y(128, 512);
  op.dst.ndims = 2;
  op.dst.dims[0] = {256, 2};
  op.dst.dims[1] = {1, 256};
  expect_none(with(Engine::vector, op));
  auto limits = trn1_limits();
  limits.ap_max_free_dims = 1;
  expect_one(with(Engine::vector, op), "dst: ndims 2 is not in 1..1", limits);
  limits = trn1_limits();
  limits.ap_max_stride = 2;
  expect_one(with(Engine::vector, op), "dst: dim 0 stride 256 is not in -3..2", limits);
  limits = trn1_limits();
  limits.ap_max_dim_size = 256;
  const auto d = check(with(Engine::vector, copy_x_to_y(128, 512)), limits);
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK_THAT(d[0].reason, Catch::Contains("dim 0 size 512 is not in 1..256"));
}

TEST_CASE("validate: partition count must be 1..128", "[validate]") {
  auto op = copy_x_to_y();
  op.dst.partitions = 0;
  op.src.partitions = 0;
  const auto d = check(with(Engine::vector, op), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK_THAT(d[0].reason, Catch::Contains("dst: partition count 0 is not in 1..128"));
  op = copy_x_to_y();
  op.src.partitions = 129;
  op.dst.partitions = 129;
  CHECK(check(with(Engine::vector, op), trn1_limits()).size() == 2);
}

TEST_CASE("validate: start partition rule on the absolute start", "[validate]") {
  Kernel k = base_kernel();
  // An allocation of 64 partitions starting at 64, and a 32-partition one at 32.
  k.allocations.push_back(alloc("upper", MemSpace::sbuf, DType::fp32, 16, 8192, 64, 64));
  k.allocations.push_back(alloc("q1", MemSpace::sbuf, DType::fp32, 16, 8192, 32, 32));
  const std::uint32_t upper = 7, q1 = 8;
  auto run = [&](AccessPattern dst) {
    Kernel kk = k;
    kk.stream(Engine::vector).push_back(instr(Memset{dst, 0.0}));
    return check(kk, trn1_limits());
  };
  // Valid: 64 partitions at absolute 64; 32 at 64 + 32 = 96; 16 at 32.
  CHECK(run(sbuf(upper, 64, 16)).empty());
  auto p = sbuf(upper, 32, 16);
  p.start_partition = 32;
  CHECK(run(p).empty());
  CHECK(run(sbuf(q1, 16, 16)).empty());
  // 33-64 partitions at 32: not allowed.
  auto xt = sbuf(kX, 64, 16);
  xt.start_partition = 32;
  auto d = run(xt);
  REQUIRE(d.size() == 1);
  CHECK_THAT(d[0].reason, Catch::Contains("starts at partition 32 (allocation 0 + 32)") &&
                              Catch::Contains("33-64 partitions must start at partition 0 or 64"));
  // More than 64 partitions at 0 only.
  xt = sbuf(kX, 65, 16);
  xt.start_partition = 32;
  d = run(xt);
  REQUIRE(!d.empty());
  CHECK_THAT(d[0].reason, Catch::Contains("more than 64 partitions must start at partition 0"));
  // 32 or fewer at a multiple of 32: 16 + 16 is not.
  p = sbuf(q1, 8, 16);
  p.start_partition = 16;
  d = run(p);
  REQUIRE(d.size() == 1);
  CHECK_THAT(d[0].reason, Catch::Contains("starts at partition 48 (allocation 32 + 16)") &&
                              Catch::Contains("32 or fewer partitions must start at partition 0, "
                                              "32, 64 or 96"));
}

TEST_CASE("validate: the start partition rule follows partition_start_granule", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("q1", MemSpace::sbuf, DType::fp32, 16, 8192, 32, 32));
  auto limits = trn1_limits();
  limits.partition_start_granule = 16;
  auto run = [&](AccessPattern dst, const params::TargetLimits& l) {
    Kernel kk = k;
    kk.stream(Engine::vector).push_back(instr(Memset{dst, 0.0}));
    return check(kk, l);
  };
  // 16 partitions at 32 + 16 = 48: a multiple of 16, not of 32.
  auto p = sbuf(7, 16, 16);
  p.start_partition = 16;
  CHECK(run(p, limits).empty());
  CHECK(run(p, trn1_limits()).size() == 1);
  // 17-32 partitions at a multiple of 32; more than 32 at 0.
  auto d = run(sbuf(kX, 24, 16), limits);
  CHECK(d.empty());
  auto q = sbuf(kX, 24, 16);
  q.start_partition = 16;
  d = run(q, limits);
  REQUIRE(d.size() == 1);
  CHECK_THAT(d[0].reason, Catch::Contains("17-32 partitions must start at partition 0, 32, 64 "
                                          "or 96"));
  q = sbuf(kX, 33, 16);
  q.start_partition = 32;
  d = run(q, limits);
  REQUIRE(!d.empty());
  CHECK_THAT(d[0].reason, Catch::Contains("more than 32 partitions must start at partition 0"));
}

TEST_CASE("validate: pattern partitions outside the allocation", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("half", MemSpace::sbuf, DType::fp32, 16, 8192, 64, 0));
  k.stream(Engine::vector).push_back(instr(Memset{sbuf(7, 128, 16), 0.0}));
  expect_one(k, "dst: partitions [0, 128) fall outside allocation half's 64 partitions");
}

TEST_CASE("validate: pattern bytes past the end of the allocation", "[validate]") {
  auto op = copy_x_to_y(128, 512);
  op.src.byte_offset = 4;  // one element past xt's 512
  expect_one(with(Engine::vector, op),
             "src: bytes [4, 2052) per partition fall outside allocation xt (2048 bytes per "
             "partition)");
}

TEST_CASE("validate: negative strides are bounded from below", "[validate]") {
  auto op = copy_x_to_y(128, 512);
  // Reversed: element 0 at the last slot, stride -1 reaches byte 0 exactly.
  op.src.byte_offset = 511 * 4;
  op.src.dims[0] = {-1, 512};
  expect_none(with(Engine::vector, op));
  op.src.byte_offset = 510 * 4;  // one element before the start
  expect_one(with(Engine::vector, op), "src: bytes [-4, 2044) per partition fall outside");
}

TEST_CASE("validate: multi-dim extents count every dim", "[validate]") {
  auto op = copy_x_to_y(128, 512);
  op.src.ndims = 2;
  op.src.dims[0] = {128, 4};  // 4 rows of 128: reaches element 511
  op.src.dims[1] = {1, 128};
  expect_none(with(Engine::vector, op));
  op.src.dims[0] = {129, 4};  // reaches element 3*129+127 = 514
  expect_one(with(Engine::vector, op), "src: bytes [0, 2060) per partition fall outside");
}

TEST_CASE("validate: hbm pattern outside its tensor", "[validate]") {
  DmaCopy dma{sbuf(kX, 128, 512), hbm(kIn, 128, 512), 0,    false, false,
              std::nullopt,       std::nullopt,       false};
  dma.src.start_partition = 1;  // rows 1..128 of a 128-row tensor
  expect_one(with(Engine::sync, dma),
             "src: bytes [2048, 264192) fall outside tensor x (262144 bytes)");
  dma.src.start_partition = 0;
  dma.src.partition_stride = -512;  // rows 0, -1, ...: before the start
  expect_one(with(Engine::sync, dma), "fall outside tensor x");
  dma.src.byte_offset = 127 * 512 * 4;  // element 0 at row 127, then down to row 0: fine
  expect_none(with(Engine::sync, dma));
}

TEST_CASE("validate: byte offset aligned to the dtype", "[validate]") {
  auto op = copy_x_to_y(128, 16);
  op.src.byte_offset = 6;
  expect_one(with(Engine::vector, op),
             "src: byte offset 6 is not aligned to the fp32 element size (4 bytes)");
}

TEST_CASE("validate: sbuf partition_stride must be 0", "[validate]") {
  auto op = copy_x_to_y();
  op.src.partition_stride = 512;
  expect_one(with(Engine::vector, op), "src: partition_stride must be 0 in sbuf");
}

TEST_CASE("validate: sbuf free size limit", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("huge", MemSpace::sbuf, DType::bf16, 70000, 8192));
  auto dst = sbuf(7, 128, 1, DType::bf16);
  dst.ndims = 2;
  dst.dims[0] = {256, 256};
  dst.dims[1] = {1, 256};  // 65536 elements: the limit
  k.stream(Engine::vector).push_back(instr(Memset{dst, 0.0}));
  expect_none(k);
  Instruction wide = instr(Memset{sbuf(7, 128, 1, DType::bf16), 0.0});
  auto& m = std::get<Memset>(wide.op);
  m.dst.ndims = 2;
  m.dst.dims[0] = {1, 2};
  m.dst.dims[1] = {2, 32769};  // 65538 elements
  k.stream(Engine::vector).replace(0, wide);
  expect_one(k,
             "dst: free size 65538 exceeds the 65536 elements one instruction may access in "
             "sbuf");
}

TEST_CASE("validate: psum free size limit", "[validate]") {
  // 4K elements of PSUM per instruction on trn1; use a limit set lower to keep the
  // access inside one bank, so that only the free-size rule fires.
  auto limits = trn1_limits();
  limits.max_psum_free_elems = 256;
  TensorCopy op{sbuf(kY, 128, 512), psum(kPs, 128, 512)};
  expect_one(with(Engine::vector, op),
             "src: free size 512 exceeds the 256 elements one instruction may access in psum",
             limits);
}

TEST_CASE("validate: a matmul result stays in one PSUM bank; other accesses may cross",
          "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("accs", MemSpace::psum, DType::fp32, 1024, 4096));  // banks 2-3
  // A Vector read of PSUM may cross banks (up to 4K elements per instruction, ref 2).
  TensorCopy op{sbuf(kY, 128, 512), psum(7, 128, 512)};
  op.src.byte_offset = 1024;  // bytes [5120, 7168): crosses 6144
  k.stream(Engine::vector).push_back(instr(op));
  expect_none(k);
  // A matmul's accumulation group is one bank: the same bytes as its result are refused.
  Matmul mm{psum(7, 128, 512), sbuf(kW, 128, 128, DType::bf16), sbuf(kW, 128, 512, DType::bf16)};
  mm.dst.byte_offset = 1024;
  k.stream(Engine::tensor).push_back(instr(mm));
  expect_one(k, "dst: psum bytes [5120, 7168) cross a 2048-byte bank boundary");
  k.stream(Engine::tensor).edit(0, [](Instruction& i) {
    std::get<Matmul>(i.op).dst.byte_offset = 2048;  // bank 3
  });
  expect_none(k);
}

TEST_CASE("validate: a broken pattern does not cascade into shape rules", "[validate]") {
  auto op = copy_x_to_y();
  op.src.ndims = 9;
  const auto d = check(with(Engine::vector, op), trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 1);
}
