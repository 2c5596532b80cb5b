// The builder makes the same Kernel as the equivalent assembly, and reports bad
// declarations as errors that name the buffer.
#include <catch2/catch.hpp>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "builder/builder.hpp"

namespace {

using namespace neuronsim::isa;
using Catch::Matchers::Contains;

}  // namespace

TEST_CASE("builder: tiny_add equals examples/asm/tiny_add.nasm", "[builder]") {
  Builder b("tiny_add", "trn2");
  Buffer a = b.input("a", DType::fp32, {128, 512});
  Buffer bb = b.input("b", DType::fp32, {128, 512});
  Buffer out = b.output("out", DType::fp32, {128, 512});
  Buffer xa = b.sbuf("xa", DType::fp32, {128, 512});
  Buffer xb = b.sbuf("xb", DType::fp32, {128, 512});
  Buffer xo = b.sbuf("xo", DType::fp32, {128, 512});
  Sem a_loaded = b.semaphore("a_loaded");
  Sem b_loaded = b.semaphore("b_loaded");
  Sem added = b.semaphore("added");
  Sem stored = b.semaphore("stored");
  Queue loads = b.queue("loads", 0, 1);
  Queue stores = b.queue("stores", 1, 1);
  b.sync().dma_copy(xa, a, loads).signal(a_loaded);
  b.sync().dma_copy(xb, bb, loads).signal(b_loaded);
  b.sync().dma_copy(out, xo, stores).wait(added, 1).signal(stored);
  b.sync().nop().wait(stored, 1);
  b.vector()
      .tensor_tensor(xo, xa, xb, AluOp::add)
      .wait(a_loaded, 1)
      .wait(b_loaded, 1)
      .signal(added);

  const Kernel from_file =
      assemble_file(std::string(NEURONSIM_SOURCE_DIR) + "/examples/asm/tiny_add.nasm");
  const Kernel built = b.build();
  REQUIRE(built == from_file);
  CHECK(built.allocations[2].byte_offset == 4096);
}

TEST_CASE("builder: every opcode and option equals the assembly", "[builder]") {
  const char* src = R"(kernel tour target=trn1
tensor x bf16[256, 64] input
tensor c int16[2, 2] constant = [1, -2, 3, 4]
tensor f fp32[128, 1] constant = 0.25
tensor y fp32[128, 64] output
sbuf xs bf16[128, 64]
sbuf v fp32[128, 1]
sbuf m fp32[32, 32] partition=64 offset=8192
sbuf st fp32[128, 6]
psum ps fp32[128, 4, 128]
sem s0
sem s1 = 2
queue q first_engine=2 engines=4

tensor:
    matmul ps[:, 0, 0:64], xs[:, 0:64], xs, acc=first  wait s0>=1
    matmul ps[:, 1, 0:64], xs{ap=[[0, 128], [1, 64]]}, xs, acc=last  signal s1+=2
    transpose ps[0:64, 2, 0:64], xs[0:64, :]
vector:
    tensor_tensor xs, xs, xs.fp32[:, 0:32], op=max  signal s1=0
    tensor_scalar xs, xs, op0=subtract, arg0=v, reverse0=true, op1=multiply, arg1=0.5, reverse1=true, reduce=v, reduce_op=max
    scalar_tensor_tensor xs, xs, xs, scalar=2, op0=multiply, op1=add
    tensor_reduce v, xs, op=add, axes=1, negate=true
    transpose m, m
    iota xs[:, 0:8], base=3, partition_step=1, steps=[2]
    select xs, xs, xs, xs
    bn_stats st, xs
    bn_aggr v, st[:, 0:2]
scalar:
    activation xs, ps[:, 0, 0:64], func=gelu_apprx_tanh, scale=v, bias=v, reduce=v
    tensor_copy xs, xs
    memset v, value=-1.5
gpsimd:
    affine_select xs, xs, cmp=is_gt, offset=-1, partition_step=1, steps=[0, -1], fill=-1e30
    iota xs
sync:
    dma_copy xs, x[128:256, :], queue=q, accumulate=true  wait s0>=1, s1>=2  signal s0, s1+=3, s0=7
    nop
)";
  Builder b("tour", "trn1");
  Buffer x = b.input("x", DType::bf16, {256, 64});
  b.constant("c", DType::int16, {2, 2}, {1, -2, 3, 4});
  b.constant_fill("f", DType::fp32, {128, 1}, 0.25);
  b.output("y", DType::fp32, {128, 64});
  Buffer xs = b.sbuf("xs", DType::bf16, {128, 64});
  Buffer v = b.sbuf("v", DType::fp32, {128, 1});
  Buffer m = b.sbuf("m", DType::fp32, {32, 32}, 64, 8192);
  Buffer st = b.sbuf("st", DType::fp32, {128, 6});
  Buffer ps = b.psum("ps", DType::fp32, {128, 4, 128});
  Sem s0 = b.semaphore("s0");
  Sem s1 = b.semaphore("s1", 2);
  Queue q = b.queue("q", 2, 4);

  auto te = b.tensor();
  te.matmul(ps.slice(Ix::all(), 0, {0, 64}), xs.slice(Ix::all(), {0, 64}), xs,
            AccumulateFlag::first)
      .wait(s0, 1);
  te.matmul(ps.slice(Ix::all(), 1, {0, 64}), xs.raw(0, 128, 0, 0, {{1, 64}}), xs,
            AccumulateFlag::last)
      .signal(s1, 2);
  te.transpose(ps.slice({0, 64}, 2, {0, 64}), xs.slice({0, 64}));
  auto ve = b.vector();
  ve.tensor_tensor(xs, xs, xs.as(DType::fp32).slice(Ix::all(), {0, 32}), AluOp::max)
      .signal_set(s1, 0);
  ve.tensor_scalar(xs, xs, AluOp::subtract, v)
      .reverse0()
      .then(AluOp::multiply, 0.5)
      .reverse1()
      .reduce(v, AluOp::max);
  ve.scalar_tensor_tensor(xs, xs, 2, AluOp::multiply, xs, AluOp::add);
  ve.tensor_reduce(v, xs, AluOp::add, 1, true);
  ve.transpose(m, m);
  ve.iota(xs.slice(Ix::all(), {0, 8}), 3, 1, {2});
  ve.select(xs, xs, xs, xs);
  ve.bn_stats(st, xs);
  ve.bn_aggr(v, st.slice(Ix::all(), {0, 2}));
  auto se = b.scalar();
  se.activation(xs, ps.slice(Ix::all(), 0, {0, 64}), ActFunc::gelu_apprx_tanh)
      .scale(v)
      .bias(v)
      .reduce(v);
  se.tensor_copy(xs, xs);
  se.memset(v, -1.5);
  b.gpsimd().affine_select(xs, xs, AluOp::is_gt, -1, 1, {0, -1}, -1e30f);
  b.gpsimd().iota(xs, 0, 0);
  b.sync()
      .dma_copy(xs, x.slice({128, 256}, Ix::all()), q, true)
      .wait(s0, 1)
      .wait(s1, 2)
      .signal(s0)
      .signal(s1, 3)
      .signal_set(s0, 7);
  b.sync().nop();

  const Kernel assembled = assemble(src, "tour.nasm");
  const Kernel built = b.build();
  CHECK(print(built) == print(assembled));
  REQUIRE(built == assembled);
}

