// Validation of tensors, allocations, semaphores and queues.
#include <catch2/catch.hpp>

#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

TEST_CASE("validate: the fixture's declarations are valid", "[validate]") {
  expect_none(base_kernel());
}

TEST_CASE("validate: duplicate tensor names", "[validate]") {
  Kernel k = base_kernel();
  k.tensors[1].name = "x";
  const auto d = check(k, trn1_limits());
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "tensor x");
  CHECK_THAT(d[0].reason, Catch::Contains("duplicate name") && Catch::Contains("tensor #0"));
}

TEST_CASE("validate: constant data must be exactly the tensor's bytes", "[validate]") {
  Kernel k = base_kernel();
  k.tensors[kConst].data.resize(6);
  expect_one(k, "constant data is 6 bytes, its shape and dtype need 8");
}

TEST_CASE("validate: tensor shape with a zero dimension", "[validate]") {
  Kernel k = base_kernel();
  k.tensors[kIn].shape = {128, 0};
  expect_one(k, "zero dimension");
}

TEST_CASE("validate: allocation beyond SBUF capacity", "[validate]") {
  Kernel k = base_kernel();
  // 192 KiB per partition on trn1: 49152 fp32 fill it exactly; one more element is too many.
  k.allocations.push_back(alloc("big", MemSpace::sbuf, DType::fp32, 49152 - 7172 / 4 + 1, 7172));
  expect_one(k, "exceed the sbuf capacity of 196608 bytes per partition");
}

TEST_CASE("validate: an allocation filling SBUF exactly is fine", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("big", MemSpace::sbuf, DType::fp32, 49152 - 7172 / 4, 7172));
  expect_none(k);
}

TEST_CASE("validate: allocation beyond PSUM capacity", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("acc", MemSpace::psum, DType::fp32, 4096 - 1024 + 1, 4096));
  expect_one(k, "exceed the psum capacity of 16384 bytes per partition");
}

TEST_CASE("validate: allocation partitions beyond the partition count", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("hi", MemSpace::sbuf, DType::fp32, 4, 8192, 64, 96));
  expect_one(k, "partitions [96, 160) exceed the 128 partitions of sbuf");
}

TEST_CASE("validate: allocation with zero partitions", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("none", MemSpace::sbuf, DType::fp32, 4, 8192, 0));
  expect_one(k, "partition count 0 is not in 1..128");
}

TEST_CASE("validate: allocation with an empty free shape", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("empty", MemSpace::sbuf, DType::fp32, 0, 8192));
  expect_one(k, "free shape is empty");
}

TEST_CASE("validate: allocation in hbm", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("h", MemSpace::hbm, DType::fp32, 4, 8192));
  expect_one(k, "allocations live in sbuf or psum");
}

TEST_CASE("validate: misaligned allocation", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("odd", MemSpace::sbuf, DType::fp32, 4, 8194));
  expect_one(k, "byte offset 8194 is not aligned to the fp32 element size (4 bytes)");
}

TEST_CASE("validate: overlapping allocations name both", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("clash", MemSpace::sbuf, DType::fp32, 4, 2032, 32, 32));
  const auto d = check(k, trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "allocation clash");
  CHECK_THAT(d[0].reason, Catch::Contains("overlaps allocation xt"));
}

TEST_CASE("validate: allocations overlapping in bytes but not partitions are fine", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("lo", MemSpace::sbuf, DType::fp32, 16, 8192, 32, 0));
  k.allocations.push_back(alloc("hi", MemSpace::sbuf, DType::fp32, 16, 8192, 32, 32));
  k.allocations.push_back(alloc("wide", MemSpace::sbuf, DType::fp32, 16, 8192, 64, 64));
  expect_none(k);
}

TEST_CASE("validate: sbuf and psum allocations at the same bytes do not overlap", "[validate]") {
  // xt (sbuf) and ps (psum) both start at byte 0: different memories.
  expect_none(base_kernel());
}

TEST_CASE("validate: three-way overlap reports each pair once", "[validate]") {
  Kernel k = base_kernel();
  k.allocations.push_back(alloc("a", MemSpace::sbuf, DType::fp32, 64, 8192));
  k.allocations.push_back(alloc("b", MemSpace::sbuf, DType::fp32, 64, 8192 + 64));
  k.allocations.push_back(alloc("c", MemSpace::sbuf, DType::fp32, 64, 8192 + 128));
  const auto d = check(k, trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 3);  // a-b, a-c, b-c
}

TEST_CASE("validate: too many semaphores", "[validate]") {
  Kernel k = base_kernel();
  k.semaphores.clear();
  for (int i = 0; i < 33; ++i)
    k.semaphores.push_back({"s" + std::to_string(i), 0});
  const auto d = check(k, trn1_limits());
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "semaphores");
  CHECK_THAT(d[0].reason, Catch::Contains("33 semaphores declared, the target has 32"));
}

TEST_CASE("validate: duplicate semaphore names", "[validate]") {
  Kernel k = base_kernel();
  k.semaphores[1].name = "s0";
  expect_one(k, "duplicate name");
}

TEST_CASE("validate: queue beyond the DMA engines", "[validate]") {
  Kernel k = base_kernel();
  k.queues.push_back({"q1", 8, 9});
  const auto d = check(k, trn1_limits());
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "queue q1");
  CHECK_THAT(d[0].reason, Catch::Contains("DMA engines [8, 17) exceed the target's 16"));
}

TEST_CASE("validate: queue with no DMA engines", "[validate]") {
  Kernel k = base_kernel();
  k.queues.push_back({"q1", 0, 0});
  expect_one(k, "uses 0 DMA engines");
}

TEST_CASE("validate: too many queues on one DMA engine", "[validate]") {
  Kernel k = base_kernel();
  for (int i = 1; i < 16; ++i)
    k.queues.push_back({"q" + std::to_string(i), 3, 1});
  expect_none(k);  // engine 3 serves 16 queues: the limit
  k.queues.push_back({"q16", 3, 2});
  const auto d = check(k, trn1_limits());
  REQUIRE(d.size() == 1);
  CHECK(d[0].where == "queue q16");
  CHECK_THAT(d[0].reason, Catch::Contains("DMA engine 3 would serve more than 16 queues"));
}

TEST_CASE("validate: an instruction waits on or signals at most the target's semaphores",
          "[validate]") {
  // trn1 has 32 semaphores (trn1_limits): 33 waits cannot all name a different one, and
  // a NEFF record may list up to 65,535 (docs/neff.md).
  for (const bool waits : {true, false}) {
    Kernel k = base_kernel();
    Instruction nop = instr(Nop{}, 7);
    for (int i = 0; i < 33; ++i) {
      if (waits) nop.waits.push_back({0, 1});
      if (!waits) nop.signals.push_back({0, SemUpdate::increment, 1});
    }
    k.stream(Engine::sync).push_back(nop);
    expect_one(k, waits ? "33 semaphore waits, the target has 32 semaphores"
                        : "33 semaphore signals, the target has 32 semaphores");
  }
}
