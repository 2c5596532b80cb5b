// Row softmax, y = exp(x - max(x)) / sum(exp(x - max(x))) per row, one 128-row tile at a
// time:
//   sync    load x tile
//   vector  tensor_reduce max with negate: nmax = -max(x)
//   scalar  activation exp with bias nmax and add-reduce: e = exp(x - max), sum = sum(e)
//   vector  tensor_scalar: rsum = 1 / sum (divide, operands reversed)
//   vector  tensor_scalar: y = e * rsum
//   sync    store y tile
// With nbuf buffers (1 serial, 2 double-buffered, up to 8) loads and stores overlap compute.
#include "builder/builder.hpp"
#include "examples/kernels.hpp"
#include "examples/row_pipeline.hpp"

namespace neuronsim::examples {

using namespace isa;

Kernel softmax_rows(const ExampleParams& p) {
  const std::uint32_t N = or_default(p.rows, 1024), D = or_default(p.cols, 1024);
  require_bf16(p.dtype, "softmax");
  const std::uint32_t T = tiles_of(N, "rows");
  const std::uint32_t nbuf = stage_buffers(p);

  Builder b(buffered_name("softmax", nbuf), p.target);
  Buffer x = b.input("x", DType::bf16, {N, D});
  Buffer y = b.output("y", DType::bf16, {N, D});
  Buffer xt = b.sbuf("xt", DType::bf16, {kPartitions, nbuf, D});
  Buffer et = b.sbuf("et", DType::fp32, {kPartitions, nbuf, D});
  Buffer yt = b.sbuf("yt", DType::bf16, {kPartitions, nbuf, D});
  Buffer nmax = b.sbuf("nmax", DType::fp32, {kPartitions, nbuf});
  Buffer sum = b.sbuf("sum", DType::fp32, {kPartitions, nbuf});
  Buffer rsum = b.sbuf("rsum", DType::fp32, {kPartitions, nbuf});
  const std::uint8_t engines = dma_engines(p.limits, "softmax");
  Queue qin = b.queue("load", 0, engines), qout = b.queue("store", 0, engines);
  Sem x_loaded = b.semaphore("x_loaded"), max_ready = b.semaphore("max_ready");
  Sem exp_ready = b.semaphore("exp_ready"), y_ready = b.semaphore("y_ready");
  Sem x_free = b.semaphore("x_free"), y_free = b.semaphore("y_free");

  RowPipeline io{b, x, y, xt, yt, T, nbuf, qin, qout, x_loaded, x_free, y_ready, y_free};
  auto col = [&](Buffer& v, std::uint32_t s) { return v.slice(Ix(), Ix(s, s + 1)); };
  io.prologue();

  for (std::uint32_t t = 0; t < T; ++t) {
    const auto s = io.buf(t);
    b.vector()
        .tensor_reduce(col(nmax, s), xt.slice(Ix(), s), AluOp::max, 1, /*negate=*/true)
        .wait(x_loaded, t + 1)
        .signal(max_ready);
    // Scalar is the last reader of x[s]: it releases the buffer for the next load.
    b.scalar()
        .activation(et.slice(Ix(), s), xt.slice(Ix(), s), ActFunc::exp)
        .bias(col(nmax, s))
        .reduce(col(sum, s))
        .wait(max_ready, t + 1)
        .signal(exp_ready)
        .signal(x_free);
    b.vector()
        .tensor_scalar(col(rsum, s), col(sum, s), AluOp::divide, 1.0)
        .reverse0()
        .wait(exp_ready, t + 1);
    auto norm =
        b.vector()
            .tensor_scalar(yt.slice(Ix(), s), et.slice(Ix(), s), AluOp::multiply, col(rsum, s))
            .signal(y_ready);
    if (t >= nbuf) norm.wait(y_free, t - nbuf + 1);
  }
  io.stores();
  return b.build();
}

}  // namespace neuronsim::examples
