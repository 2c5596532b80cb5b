// Measures the kernel file formats on a generated 100,000-instruction kernel: printing
// assembly text, assembling it, writing the NEFF, reading (loading) it, and the sizes.
// Usage: bench_neff_bench [OUT_DIR] [ITERATIONS]. Writes OUT_DIR/bench100k.nasm and
// .neff so that `neuronsim asm` and `neuronsim neff info` can be timed from the shell.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "config/target_config.hpp"
#include "isa/assembler.hpp"
#include "isa/error.hpp"
#include "isa/file_io.hpp"
#include "isa/printer.hpp"
#include "isa/validate.hpp"
#include "neff/neff.hpp"

namespace {

using namespace neuronsim;
using namespace neuronsim::isa;

AccessPattern sbuf(std::uint32_t alloc, DType t, std::uint32_t free, MemSpace s = MemSpace::sbuf) {
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
    sync.push_back(make(
        DmaCopy{sbuf(xt + b, DType::bf16, kCols), hbm_rows(0, DType::bf16, row, kCols), 0, false},
        reuse, {inc(loaded)}));
    tensor.push_back(
        make(Matmul{sbuf(acc + b, DType::fp32, kCols, MemSpace::psum), sbuf(wt, DType::bf16, 128),
                    sbuf(xt + b, DType::bf16, kCols), AccumulateFlag::single},
             {{loaded, n + 1}}, {inc(mm)}));
    tensor.push_back(make(
        Transpose{sbuf(tp, DType::bf16, 128, MemSpace::psum), sbuf(wt, DType::bf16, 128)}, {}, {}));
    scalar.push_back(make(Activation{sbuf(yt + b, DType::fp32, kCols),
                                     sbuf(acc + b, DType::fp32, kCols, MemSpace::psum),
                                     ActFunc::gelu, 0.5f, sbuf(bias, DType::fp32, 1), std::nullopt},
                          {{mm, n + 1}}, {inc(act)}));
    gpsimd.push_back(
        make(Iota{sbuf(mask, DType::fp32, kCols), static_cast<std::int32_t>(i), 1, {1, 0, 0, 0}},
             i >= 1 ? std::vector<SemWait>{{vec, n}} : std::vector<SemWait>{}, {inc(gp)}));
    vector.push_back(
        make(TensorTensor{sbuf(zt + b, DType::fp32, kCols), sbuf(yt + b, DType::fp32, kCols),
                          sbuf(mask, DType::fp32, kCols), AluOp::multiply},
             {{act, n + 1}, {gp, n + 1}}, {}));
    TensorScalar ts;
    ts.dst = ts.src = sbuf(zt + b, DType::fp32, kCols);
    ts.op0 = AluOp::multiply;
    ts.arg0 = 2.0f;
    ts.op1 = AluOp::add;
    ts.arg1 = 1.0f;
    vector.push_back(make(ts, {}, {}));
    vector.push_back(make(TensorReduce{sbuf(red, DType::fp32, 1), sbuf(zt + b, DType::fp32, kCols),
                                       AluOp::add, 1, false},
                          {}, {inc(vec)}));
    scalar.push_back(
        make(Activation{sbuf(yt + b, DType::fp32, kCols), sbuf(yt + b, DType::fp32, kCols),
                        ActFunc::square, 1.0f, std::nullopt, sbuf(red, DType::fp32, 1)},
             {{vec, n + 1}}, {}));
    sync.push_back(make(
        DmaCopy{hbm_rows(1, DType::fp32, row, kCols), sbuf(zt + b, DType::fp32, kCols), 1, false},
        {{vec, n + 1}}, {inc(stored)}));
  }
  return k;
}

// Best of `reps` wall times, in milliseconds.
double best_ms(int reps, const std::function<void()>& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const int iterations = argc > 2 ? std::stoi(argv[2]) : 10000;
  constexpr int kReps = 5;
  try {
    const Kernel k = pipeline_kernel(iterations);
    const auto problems = check(k, config::load_target(k.target).limits);
    for (std::size_t i = 0; i < problems.size() && i < 10; ++i)
      std::fprintf(stderr, "invalid: %s: %s\n", problems[i].where.c_str(),
                   problems[i].reason.c_str());
    if (!problems.empty()) return 1;

    std::string text;
    Kernel assembled;
    std::vector<std::uint8_t> bytes;
    neff::Neff loaded;
    const double print_ms = best_ms(kReps, [&] { text = print(k); });
    const double asm_ms = best_ms(kReps, [&] { assembled = assemble(text, "bench100k.nasm"); });
    const double write_ms = best_ms(kReps, [&] { bytes = neff::write(k); });
    const double read_ms = best_ms(kReps, [&] { loaded = neff::read(bytes, "bench100k.neff"); });
    if (assembled != k || loaded.kernel != k) {
      std::fprintf(stderr, "round trip changed the kernel\n");
      return 1;
    }
    write_file_atomic(dir + "/bench100k.nasm", text);
    write_file_atomic(dir + "/bench100k.neff", bytes);

    std::printf(
        "kernel: %zu instructions (tensor %zu, vector %zu, scalar %zu, gpsimd %zu, "
        "sync %zu)\n",
        k.instruction_count(), k.stream(Engine::tensor).size(), k.stream(Engine::vector).size(),
        k.stream(Engine::scalar).size(), k.stream(Engine::gpsimd).size(),
        k.stream(Engine::sync).size());
    std::printf("best of %d runs:\n", kReps);
    std::printf("  print (Kernel -> text)   %8.1f ms  (%zu bytes of text)\n", print_ms,
                text.size());
    std::printf("  assemble (text -> Kernel)%8.1f ms\n", asm_ms);
    std::printf("  NEFF write               %8.1f ms\n", write_ms);
    std::printf("  NEFF read (load)         %8.1f ms\n", read_ms);
    std::printf("  NEFF file size           %8zu bytes (%.1f bytes/instruction)\n", bytes.size(),
                static_cast<double>(bytes.size()) / static_cast<double>(k.instruction_count()));
    std::printf("wrote %s/bench100k.nasm and %s/bench100k.neff\n", dir.c_str(), dir.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
