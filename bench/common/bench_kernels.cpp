#include "bench/common/bench_kernels.hpp"

namespace neuronsim::bench {

using namespace neuronsim::isa;

AccessPattern tile(std::uint32_t alloc, DType t, std::uint32_t free, MemSpace s) {
  AccessPattern a;
  a.space = s;
  a.buffer = alloc;
  a.dtype = t;
  a.partitions = 128;
  a.ndims = 1;
  a.dims[0] = {1, free};
  return a;
}

AccessPattern hbm_rows(std::uint32_t tensor, DType t, std::uint32_t first_row, std::uint32_t cols) {
  AccessPattern a;
  a.space = MemSpace::hbm;
  a.buffer = tensor;
  a.dtype = t;
  a.start_partition = first_row;
  a.partitions = 128;
  a.partition_stride = cols;
  a.ndims = 1;
  a.dims[0] = {1, cols};
  return a;
}

Instruction make(Operation op, std::vector<SemWait> waits, std::vector<SemSignal> signals) {
  Instruction i;
  i.op = std::move(op);
  i.waits = std::move(waits);
  i.signals = std::move(signals);
  return i;
}

// A double-buffered pipeline, 10 instructions per iteration across all five engines:
// load a tile (sync), matmul and transpose (tensor), activation with bias and an
// activation with reduce (scalar), multiply / scale+shift / reduce (vector), an iota
// mask (gpsimd), store (sync). Semaphores order each stage after the one it reads.
Kernel pipeline_kernel(int iterations) {
  constexpr std::uint32_t kTiles = 16, kCols = 512;
  enum Sem : std::uint16_t { loaded, mm, act, gp, vec, stored };
  Kernel k;
  k.name = "bench_pipeline";
  k.target = "trn2";
  k.tensors = {
      {"x", DType::bf16, {kTiles * 128, kCols}, TensorRole::input, {}},
      {"out", DType::fp32, {kTiles * 128, kCols}, TensorRole::output, {}},
  };
  // Allocation indices: double buffers [b] at base + b.
  enum Alloc : std::uint32_t {
    xt = 0,
    wt = 2,
    bias = 3,
    yt = 4,
    zt = 6,
    red = 8,
    mask = 9,
    acc = 10,
    tp = 12
  };
  k.allocations = {
      {"xt0", MemSpace::sbuf, DType::bf16, 0, 128, {kCols}, 0},
      {"xt1", MemSpace::sbuf, DType::bf16, 0, 128, {kCols}, 1024},
      {"wt", MemSpace::sbuf, DType::bf16, 0, 128, {128}, 2048},
      {"bias", MemSpace::sbuf, DType::fp32, 0, 128, {1}, 2304},
      {"yt0", MemSpace::sbuf, DType::fp32, 0, 128, {kCols}, 4096},
      {"yt1", MemSpace::sbuf, DType::fp32, 0, 128, {kCols}, 6144},
      {"zt0", MemSpace::sbuf, DType::fp32, 0, 128, {kCols}, 8192},
      {"zt1", MemSpace::sbuf, DType::fp32, 0, 128, {kCols}, 10240},
      {"red", MemSpace::sbuf, DType::fp32, 0, 128, {1}, 12288},
      {"mask", MemSpace::sbuf, DType::fp32, 0, 128, {kCols}, 14336},
      {"acc0", MemSpace::psum, DType::fp32, 0, 128, {kCols}, 0},
      {"acc1", MemSpace::psum, DType::fp32, 0, 128, {kCols}, 2048},
      {"tp", MemSpace::psum, DType::bf16, 0, 128, {128}, 4096},
  };
  k.semaphores = {{"loaded", 0}, {"mm", 0}, {"act", 0}, {"gp", 0}, {"vec", 0}, {"stored", 0}};
  k.queues = {{"q_in", 0, 1}, {"q_out", 1, 1}};
  auto inc = [](Sem s) { return SemSignal{s, SemUpdate::increment, 1}; };
  auto& sync = k.stream(Engine::sync);
  auto& tensor = k.stream(Engine::tensor);
  auto& scalar = k.stream(Engine::scalar);
  auto& vector = k.stream(Engine::vector);
  auto& gpsimd = k.stream(Engine::gpsimd);
  for (int i = 0; i < iterations; ++i) {
    const std::uint32_t b = i % 2, row = (i % kTiles) * 128;
    const auto n = static_cast<std::uint32_t>(i);
    std::vector<SemWait> reuse;  // buffers of iteration i-2 are free once it is stored
    if (i >= 2) reuse.push_back({stored, n - 1});
    sync.push_back(
        make(DmaCopy{tile(xt + b, DType::bf16, kCols), hbm_rows(0, DType::bf16, row, kCols), 0,
                     false, false, std::nullopt, std::nullopt, false},
             reuse, {inc(loaded)}));
    tensor.push_back(
        make(Matmul{tile(acc + b, DType::fp32, kCols, MemSpace::psum), tile(wt, DType::bf16, 128),
                    tile(xt + b, DType::bf16, kCols), AccumulateFlag::single},
             {{loaded, n + 1}}, {inc(mm)}));
    tensor.push_back(make(
        Transpose{tile(tp, DType::bf16, 128, MemSpace::psum), tile(wt, DType::bf16, 128)}, {}, {}));
    scalar.push_back(make(Activation{tile(yt + b, DType::fp32, kCols),
                                     tile(acc + b, DType::fp32, kCols, MemSpace::psum),
                                     ActFunc::gelu, 0.5f, tile(bias, DType::fp32, 1), std::nullopt},
                          {{mm, n + 1}}, {inc(act)}));
    gpsimd.push_back(
        make(Iota{tile(mask, DType::fp32, kCols), static_cast<std::int32_t>(i), 1, {1, 0, 0, 0}},
             i >= 1 ? std::vector<SemWait>{{vec, n}} : std::vector<SemWait>{}, {inc(gp)}));
    vector.push_back(
        make(TensorTensor{tile(zt + b, DType::fp32, kCols), tile(yt + b, DType::fp32, kCols),
                          tile(mask, DType::fp32, kCols), AluOp::multiply},
             {{act, n + 1}, {gp, n + 1}}, {}));
    TensorScalar ts;
    ts.dst = ts.src = tile(zt + b, DType::fp32, kCols);
    ts.op0 = AluOp::multiply;
    ts.arg0 = 2.0f;
    ts.op1 = AluOp::add;
    ts.arg1 = 1.0f;
    vector.push_back(make(ts, {}, {}));
    vector.push_back(make(TensorReduce{tile(red, DType::fp32, 1), tile(zt + b, DType::fp32, kCols),
                                       AluOp::add, 1, false},
                          {}, {inc(vec)}));
    scalar.push_back(
        make(Activation{tile(yt + b, DType::fp32, kCols), tile(yt + b, DType::fp32, kCols),
                        ActFunc::square, 1.0f, std::nullopt, tile(red, DType::fp32, 1)},
             {{vec, n + 1}}, {}));
    sync.push_back(
        make(DmaCopy{hbm_rows(1, DType::fp32, row, kCols), tile(zt + b, DType::fp32, kCols), 1,
                     false, false, std::nullopt, std::nullopt, false},
             {{vec, n + 1}}, {inc(stored)}));
  }
  return k;
}

Kernel chain_kernel(std::uint32_t per_engine) {
  Kernel k;
  k.name = "bench_chain";
  k.target = "trn2";
  // Semaphore e counts the instructions engine e has finished.
  for (int e = 0; e < kEngineCount; ++e)
    k.semaphores.push_back({"done" + std::to_string(e), 0});
  for (int e = 0; e < kEngineCount; ++e) {
    auto& stream = k.stream(static_cast<Engine>(e));
    stream.reserve(per_engine);
    const auto self = static_cast<std::uint16_t>(e);
    for (std::uint32_t n = 0; n < per_engine; ++n) {
      std::vector<SemWait> waits;
      if (e > 0) waits.push_back({static_cast<std::uint16_t>(e - 1), n + 1});
      std::vector<SemSignal> signals;
      if (e + 1 < kEngineCount) signals.push_back({self, SemUpdate::increment, 1});
      stream.push_back(make(Nop{}, std::move(waits), std::move(signals)));
    }
  }
  return k;
}

Kernel dma_kernel(std::uint32_t transfers) {
  constexpr std::uint32_t kTiles = 8, kCols = 64;
  Kernel k;
  k.name = "bench_dma";
  k.target = "trn2";
  k.tensors = {
      {"x", DType::bf16, {kTiles * 128, kCols}, TensorRole::input, {}},
      {"out", DType::bf16, {kTiles * 128, kCols}, TensorRole::output, {}},
  };
  k.allocations = {
      {"in_tile", MemSpace::sbuf, DType::bf16, 0, 128, {kCols}, 0},
      {"out_tile", MemSpace::sbuf, DType::bf16, 0, 128, {kCols}, 1024},
  };
  k.queues = {{"q_in", 0, 16}, {"q_out", 0, 16}};
  auto& sync = k.stream(Engine::sync);
  sync.reserve(transfers);
  for (std::uint32_t i = 0; i < transfers; ++i) {
    const std::uint32_t row = (i / 2 % kTiles) * 128;
    if (i % 2 == 0)
      sync.push_back(make(DmaCopy{tile(0, DType::bf16, kCols), hbm_rows(0, DType::bf16, row, kCols),
                                  0, false, false, std::nullopt, std::nullopt, false},
                          {}, {}));
    else
      sync.push_back(make(DmaCopy{hbm_rows(1, DType::bf16, row, kCols), tile(1, DType::bf16, kCols),
                                  1, false, false, std::nullopt, std::nullopt, false},
                          {}, {}));
  }
  return k;
}

}  // namespace neuronsim::bench
