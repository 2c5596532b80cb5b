// Hand-fused RMSNorm, y = x * rsqrt(mean(x^2) + eps) * w, one 128-row tile at a time:
//   sync    load x tile (HBM -> SBUF)
//   scalar  activation square with scale 1/sqrt(D) and add-reduce: ss = mean(x^2)
//   scalar  activation rsqrt with bias eps: rstd = 1/sqrt(ss + eps)
//   vector  scalar_tensor_tensor: y = (x * rstd) * w
//   sync    store y tile (SBUF -> HBM)
// Data stays on chip between the steps. With nbuf buffers (1 serial, 2 double-buffered, up to 8)
// the load of tile t+nbuf overlaps the compute of tile t. Semaphores count tiles:
// x_loaded = tiles loaded, rstd_ready = row factors computed, y_ready = tiles computed,
// x_free = x buffers released, y_free = tiles stored.
#include <cmath>

#include "builder/builder.hpp"
#include "examples/kernels.hpp"
#include "examples/row_pipeline.hpp"

namespace neuronsim::examples {

using namespace isa;

Kernel rmsnorm_fused(const ExampleParams& p, float eps) {
  const std::uint32_t N = or_default(p.rows, 1024), D = or_default(p.cols, 2048);
  // bf16 (the study's) or fp32 (neuronsim.torch.rms_norm of fp32 tensors): x, w and y in
  // it; on chip the statistics are fp32 either way.
  if (!p.dtype.empty() && p.dtype != "bf16" && p.dtype != "fp32")
    throw Error("rmsnorm: dtype '" + p.dtype + "' is not supported (bf16 or fp32)");
  const DType dt = p.dtype == "fp32" ? DType::fp32 : DType::bf16;
  const std::uint32_t T = tiles_of(N, "rows");
  const std::uint32_t nbuf = stage_buffers(p);

  Builder b(buffered_name("rmsnorm", nbuf), p.target);
  Buffer x = b.input("x", dt, {N, D});
  Buffer w = b.input("w", dt, {D});
  Buffer y = b.output("y", dt, {N, D});
  Buffer xt = b.sbuf("xt", dt, {kPartitions, nbuf, D});
  Buffer yt = b.sbuf("yt", dt, {kPartitions, nbuf, D});
  Buffer wt = b.sbuf("wt", dt, {kPartitions, D});
  Buffer sq = b.sbuf("sq", dt, {kPartitions, D});  // squares, only their sum is used
  Buffer ss = b.sbuf("ss", DType::fp32, {kPartitions, nbuf});
  Buffer rstd = b.sbuf("rstd", DType::fp32, {kPartitions, nbuf});
  Buffer eps_t = b.sbuf("eps", DType::fp32, {kPartitions, 1});
  const std::uint8_t engines = dma_engines(p.limits, "rmsnorm");
  Queue qin = b.queue("load", 0, engines), qout = b.queue("store", 0, engines);
  Sem w_loaded = b.semaphore("w_loaded"), eps_ready = b.semaphore("eps_ready");
  Sem x_loaded = b.semaphore("x_loaded"), rstd_ready = b.semaphore("rstd_ready");
  Sem y_ready = b.semaphore("y_ready"), x_free = b.semaphore("x_free");
  Sem y_free = b.semaphore("y_free");

  RowPipeline io{b, x, y, xt, yt, T, nbuf, qin, qout, x_loaded, x_free, y_ready, y_free};

  // w broadcast to every partition: partition stride 0 over the 1-D tensor.
  b.sync().dma_copy(wt, w.raw(0, kPartitions, 0, 0, {{1, D}}), qin).signal(w_loaded);
  b.vector().memset(eps_t, eps).signal(eps_ready);
  io.prologue();

  const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(D));
  for (std::uint32_t t = 0; t < T; ++t) {
    const auto s = io.buf(t);
    auto sum = b.scalar()
                   .activation(sq, xt.slice(Ix(), s), ActFunc::square)
                   .scale(inv_sqrt_d)
                   .reduce(ss.slice(Ix(), Ix(s, s + 1)))
                   .wait(x_loaded, t + 1);
    if (t == 0) sum.wait(eps_ready, 1);
    b.scalar()
        .activation(rstd.slice(Ix(), Ix(s, s + 1)), ss.slice(Ix(), Ix(s, s + 1)), ActFunc::rsqrt)
        .bias(eps_t)
        .signal(rstd_ready);

    auto scale = b.vector()
                     .scalar_tensor_tensor(yt.slice(Ix(), s), xt.slice(Ix(), s),
                                           rstd.slice(Ix(), Ix(s, s + 1)), AluOp::multiply, wt,
                                           AluOp::multiply)
                     .wait(rstd_ready, t + 1)
                     .signal(y_ready)
                     .signal(x_free);
    if (t == 0) scale.wait(w_loaded, 1);
    if (t >= nbuf) scale.wait(y_free, t - nbuf + 1);
  }
  io.stores();
  return b.build();
}

}  // namespace neuronsim::examples
