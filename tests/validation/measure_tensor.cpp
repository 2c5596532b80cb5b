// Measurements of the Tensor engine: peak TFLOPS per dtype (one core and a whole chip),
// the matmul and transpose cost formulas as steady-state initiation intervals (NKI
// publishes them for many back-to-back instructions of one shape), the clock, and fast
// LoadStationary.
#include <stdexcept>

#include "builder/builder.hpp"
#include "registry.hpp"

namespace validation {

namespace {

namespace isa = neuronsim::isa;
using isa::DType;
using isa::Engine;
using isa::Ix;

// `count` matmuls [M x K=128] x [128 x N] into PSUM; with `alternate` the stationary
// alternates between two tiles (the arch guide's ideal LS, MM, LS, MM... sequence, each
// load in the background of the previous multiply), else one stationary is reused.
// With perf_mode double_row the inputs are [128, 2, M] and [128, 2, N] (a 256 contraction).
isa::Kernel matmul_stream(const Spec& s, DType dt, std::uint32_t m, std::uint32_t n,
                          std::uint32_t count, bool alternate,
                          isa::MatmulPerfMode mode = isa::MatmulPerfMode::none) {
  isa::Builder b("v_" + s.id, s.target);
  const std::uint32_t rows = isa::Matmul::rows_per_partition(mode);
  const auto st0 = b.sbuf("st0", dt, {128, rows * m}), st1 = b.sbuf("st1", dt, {128, rows * m});
  const auto mov = b.sbuf("mov", dt, {128, rows * n});
  // Two banks, alternating, so consecutive results never share one.
  const auto ps = b.psum("ps", DType::fp32, {m, 2, 512});
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto& st = alternate && i % 2 ? st1 : st0;
    b.tensor().matmul(ps.slice(Ix(), i % 2, Ix(0, n)), st, mov, isa::AccumulateFlag::single, mode);
  }
  return b.build();
}

isa::MatmulPerfMode arg_perf_mode(const Spec& s) {
  const std::string name = arg_str(s, "perf_mode", "none");
  const auto mode = isa::parse_matmul_perf_mode(name);
  if (!mode) throw std::runtime_error(s.id + ": perf_mode '" + name + "' unknown");
  return *mode;
}

// Mean time between the ends of instructions `first` and `last` of the Tensor stream.
double interval_ns(const Run& run, std::uint32_t first, std::uint32_t last) {
  const auto& a = run.instr(Engine::tensor, first);
  const auto& z = run.instr(Engine::tensor, last);
  return neuronsim::traces::ps_to_ns(z.end_ps - a.end_ps) / (last - first);
}

// The TFLOPS of `count` back-to-back matmuls of `flops` each in kernel `k`: over their
// steady interval (the first matmul's unhidden load excluded) on one core, or with
// args.chip the sum over every core of the chip.
Reader tflops_reader(Bench& bench, const Spec& s, const isa::Kernel& k, double flops,
                     std::uint32_t count) {
  std::vector<RunPtr> runs;
  if (arg_bool(s, "chip", false))
    runs = bench.run_chip(s.target, k);
  else
    runs.push_back(bench.run(s.target, k));
  return [runs, flops, count] {
    double tflops = 0;
    for (const auto& r : runs)
      tflops += flops / interval_ns(*r, 0, count - 1) / 1000.0;  // flops/ns = GFLOPS
    return tflops;
  };
}

// Peak TFLOPS: 2*K*M*N flops per 128x128x512 matmul (K = 256 in double_row) over the
// steady interval (the first matmul's unhidden load excluded). With chip, the sum over every core
// of the chip.
const Registrar matmul_tflops("matmul_tflops", [](Bench& bench, const Spec& s) -> Reader {
  const DType dt = arg_dtype(s, "dtype", DType::bf16);
  const std::uint32_t count = arg_u32(s, "count", 16);
  const isa::MatmulPerfMode mode = arg_perf_mode(s);
  const isa::Kernel k = matmul_stream(s, dt, 128, 512, count, true, mode);
  return tflops_reader(bench, s, k, 2.0 * 128 * isa::Matmul::rows_per_partition(mode) * 128 * 512,
                       count);
});

// `count` nc_matmul_mx [M=128 x K=128 partitions x 4] x [128 x 4, N=512] into PSUM, the
// stationary (data and scale tile) alternating between two, as matmul_stream's alternate.
isa::Kernel matmul_mx_stream(const Spec& s, std::uint32_t count) {
  isa::Builder b("v_" + s.id, s.target);
  const auto st0 = b.sbuf("st0", DType::fp8_e4m3fn_x4, {128, 128});
  const auto st1 = b.sbuf("st1", DType::fp8_e4m3fn_x4, {128, 128});
  const auto sc0 = b.sbuf("sc0", DType::uint8, {128, 128});
  const auto sc1 = b.sbuf("sc1", DType::uint8, {128, 128});
  const auto mov = b.sbuf("mov", DType::fp8_e4m3fn_x4, {128, 512});
  const auto mov_scale = b.sbuf("mov_scale", DType::uint8, {128, 512});
  const auto ps = b.psum("ps", DType::fp32, {128, 2, 512});
  for (std::uint32_t i = 0; i < count; ++i)
    b.tensor().matmul_mx(ps.slice(Ix(), i % 2, Ix()), i % 2 ? st1 : st0, mov, i % 2 ? sc1 : sc0,
                         mov_scale);
  return b.build();
}

// Peak MX TFLOPS: 2 x (4 x 128) x 128 x 512 flops per nc_matmul_mx (four contraction rows per
// partition) over the steady interval, as matmul_tflops; with chip, summed over the chip.
const Registrar matmul_mx_tflops("matmul_mx_tflops", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t count = arg_u32(s, "count", 16);
  const isa::Kernel k = matmul_mx_stream(s, count);
  return tflops_reader(bench, s, k, 2.0 * isa::MatmulMx::kLanes * 128 * 128 * 512, count);
});

