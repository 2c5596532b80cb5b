// Full numerics without a simulation: isa::execute on a MemoryImage, as the engines call
// it. A [128, 128] x [128, 512] matmul into PSUM (fp32 accumulation) per input dtype, and
// elementwise ops on [128, 512] tiles per dtype (elements/s counts the source elements).
#include <memory>
#include <string>

#include "bench/common/bench_kernels.hpp"
#include "bench/suite/world.hpp"
#include "memory/memory_image.hpp"
#include "semantics/semantics.hpp"

namespace neuronsim::bench {

namespace {

using isa::DType;
using isa::MemSpace;

constexpr std::uint32_t kFree = 512;

struct NumericsCase {
  isa::Kernel kernel;
  isa::Instruction instr;
  std::unique_ptr<memory::MemoryImage> mem;
};

// Allocations 0..2 of `t`, [128, kFree] in SBUF at 0, 4 KiB and 8 KiB; 3 is PSUM fp32.
std::shared_ptr<NumericsCase> make_numerics(DType t, isa::Operation op) {
  auto c = std::make_shared<NumericsCase>();
  c->kernel.name = "numerics";
  c->kernel.target = "trn2";
  c->kernel.allocations = {
      {"a", MemSpace::sbuf, t, 0, 128, {kFree}, 0},
      {"b", MemSpace::sbuf, t, 0, 128, {kFree}, 4096},
      {"c", MemSpace::sbuf, t, 0, 128, {kFree}, 8192},
      {"acc", MemSpace::psum, DType::fp32, 0, 128, {kFree}, 0},
  };
  c->instr = make(std::move(op), {}, {});
  const TargetConfig& cfg = world().config;
  c->mem = std::make_unique<memory::MemoryImage>(cfg.limits, 4);
  c->mem->begin_launch(c->kernel, {}, memory::UninitFill::zero);
  // Inputs of ordinary magnitude (not zeros, so nothing takes a shortcut).
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint32_t byte = 0; byte < 3 * 4096; ++byte)
      c->mem->row(MemSpace::sbuf, p)[byte] = static_cast<std::uint8_t>(0x3c + (p + byte) % 3);
  return c;
}

void BM_matmul(benchmark::State& st, std::shared_ptr<NumericsCase> c) {
  for (auto _ : st)
    isa::execute(c->kernel, c->instr, *c->mem);
  const double flops = 2.0 * 128 * 128 * kFree;
  st.counters["GFLOP/s"] = benchmark::Counter(flops * static_cast<double>(st.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}

void BM_elementwise(benchmark::State& st, std::shared_ptr<NumericsCase> c) {
  for (auto _ : st)
    isa::execute(c->kernel, c->instr, *c->mem);
  st.counters["Gelem/s"] = benchmark::Counter(
      128.0 * kFree * static_cast<double>(st.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

}  // namespace

void register_numerics() {
  for (DType t : {DType::fp32, DType::bf16, DType::fp8_e4m3}) {
    const std::string dt(isa::dtype_name(t));
    // stationary [K=128, M=128] (allocation a's first 128 columns), moving [128, 512].
    isa::Matmul mm{tile(3, DType::fp32, kFree, MemSpace::psum), tile(0, t, 128), tile(1, t, kFree),
                   isa::AccumulateFlag::single};
    benchmark::RegisterBenchmark(("numerics/matmul/" + dt).c_str(), BM_matmul, make_numerics(t, mm))
        ->UseRealTime();
    auto elementwise = [&](const std::string& name, const isa::Operation& op) {
      benchmark::RegisterBenchmark(("numerics/" + name + "/" + dt).c_str(), BM_elementwise,
                                   make_numerics(t, op))
          ->UseRealTime();
    };
    elementwise("tensor_tensor_add", isa::TensorTensor{tile(2, t, kFree), tile(0, t, kFree),
                                                       tile(1, t, kFree), isa::AluOp::add});
    elementwise("tensor_copy", isa::TensorCopy{tile(2, t, kFree), tile(0, t, kFree)});
    // The paths behind RMSNorm and softmax kernels: (x * 0.5) + 1, exp(0.5 x), a row sum.
    isa::TensorScalar ts;
    ts.dst = tile(2, t, kFree);
    ts.src = tile(0, t, kFree);
    ts.op0 = isa::AluOp::multiply;
    ts.arg0 = 0.5f;
    ts.op1 = isa::AluOp::add;
    ts.arg1 = 1.0f;
    elementwise("tensor_scalar", ts);
    isa::Activation act;
    act.dst = tile(2, t, kFree);
    act.src = tile(0, t, kFree);
    act.func = isa::ActFunc::exp;
    act.scale = 0.5f;
    elementwise("activation_exp", act);
    elementwise("tensor_reduce_add",
                isa::TensorReduce{tile(2, t, 1), tile(0, t, kFree), isa::AluOp::add});
  }
}

}  // namespace neuronsim::bench