TEST_CASE("builder: declaration and slice errors name the buffer", "[builder]") {
  Builder b("k");
  Buffer xa = b.sbuf("xa", DType::fp32, {128, 512});
  REQUIRE_THROWS_WITH(b.input("xa", DType::fp32, {4}),
                      Contains("builder: tensor 'xa': duplicate name"));
  REQUIRE_THROWS_WITH(b.semaphore("not a name"), Contains("builder: semaphore 'not a name'"));
  REQUIRE_THROWS_WITH(xa.slice({0, 128}, {0, 600}),
                      Contains("builder: slice of 'xa': slice 0:600 out of range for axis 1"));
  REQUIRE_THROWS_WITH(b.sbuf("odd", DType::bf16, {128, 3}).as(DType::fp32),
                      Contains("builder: view of 'odd': cannot view 'odd' as fp32"));
  REQUIRE_THROWS_WITH(b.constant("c", DType::int8, {2}, {1, 300}),
                      Contains("value 300 out of range for int8"));
  REQUIRE_THROWS_WITH(b.constant("c2", DType::int8, {2}, {1}), Contains("1 values given"));
  REQUIRE_THROWS_WITH(xa.raw(0, 1, 0, 0, {}), Contains("needs 1 to 4 free dims"));
}

TEST_CASE("builder: handles slice like the assembly", "[builder]") {
  Builder b("k");
  Buffer t = b.sbuf("t", DType::fp32, {128, 4, 8});
  const AccessPattern ap = t.slice({0, 64}, 1, {2, 6});
  CHECK(ap.partitions == 64);
  CHECK(ap.byte_offset == 10 * 4);
  CHECK(ap.ndims == 1);
  CHECK(ap.dims[0] == Dim{1, 4});
  const AccessPattern whole = t;
  CHECK(whole.ndims == 2);
  CHECK(whole.dims[0] == Dim{8, 4});
  CHECK(t.as(DType::bf16).shape() == std::vector<std::uint64_t>{128, 4, 16});
}
