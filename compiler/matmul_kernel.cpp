// Matmul lowering (docs/compiler.md, "Matmul"). The Tensor engine computes
// dst[M,N] = stationary[K,M]^T @ moving[K,N] with K on the partitions (reference
// section 3), so A is loaded transposed: each [128(k), 128(m)] block of A^T comes
// straight from HBM with a strided DMA pattern (partition stride 1 element, free stride K).
// B stays in SBUF for the whole kernel. Per 128-row tile of A and per <= 512-column chunk
// of C: K/128 matmuls accumulate in one PSUM bank (two banks alternate), Vector copies the
// bank to the output tile (casting to C's dtype), Sync stores it. A tiles and output
// tiles are double-buffered.
#include "compiler/matmul_kernel.hpp"

#include <algorithm>

#include "isa/builder.hpp"
#include "isa/error.hpp"

namespace neuronsim::compiler {

using namespace isa;

namespace {
constexpr std::uint32_t kPartitions = 128;  // reference section 1
constexpr std::uint32_t kPsumSlots = 2;     // PSUM banks in flight: multiply one, drain one
}  // namespace

Kernel emit_matmul_kernel(const Graph& g, const Node& n, const std::string& kernel_name,
                          const std::string& target, const TargetLimits& limits) {
  auto fail = [&](const std::string& reason) -> void {
    throw Error(g.source + ": node '" + n.id + "': " + reason);
  };
  const std::string& a_name = n.args[0].tensor;
  const std::string& b_name = n.args[1].tensor;
  const TensorType& at_type = g.type_of(a_name);
  const TensorType& bt_type = g.type_of(b_name);
  const auto M = static_cast<std::uint32_t>(at_type.shape[0]);
  const auto K = static_cast<std::uint32_t>(at_type.shape[1]);
  const auto N = static_cast<std::uint32_t>(bt_type.shape[1]);
  if (M % kPartitions != 0)
    fail("matmul: tensor '" + a_name + "' has " + std::to_string(M) +
         " rows, which must be a multiple of 128");
  if (K > kPartitions && K % kPartitions != 0)
    fail("matmul: the contraction size " + std::to_string(K) +
         " must be at most 128 or a multiple of 128");
  if (K > 32767) fail("matmul: the contraction size must fit an int16 DMA stride");
  const std::uint32_t kp = std::min(K, kPartitions), KT = (K + kPartitions - 1) / kPartitions;
  const std::uint32_t chunk = std::min<std::uint32_t>(limits.matmul_max_n, 512);
  const std::uint32_t NC = (N + chunk - 1) / chunk;
  const std::uint32_t T = M / kPartitions;
  const DType in_t = at_type.dtype, out_t = n.type.dtype;
  const std::uint64_t esize = dtype_size(in_t);

  std::uint32_t nbuf = 2;
  auto sbuf_bytes = [&](std::uint32_t nb) {
    return esize * KT * N + nb * esize * KT * kPartitions + nb * dtype_size(out_t) * N;
  };
  if (sbuf_bytes(2) > limits.sbuf_bytes_per_partition) nbuf = 1;
  if (sbuf_bytes(1) > limits.sbuf_bytes_per_partition)
    fail("matmul: needs " + std::to_string(sbuf_bytes(1)) +
         " bytes of SBUF per partition (B resident), the target has " +
         std::to_string(limits.sbuf_bytes_per_partition));

  Builder b(kernel_name, target);
  Buffer A = b.input(a_name, in_t, at_type.shape);
  Buffer B = a_name == b_name ? A : b.input(b_name, bt_type.dtype, bt_type.shape);
  Buffer C = b.output(n.id, out_t, n.type.shape);
  Buffer bt = b.sbuf(b_name + "_sb", in_t, {kp, KT, N});
  Buffer at = b.sbuf(a_name + "_t_sb", in_t, {kp, nbuf, KT, kPartitions});
  Buffer ot = b.sbuf(n.id + "_sb", out_t, {kPartitions, nbuf, N});
  Buffer ps = b.psum(n.id + "_ps", DType::fp32, {kPartitions, kPsumSlots, chunk});
  Queue qin = b.queue("load", 0, 16), qout = b.queue("store", 0, 16);
  Sem b_loaded = b.semaphore("b_loaded"), a_loaded = b.semaphore("a_loaded");
  Sem a_free = b.semaphore("a_free"), mm_done = b.semaphore("mm_done");
  Sem ps_free = b.semaphore("ps_free"), o_ready = b.semaphore("o_ready");
  Sem o_stored = b.semaphore("o_stored");

  for (std::uint32_t kt = 0; kt < KT; ++kt)
    b.sync()
        .dma_copy(bt.slice(Ix(), kt), B.slice(Ix(kt * kPartitions, kt * kPartitions + kp)), qin)
        .signal(b_loaded);
  auto load = [&](std::uint32_t t) {
    for (std::uint32_t kt = 0; kt < KT; ++kt) {
      const std::uint64_t offset = (std::uint64_t{t} * kPartitions * K + kt * kPartitions) * esize;
      auto ref =
          b.sync()
              .dma_copy(at.slice(Ix(), t % nbuf, kt),
                        A.raw(0, kp, 1, offset, {{static_cast<std::int32_t>(K), kPartitions}}), qin)
              .signal(a_loaded);
      if (t >= nbuf) ref.wait(a_free, t - nbuf + 1);
    }
  };

  for (std::uint32_t t = 0; t < T; ++t) {
    const std::uint32_t s = t % nbuf;
    for (std::uint32_t nc = 0; nc < NC; ++nc) {
      const std::uint32_t j = t * NC + nc, n0 = nc * chunk, nsz = std::min(chunk, N - n0);
      const std::uint32_t slot = j % kPsumSlots;
      for (std::uint32_t kt = 0; kt < KT; ++kt) {
        const AccumulateFlag acc = KT == 1        ? AccumulateFlag::single
                                   : kt == 0      ? AccumulateFlag::first
                                   : kt + 1 == KT ? AccumulateFlag::last
                                                  : AccumulateFlag::middle;
        auto mm = b.tensor().matmul(ps.slice(Ix(), slot, Ix(0, nsz)), at.slice(Ix(), s, kt),
                                    bt.slice(Ix(), kt, Ix(n0, n0 + nsz)), acc);
        if (kt == 0 && nc == 0) mm.wait(a_loaded, (t + 1) * KT);
        if (kt == 0 && j == 0) mm.wait(b_loaded, KT);
        if (kt == 0 && j >= kPsumSlots) mm.wait(ps_free, j - kPsumSlots + 1);
        if (kt + 1 == KT) mm.signal(mm_done);
        if (kt + 1 == KT && nc + 1 == NC) mm.signal(a_free);
      }
      auto copy =
          b.vector()
              .tensor_copy(ot.slice(Ix(), s, Ix(n0, n0 + nsz)), ps.slice(Ix(), slot, Ix(0, nsz)))
              .wait(mm_done, j + 1)
              .signal(ps_free);
      if (nc == 0 && t >= nbuf) copy.wait(o_stored, t - nbuf + 1);
      if (nc + 1 == NC) copy.signal(o_ready);
    }
  }
  const std::uint32_t ahead = std::min(nbuf, T);
  for (std::uint32_t t = 0; t < ahead; ++t)
    load(t);
  for (std::uint32_t t = 0; t < T; ++t) {
    b.sync()
        .dma_copy(C.slice(Ix(t * kPartitions, (t + 1) * kPartitions)), ot.slice(Ix(), t % nbuf),
                  qout)
        .wait(o_ready, t + 1)
        .signal(o_stored);
    if (t + ahead < T) load(t + ahead);
  }
  return b.build();
}

}  // namespace neuronsim::compiler
