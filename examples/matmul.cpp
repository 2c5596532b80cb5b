// Tiled matmul: C[M,N] = A[M,K] @ B[K,N], A given as a_t[K,M].
//
// The Tensor engine computes psum[m, n] += sum_k stationary[k, m] * moving[k, n] for one
// 128-deep K tile (reference section 3), so a_t[k-tile, m-tile] is the stationary operand
// and b[k-tile, :] the moving one; N <= 512 fills one 2 KiB PSUM bank of fp32 per partition.
//
// Serial: load all of a_t and b, then every matmul (m outer, k inner), then copy every
// PSUM tile out and store. Double-buffered: K tiles arrive one by one on two queues and
// the matmuls run k outer, m inner, so the multiplies of k-tile 0 start while k-tiles 1..
// are still loading (up to 4 accumulation groups in flight, one PSUM bank each); each
// finished M tile is copied out (Vector and Scalar alternate) and stored while others
// are still being copied.
#include "examples/kernels.hpp"
#include "examples/tiling.hpp"
#include "isa/builder.hpp"

namespace neuronsim::examples {

using namespace isa;

Kernel matmul_tiled(const ExampleParams& p) {
  const std::uint32_t M = or_default(p.rows, 512), N = or_default(p.cols, 512),
                      K = or_default(p.inner, 512);
  const std::uint32_t mt = tiles_of(M, "M"), kt = tiles_of(K, "K");
  if (N == 0 || N > 512) throw Error("N = " + std::to_string(N) + " must be 1..512");
  if (mt > 8) throw Error("M = " + std::to_string(M) + ": at most 8 PSUM banks (M <= 1024)");
  const bool db = p.double_buffered;

  Builder b(db ? "matmul_db" : "matmul", p.target);
  Buffer a_t = b.input("a_t", DType::bf16, {K, M});
  Buffer bm = b.input("b", DType::bf16, {K, N});
  Buffer c = b.output("c", DType::bf16, {M, N});
  Buffer sa = b.sbuf("sa", DType::bf16, {kPartitions, kt, M});
  Buffer sb = b.sbuf("sb", DType::bf16, {kPartitions, kt, N});
  Buffer sc = b.sbuf("sc", DType::bf16, {kPartitions, mt, N});
  Buffer ps = b.psum("ps", DType::fp32, {kPartitions, mt, 512});
  Queue qa = b.queue("load_a", 0, 8), qb = b.queue("load_b", 8, 8), qc = b.queue("store", 0, 16);
  Sem a_loaded = b.semaphore("a_loaded"), b_loaded = b.semaphore("b_loaded");
  Sem mm_done = b.semaphore("mm_done");
  // One counter per copying engine: each engine copies its tiles in order, so "tile m is
  // copied" is "its engine's counter reached m's rank on that engine".
  Sem copied_v = b.semaphore("copied_v"), copied_s = b.semaphore("copied_s");

  auto rows = [](std::uint32_t t) { return Ix(t * kPartitions, (t + 1) * kPartitions); };
  for (std::uint32_t k = 0; k < kt; ++k) {
    b.sync().dma_copy(sa.slice(Ix(), k), a_t.slice(rows(k)), qa).signal(a_loaded);
    b.sync().dma_copy(sb.slice(Ix(), k), bm.slice(rows(k)), qb).signal(b_loaded);
  }

  auto flag = [&](std::uint32_t k) {
    if (kt == 1) return AccumulateFlag::single;
    return k == 0 ? AccumulateFlag::first
                  : (k + 1 == kt ? AccumulateFlag::last : AccumulateFlag::middle);
  };
  auto psum_tile = [&](std::uint32_t m) { return ps.slice(Ix(), m, Ix(0, N)); };
  auto matmul = [&](std::uint32_t m, std::uint32_t k) {
    return b.tensor().matmul(psum_tile(m), sa.slice(Ix(), k, rows(m)), sb.slice(Ix(), k), flag(k));
  };
  if (db) {
    for (std::uint32_t k = 0; k < kt; ++k)
      for (std::uint32_t m = 0; m < mt; ++m) {
        auto ref = matmul(m, k);
        if (m == 0) ref.wait(a_loaded, k + 1).wait(b_loaded, k + 1);
        if (k + 1 == kt) ref.signal(mm_done);
      }
  } else {
    for (std::uint32_t m = 0; m < mt; ++m)
      for (std::uint32_t k = 0; k < kt; ++k) {
        auto ref = matmul(m, k);
        if (m == 0 && k == 0) ref.wait(a_loaded, kt).wait(b_loaded, kt);
        if (m + 1 == mt && k + 1 == kt) ref.signal(mm_done, mt);
      }
  }

  // PSUM -> SBUF with the cast to bf16; the double-buffered variant splits the copies
  // between Vector and Scalar so two tiles drain at once.
  auto on_scalar = [&](std::uint32_t m) { return db && m % 2 == 1; };
  auto rank = [&](std::uint32_t m) { return db ? m / 2 + 1 : m + 1; };  // 1-based, per engine
  for (std::uint32_t m = 0; m < mt; ++m) {
    Stream s = on_scalar(m) ? b.scalar() : b.vector();
    auto ref = s.tensor_copy(sc.slice(Ix(), m), psum_tile(m));
    ref.wait(mm_done, db ? m + 1 : mt).signal(on_scalar(m) ? copied_s : copied_v);
  }
  for (std::uint32_t m = 0; m < mt; ++m) {
    auto store = b.sync().dma_copy(c.slice(rows(m)), sc.slice(Ix(), m), qc);
    if (db)
      store.wait(on_scalar(m) ? copied_s : copied_v, rank(m));
    else
      store.wait(copied_v, mt);  // serial: after every copy
  }
  return b.build();
}

}  // namespace neuronsim::examples