// The Tensor throttle's start rate, in percent of full: on the shipped preset, from cold,
// two bf16 matmuls [128x128] x [128x64] sharing one stationary; the second's 64 full-rate
// cycles (max(min(64, 128), 64)) over the cycles it took.
const Registrar throttle_start("throttle_start_percent", [](Bench& bench, const Spec& s) -> Reader {
  const RunPtr run =
      bench.run_as_shipped(s.target, matmul_stream(s, DType::bf16, 128, 64, 2, false));
  return [run] { return 100.0 * 64.0 / run->cycles(Engine::tensor, 1); };
});

// The initiation interval of back-to-back matmuls of one shape sharing one stationary,
// in Tensor engine cycles: NKI's nc_matmul cost.
const Registrar matmul_interval("matmul_interval", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t count = arg_u32(s, "count", 8);
  const isa::Kernel k = matmul_stream(s, arg_dtype(s, "dtype", DType::bf16), arg_u32(s, "m", 128),
                                      arg_u32(s, "n", 512), count, false);
  const RunPtr run = bench.run(s.target, k);
  return [run, count] {
    return interval_ns(*run, 0, count - 1) * run->clock_ghz[static_cast<int>(Engine::tensor)];
  };
});

// The Tensor clock: a bf16 128x128x512 matmul costs 512 cycles (NKI nc_matmul), so the
// clock is 512 over its steady interval in ns.
const Registrar tensor_clock("tensor_clock_ghz", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t count = 8;
  const RunPtr run = bench.run(s.target, matmul_stream(s, DType::bf16, 128, 512, count, false));
  return [run, count] { return 512.0 / interval_ns(*run, 0, count - 1); };
});

// How much faster LoadStationary is than a MultiplyMoving of the same free size (M = N =
// args.n): the first matmul pays load + multiply, the second (same stationary) the
// multiply only; the ratio is multiply / load.
const Registrar ls_speedup("load_stationary_speedup", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t n = arg_u32(s, "n", 128);
  const RunPtr run = bench.run(s.target, matmul_stream(s, DType::bf16, n, n, 2, false));
  return [run] {
    const double both = run->cycles(Engine::tensor, 0), multiply = run->cycles(Engine::tensor, 1);
    return multiply / (both - multiply);
  };
});

// The initiation interval of back-to-back Tensor engine transposes of one [P, F] shape,
// in Tensor cycles: NKI's nc_transpose cost on the Tensor engine.
const Registrar transpose_interval("transpose_interval", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t p = arg_u32(s, "p", 128), f = arg_u32(s, "f", 128);
  const std::uint32_t count = arg_u32(s, "count", 8);
  isa::Builder b("v_" + s.id, s.target);
  const auto src = b.sbuf("src", DType::fp32, {p, f});
  const auto dst = b.psum("dst", DType::fp32, {f, p});
  for (std::uint32_t i = 0; i < count; ++i)
    b.tensor().transpose(dst, src);
  const RunPtr run = bench.run(s.target, b.build());
  return [run, count] {
    return interval_ns(*run, 0, count - 1) * run->clock_ghz[static_cast<int>(Engine::tensor)];
  };
});

}  // namespace

}  // namespace validation
