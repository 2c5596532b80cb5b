// Every parameter of a target config drives a model: changed on its own, it changes the
// validation of some small kernel, the cost model's cycles of some instruction, what
// never-written memory holds, a launch's simulated timing or HBM placement, the host
// model's timeline or the MFU peak.
//
// The test walks the schema itself (config/schema.hpp), so a parameter added later is
// perturbed without an edit here, and the test fails for one that changes nothing. For each
// parameter: the first of (half its value, twice it; a flag flipped) that loads as a
// consistent target, through a target file as a user would write it. What the pure models
// compute (validation, cost, memory contents, host, MFU) is compared first; a parameter they do not
// show gets a Device of its own in the process's one simulation (SystemC elaborates once): two
// cores around their own Hbm, so bandwidth does not couple configs, every probe launched on core 1
// (whose HBM window depends on the chip's cores and capacity). The base target's simulation
// runs beside them and is the reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <variant>

#include <unistd.h>

#include "base/error.hpp"
#include "config/schema.hpp"
#include "config/target_dump.hpp"
#include "core_support.hpp"
#include "engines/instruction_plan.hpp"
#include "memory/memory_image.hpp"
#include "neuronsim/device.hpp"
#include "profile/peak_flops.hpp"
#include "sequence/host_model.hpp"
#include "validate/validate.hpp"

using namespace core_test;
using neuronsim::isa::DType;
namespace params = neuronsim::params;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;
using nlohmann::json;
namespace schema = neuronsim::config::schema;

namespace {

// The base target every perturbation starts from: trn2 (v3: same-bank PSUM conflicts, so
// psum.banks reaches the port model; fp8 double rate), as a target file.
const char* const kBase = "trn2";

// Fields of a target that describe it and drive nothing: the preset's name (used in
// messages), its generation and its one-line description (printed by `config --list`).
// Every other top-level field of a target is "base" or a section of parameters.
const std::set<std::string> kDescriptive = {"name", "generation", "description"};

std::string path_of(const schema::Param& p) {
  return std::string(p.section) + "." + std::string(p.key);
}

// --- Targets through files, as a user gives them.

class ScratchDir {
 public:
  ScratchDir()
      : dir_(std::filesystem::temp_directory_path() /
             ("neuronsim_perturb_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }
  std::string write(const json& j) {
    const auto path = dir_ / ("target_" + std::to_string(count_++) + ".json");
    std::ofstream(path) << j.dump();
    return path.string();
  }

 private:
  std::filesystem::path dir_;
  int count_ = 0;
};

// --- Probe kernels, sized from the base target's limits so that each sits at the limit a
// perturbation moves.

// Elements [first, first + count) of every partition of allocation a, with a stride.
isa::AccessPattern part(const isa::Kernel& k, std::uint32_t a, std::uint32_t first,
                        std::uint32_t count, std::int32_t stride = 1) {
  isa::AccessPattern ap = tile(k, a);
  ap.byte_offset = std::uint64_t{first} * isa::dtype_size(ap.dtype);
  ap.dims[0] = {stride, count};
  return ap;
}

isa::Activation activation(const isa::AccessPattern& dst, const isa::AccessPattern& src,
                           isa::ActFunc func) {
  isa::Activation a;
  a.dst = dst;
  a.src = src;
  a.func = func;
  return a;
}

isa::TensorScalar tensor_scalar(const isa::AccessPattern& dst, const isa::AccessPattern& src,
                                isa::AluOp op, float arg, bool reverse = false) {
  isa::TensorScalar t;
  t.dst = dst;
  t.src = src;
  t.op0 = op;
  t.arg0 = arg;
  t.reverse0 = reverse;
  return t;
}

struct Probe {
  std::string name;
  isa::Kernel kernel;
};

// Validation probes: every limit of TargetLimits, at its value.
std::vector<Probe> validation_probes(const params::TargetLimits& l) {
  std::vector<Probe> probes;
  {  // Declarations one past each capacity: their messages name the capacities.
    auto k = kernel("capacities");
    alloc(k, "sbuf_over", MemSpace::sbuf, DType::uint8, 1, l.sbuf_bytes_per_partition + 64, 0);
    alloc(k, "psum_over", MemSpace::psum, DType::fp32, 1, l.psum_bytes_per_partition / 4 + 16, 0);
    alloc(k, "lanes_over", MemSpace::sbuf, DType::fp32, l.partitions + 1, 1, 0);
    probes.push_back({"capacities", k});
  }
  {  // One instruction's free size, at the SBUF limit (two dims, each within a dim's size);
     // PSUM's crosses banks too.
    auto k = kernel("free_size");
    const auto s = alloc(k, "s", MemSpace::sbuf, DType::uint8, 128, l.max_sbuf_free_elems, 0);
    const auto p = alloc(k, "p", MemSpace::psum, DType::fp32, 128, l.max_psum_free_elems, 0);
    auto all = tile(k, s);
    all.ndims = 2;
    all.dims[0] = {256, l.max_sbuf_free_elems / 256};
    all.dims[1] = {1, 256};
    k.stream(Engine::vector).push_back(op(isa::Memset{all, 0.0}));
    k.stream(Engine::vector).push_back(op(isa::Memset{tile(k, p), 0.0}));
    probes.push_back({"free_size", k});
  }
  {  // 512 fp32 from byte 1024: across a 2 KiB bank boundary, inside a 4 KiB bank.
    auto k = kernel("psum_bank");
    const auto p = alloc(k, "p", MemSpace::psum, DType::fp32, 128, 1024, 0);
    k.stream(Engine::vector).push_back(op(isa::Memset{part(k, p, 256, 512), 0.0}));
    probes.push_back({"psum_bank", k});
  }
  {  // 16 partitions starting at 16: a multiple of a granule of 16, not of 32.
    auto k = kernel("partition_start");
    const auto s = alloc(k, "s", MemSpace::sbuf, DType::fp32, 128, 16, 0);
    auto ap = tile(k, s);
    ap.start_partition = 16;
    ap.partitions = 16;
    k.stream(Engine::vector).push_back(op(isa::Memset{ap, 0.0}));
    probes.push_back({"partition_start", k});
  }
  {  // DMA patterns at the size, stride and dimension limits.
    auto k = kernel("pattern_limits");
    const auto longest =
        tensor(k, "longest", isa::TensorRole::input, DType::uint8, 1, l.ap_max_dim_size);
    const auto wide = tensor(k, "wide", isa::TensorRole::input, DType::uint8, 1,
                             std::uint64_t{l.ap_max_stride} + 1);
    const auto s_long = alloc(k, "s_long", MemSpace::sbuf, DType::uint8, 1, l.ap_max_dim_size, 0);
    const auto s_two = alloc(k, "s_two", MemSpace::sbuf, DType::uint8, 1, 2, 65536);
    const auto q = queue(k, "q", 0, 1);
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, s_long), rows_of(k, longest), q, false, false,
                                   std::nullopt, std::nullopt, false}));
    auto strided = rows_of(k, wide);
    strided.dims[0] = {static_cast<std::int32_t>(l.ap_max_stride), 2};
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, s_two), strided, q, false, false, std::nullopt,
                                   std::nullopt, false}));
    // A DMA pattern with dma.max_pattern_dims free dims ...
    auto dims = rows_of(k, wide);
    dims.ndims = static_cast<std::uint8_t>(l.dma_max_free_dims);
    for (std::uint32_t i = 0; i < l.dma_max_free_dims; ++i)
      dims.dims[i] = {1, i + 1 == l.dma_max_free_dims ? 2u : 1u};
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, s_two), dims, q, false, false, std::nullopt,
                                   std::nullopt, false}));
    // ... and an engine's with limits.ap_max_free_dims.
    auto engine_dims = tile(k, s_two);
    engine_dims.ndims = static_cast<std::uint8_t>(l.ap_max_free_dims);
    for (std::uint32_t i = 0; i < l.ap_max_free_dims; ++i)
      engine_dims.dims[i] = {1, i + 1 == l.ap_max_free_dims ? 2u : 1u};
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{engine_dims, engine_dims}));
    probes.push_back({"pattern_limits", k});
  }
  {  // A matmul of K x M x N at the limits, and transposes at theirs.
    auto k = kernel("tensor_shapes");
    const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, l.matmul_max_k, l.matmul_max_m, 0);
    const auto m = alloc(k, "m", MemSpace::sbuf, DType::bf16, l.matmul_max_k, l.matmul_max_n,
                         2 * l.matmul_max_m);
    const auto ps = alloc(k, "ps", MemSpace::psum, DType::fp32, l.matmul_max_m, l.matmul_max_n, 0);
    k.stream(Engine::tensor).push_back(op(isa::Matmul{tile(k, ps), tile(k, w), tile(k, m)}));
    const std::uint32_t t = l.tensor_transpose_max, v = l.vector_transpose_max;
    const auto ts = alloc(k, "ts", MemSpace::sbuf, DType::fp32, t, t, 8192);
    const auto tp = alloc(k, "tp", MemSpace::psum, DType::fp32, t, t, 4096);
    k.stream(Engine::tensor).push_back(op(isa::Transpose{tile(k, tp), tile(k, ts)}));
    const auto vs = alloc(k, "vs", MemSpace::sbuf, DType::fp32, v, v, 16384);
    const auto vd = alloc(k, "vd", MemSpace::sbuf, DType::fp32, v, v, 16384 + 4 * v);
    k.stream(Engine::vector).push_back(op(isa::Transpose{tile(k, vd), tile(k, vs)}));
    const auto bs = alloc(k, "bs", MemSpace::sbuf, DType::fp32, 128, l.bn_stats_max_free, 20480);
    const auto bd =
        alloc(k, "bd", MemSpace::sbuf, DType::fp32, 128, 6, 20480 + 4 * l.bn_stats_max_free);
    k.stream(Engine::vector).push_back(op(isa::BnStats{tile(k, bd), tile(k, bs)}));
    probes.push_back({"tensor_shapes", k});
  }
  {  // As many semaphores as the target has; queues: one on every DMA engine and enough on
     // DMA engine 0 to fill its queues.
    auto k = kernel("sync_resources");
    for (std::uint32_t i = 0; i < l.semaphores; ++i)
      semaphore(k, "s" + std::to_string(i));
    queue(k, "all", 0, static_cast<std::uint8_t>(l.dma_engines));
    for (std::uint32_t i = 1; i < l.dma_queues_per_engine; ++i)
      queue(k, "q" + std::to_string(i), 0, 1);
    probes.push_back({"sync_resources", k});
  }
  {  // A DMA transpose: only a target whose DMA engines transpose takes it.
    auto k = kernel("dma_transpose_allowed");
    const auto t = tensor(k, "in", isa::TensorRole::input, DType::bf16, 64, 128);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::bf16, 128, 64, 0);
    const auto q = queue(k, "q", 0, 16);
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, true, std::nullopt,
                                   std::nullopt, false}));
    probes.push_back({"dma_transpose_allowed", k});
  }
  {  // An MX quantisation: refused where tensor.mx_speedup is 0 (the base, trn2), valid
     // where it is not.
    auto k = kernel("mx");
    const auto src = alloc(k, "src", MemSpace::sbuf, DType::bf16, 128, 512, 0);
    const auto dst = alloc(k, "dst", MemSpace::sbuf, DType::fp8_e4m3fn_x4, 128, 128, 1024);
    const auto sc = alloc(k, "sc", MemSpace::sbuf, DType::uint8, 128, 128, 1536);
    k.stream(Engine::vector)
        .push_back(op(isa::QuantizeMx{tile(k, dst), tile(k, src), tile(k, sc)}));
    probes.push_back({"mx", k});
  }
  {  // An fp8_e4m3fn copy: refused where limits.fp8_e4m3fn is false (the base, trn2).
    auto k = kernel("e4m3fn");
    const auto src = alloc(k, "src", MemSpace::sbuf, DType::fp8_e4m3fn, 128, 64, 0);
    const auto dst = alloc(k, "dst", MemSpace::sbuf, DType::bf16, 128, 64, 64);
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{tile(k, dst), tile(k, src)}));
    probes.push_back({"e4m3fn", k});
  }
  // A bf16 matmul [128 x 128] x [128 x n] into a PSUM tile of dst_type.
  auto matmul_probe = [&](const char* name, DType dst_type, std::uint32_t n) {
    auto k = kernel(name);
    const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, 128, 128, 0);
    const auto x = alloc(k, "x", MemSpace::sbuf, DType::bf16, 128, n, 256);
    const auto p = alloc(k, "p", MemSpace::psum, dst_type, 128, n, 0);
    k.stream(Engine::tensor).push_back(op(isa::Matmul{tile(k, p), tile(k, w), tile(k, x)}));
    probes.push_back({name, k});
  };
  // A matmul into a bf16 PSUM tile: refused where tensor.matmul_bf16_dst is false (trn2).
  matmul_probe("bf16_dst", DType::bf16, 512);
  // A matmul result of two PSUM banks (N = 1024 fp32): refused where
  // tensor.matmul_psum_banks is 1 (trn2), valid from 2.
  matmul_probe("psum_banks", DType::fp32, 1024);
  return probes;
}

// Cost probes: one instruction per formula and parameter of the cost model (cost/cost_model.cpp
// and cost/rate.cpp), per engine, in an order where only the last Vector one depends on the one
// before it.
isa::Kernel cost_kernel() {
  auto k = kernel("costs");
  const auto bf = alloc(k, "bf", MemSpace::sbuf, DType::bf16, 128, 4096, 0);
  const auto bf2 = alloc(k, "bf2", MemSpace::sbuf, DType::bf16, 128, 4096, 8192);
  const auto fa = alloc(k, "fa", MemSpace::sbuf, DType::fp32, 128, 2048, 16384);
  const auto fb = alloc(k, "fb", MemSpace::sbuf, DType::fp32, 128, 2048, 24576);
  const auto fc = alloc(k, "fc", MemSpace::sbuf, DType::fp32, 128, 2048, 32768);
  const auto col = alloc(k, "col", MemSpace::sbuf, DType::fp32, 128, 1, 40960);
  const auto ints = alloc(k, "ints", MemSpace::sbuf, DType::int32, 128, 1024, 41024);
  const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, 128, 128, 45120);
  const auto w8 = alloc(k, "w8", MemSpace::sbuf, DType::fp8_e4m3, 128, 128, 45376);
  const auto m8 = alloc(k, "m8", MemSpace::sbuf, DType::fp8_e4m3, 128, 512, 45504);
  const auto w32 = alloc(k, "w32", MemSpace::sbuf, DType::fp32, 128, 128, 46016);
  const auto m32 = alloc(k, "m32", MemSpace::sbuf, DType::fp32, 128, 512, 46528);
  const auto ps = alloc(k, "ps", MemSpace::psum, DType::fp32, 128, 512, 0);
  auto& v = k.stream(Engine::vector);
  v.push_back(op(isa::TensorCopy{part(k, fb, 0, 32), part(k, fa, 0, 32)}));  // MIN_II floor
  v.push_back(op(isa::TensorCopy{tile(k, bf2), tile(k, bf)}));               // 16-bit width
  v.push_back(op(isa::TensorCopy{tile(k, m8), tile(k, m8)}));  // fp8: 16-bit or other width
  v.push_back(op(isa::TensorTensor{tile(k, fc), tile(k, fa), tile(k, fb)}));  // other width
  v.push_back(op(tensor_scalar(tile(k, fb), tile(k, fa), isa::AluOp::divide, 1.0f, true)));
  auto reduce = tensor_scalar(tile(k, fa), tile(k, fc), isa::AluOp::multiply, 0.5f);
  reduce.reduce_dst = tile(k, col);
  v.push_back(op(reduce));
  v.push_back(op(isa::BnAggr{part(k, fb, 0, 2), part(k, fa, 0, 1536)}));
  v.push_back(op(isa::TensorCopy{part(k, fc, 0, 512), part(k, fa, 0, 512, 3)}));  // 12 B
  v.push_back(op(isa::TensorCopy{part(k, fb, 0, 256), part(k, fa, 0, 256, 8)}));  // 32 B
  v.push_back(op(isa::TensorCopy{part(k, fc, 1024, 64), part(k, fb, 0, 64)}));    // dependent
  auto& s = k.stream(Engine::scalar);
  s.push_back(op(activation(tile(k, bf2), tile(k, bf), isa::ActFunc::exp)));
  s.push_back(op(activation(tile(k, fc), tile(k, fa), isa::ActFunc::exp)));
  auto act = activation(part(k, fb, 0, 512), part(k, fa, 0, 512), isa::ActFunc::square);
  act.reduce_dst = tile(k, col);
  s.push_back(op(act));
  k.stream(Engine::gpsimd).push_back(op(isa::Iota{tile(k, ints)}));
  auto& t = k.stream(Engine::tensor);
  t.push_back(op(isa::Matmul{part(k, ps, 0, 32), tile(k, w), part(k, bf, 0, 32)}));
  t.push_back(op(isa::Matmul{tile(k, ps), tile(k, w32), tile(k, m32)}));
  t.push_back(op(isa::Matmul{tile(k, ps), tile(k, w8), tile(k, m8)}));
  isa::Matmul double_row{tile(k, ps), tile(k, w8), tile(k, m8)};  // tensor.double_row_speedup
  double_row.perf_mode = isa::MatmulPerfMode::double_row;
  t.push_back(op(double_row));
  return k;
}

// A kernel whose SBUF holds never-written integers, read through the memory model with
// poisoning on.
isa::Kernel poison_kernel() {
  auto k = kernel("poison");
  alloc(k, "ints", MemSpace::sbuf, DType::int32, 1, 4, 0);
  alloc(k, "floats", MemSpace::sbuf, DType::fp32, 1, 4, 64);
  return k;
}

// Simulation probes (timing only), run on core 1 of a two-core Device.
struct SimProbe {
  std::string name;
  isa::Kernel kernel;
};

std::vector<SimProbe> sim_probes() {
  std::vector<SimProbe> probes;
  {  // One instruction on each compute engine, independent: each takes its engine's clock.
    auto k = kernel("engines");
    const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, 128, 128, 0);
    const auto m = alloc(k, "m", MemSpace::sbuf, DType::bf16, 128, 512, 256);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 2048);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 512, 4096);
    const auto c = alloc(k, "c", MemSpace::sbuf, DType::fp32, 128, 512, 6144);
    const auto i = alloc(k, "i", MemSpace::sbuf, DType::int32, 128, 512, 8192);
    const auto ps = alloc(k, "ps", MemSpace::psum, DType::fp32, 128, 512, 0);
    k.stream(Engine::tensor).push_back(op(isa::Matmul{tile(k, ps), tile(k, w), tile(k, m)}));
    k.stream(Engine::vector).push_back(op(isa::TensorTensor{tile(k, b), tile(k, a), tile(k, a)}));
    k.stream(Engine::scalar).push_back(op(activation(tile(k, c), tile(k, a), isa::ActFunc::exp)));
    k.stream(Engine::gpsimd).push_back(op(isa::Iota{tile(k, i)}));
    probes.push_back({"engines", k});
  }
  {  // Vector and Scalar in different PSUM banks at once: only a shared PSUM port serialises
     // them.
    auto k = kernel("psum_banks_differ");
    const auto p0 = alloc(k, "p0", MemSpace::psum, DType::fp32, 128, 512, 0);
    const auto p1 = alloc(k, "p1", MemSpace::psum, DType::fp32, 128, 512, 2048);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 512, 2048);
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{tile(k, a), tile(k, p0)}));
    k.stream(Engine::scalar).push_back(op(activation(tile(k, b), tile(k, p1), isa::ActFunc::copy)));
    probes.push_back({"psum_banks_differ", k});
  }
  {  // ... and in the same bank: v3's same-bank conflict serialises them.
    auto k = kernel("psum_same_bank");
    const auto p0 = alloc(k, "p0", MemSpace::psum, DType::fp32, 128, 256, 0);
    const auto p1 = alloc(k, "p1", MemSpace::psum, DType::fp32, 128, 256, 1024);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 256, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 256, 1024);
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{tile(k, a), tile(k, p0)}));
    k.stream(Engine::scalar).push_back(op(activation(tile(k, b), tile(k, p1), isa::ActFunc::copy)));
    probes.push_back({"psum_same_bank", k});
  }
  {  // Vector and GpSimd on SBUF at once: only a shared SBUF port serialises them.
    auto k = kernel("sbuf_port");
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 1024, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 1024, 4096);
    const auto i = alloc(k, "i", MemSpace::sbuf, DType::int32, 128, 1024, 8192);
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{tile(k, b), tile(k, a)}));
    k.stream(Engine::gpsimd).push_back(op(isa::Iota{tile(k, i)}));
    probes.push_back({"sbuf_port", k});
  }
  {  // 1 MiB over all 16 DMA engines: bound by the engines' and the core's HBM bandwidth.
    auto k = kernel("dma_bandwidth");
    const auto t = tensor(k, "big", isa::TensorRole::input, DType::fp32, 128, 2048);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 2048, 0);
    const auto q = queue(k, "q", 0, 16);
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false, std::nullopt,
                                   std::nullopt, false}));
    probes.push_back({"dma_bandwidth", k});
  }
  {  // Rows of 1 KiB (half the efficient length) and of 32 bytes (below the floor).
    auto k = kernel("dma_rows");
    const auto mid = tensor(k, "mid", isa::TensorRole::input, DType::fp32, 128, 256);
    const auto tiny = tensor(k, "tiny", isa::TensorRole::input, DType::fp32, 128, 8);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 256, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 8, 1024);
    const auto q0 = queue(k, "q0", 0, 8), q1 = queue(k, "q1", 8, 8);
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, mid), q0, false, false, std::nullopt,
                                   std::nullopt, false}));
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, b), rows_of(k, tiny), q1, false, false, std::nullopt,
                                   std::nullopt, false}));
    probes.push_back({"dma_rows", k});
  }
  {  // 24 transfers issued at once on one queue: more than a queue of 16 holds.
    auto k = kernel("dma_depth");
    const auto t = tensor(k, "in", isa::TensorRole::input, DType::fp32, 128, 16);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 16, 0);
    const auto q = queue(k, "q", 0, 16);
    for (int i = 0; i < 24; ++i)
      k.stream(Engine::sync)
          .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false, std::nullopt,
                                     std::nullopt, false}));
    probes.push_back({"dma_depth", k});
  }
  {  // A transfer GpSimd issues: it makes the descriptors itself (software DGE).
    auto k = kernel("dma_swdge");
    const auto t = tensor(k, "in", isa::TensorRole::input, DType::fp32, 128, 512);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 0);
    const auto q = queue(k, "q", 0, 16);
    k.stream(Engine::gpsimd)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false, std::nullopt,
                                   std::nullopt, false}));
    probes.push_back({"dma_swdge", k});
  }
  {  // Two queues on one DMA engine, four transfers each issued alternately: round-robin
     // interleaves them, strict priority serves the first queue first.
    auto k = kernel("dma_priority");
    const auto t = tensor(k, "in", isa::TensorRole::input, DType::fp32, 16, 512);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 16, 512, 0);
    const auto q0 = queue(k, "first", 5, 1), q1 = queue(k, "second", 5, 1);
    for (int i = 0; i < 4; ++i)
      for (auto q : {q0, q1})
        k.stream(Engine::sync)
            .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false, std::nullopt,
                                       std::nullopt, false}));
    probes.push_back({"dma_priority", k});
  }
  {  // DMA transposes of [128, 128] bf16, HBM to SBUF and SBUF to SBUF, on two queues.
    auto k = kernel("dma_transpose");
    const auto t = tensor(k, "in", isa::TensorRole::input, DType::bf16, 128, 128);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::bf16, 128, 128, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::bf16, 128, 128, 256);
    const auto c = alloc(k, "c", MemSpace::sbuf, DType::bf16, 128, 128, 512);
    const auto q0 = queue(k, "q0", 0, 16), q1 = queue(k, "q1", 0, 16);
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q0, false, true, std::nullopt,
                                   std::nullopt, false}));
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, c), tile(k, b), q1, false, true, std::nullopt,
                                   std::nullopt, false}));
    probes.push_back({"dma_transpose", k});
  }
  return probes;
}

// --- Observations.

struct PureProbes {
  std::vector<Probe> validation;
  isa::Kernel costs;
  isa::Kernel poison;
};

json observe_pure(const config::TargetConfig& cfg, const PureProbes& probes) {
  json o;
  for (const auto& p : probes.validation) {
    json problems = json::array();
    for (const auto& d : isa::check(p.kernel, cfg.limits))
      problems.push_back(d.where + ": " + d.reason);
    o["validation"][p.name] = problems;
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const auto engine = static_cast<Engine>(e);
    for (const auto& plan : engines::plan_stream(probes.costs, engine, cfg.cost))
      o["cost"][std::string(isa::engine_name(engine))].push_back({plan.cycles, plan.load_cycles});
  }
  // Eight launches of 100 us each: the host runs ahead, fills its queue, then waits.
  const auto timeline = sequence::schedule_launches(cfg.host, std::vector<double>(8, 100000.0));
  o["host"]["total_ns"] = timeline.total_ns;
  for (const auto& l : timeline.launches)
    o["host"]["launches"].push_back({l.framework_dispatch.start_ns, l.runtime_call.start_ns,
                                     l.runtime_call.end_ns, l.device.start_ns});
  o["mfu_peak_flops_per_s"] = profile::peak_flops_per_s(cfg, probes.costs);
  // What a launch's never-written SBUF holds with poisoning on: the first bytes of the
  // integer allocation, then of the float one.
  memory::MemoryImage image(cfg.limits, cfg.uninitialised_int_fill);
  image.begin_launch(probes.poison, {}, memory::UninitFill::poison);
  const std::uint8_t* row = image.row(MemSpace::sbuf, 0);
  o["poisoned_sbuf"] = std::vector<std::uint8_t>(row, row + 4 + 64);
  return o;
}

// What a launch shows: its error, its times (not their conversions into each engine's
// cycles, which are what a clock prints, not what it drives), the profiler's cycle count
// (what clocks.cycle_counter_ghz drives: the count every output reports) and where its
// tensors went.
json observe_launch(const LaunchResult& r) {
  json o;
  o["error"] = r.error;
  o["total_ps"] = r.total_ps;
  o["neuroncore_cycle_count"] = r.neuroncore_cycle_count;
  for (const auto& e : r.stats.engines)
    o["engines"].push_back(
        {e.time.busy_ps, e.time.semaphore_wait_ps, e.time.port_wait_ps, e.time.dma_wait_ps});
  for (const auto& s : r.stats.all())
    if (s.unit != Unit::cycles) std::visit([&](auto v) { o["stats"][s.name] = v; }, s.value);
  o["addresses"] = r.tensor_addresses;
  return o;
}

// One Device running every simulation probe under one config; observe() after sc_start.
class SimRun {
 public:
  SimRun(const std::string& name, const config::TargetConfig& cfg,
         const std::vector<SimProbe>& probes) {
    try {
      device_ = std::make_unique<Device>(name.c_str(), cfg, 2);
    } catch (const Error& e) {
      error_ = std::string("device: ") + e.what();
      return;
    }
    for (const auto& p : probes) {
      LaunchRequest r = request(p.kernel, true);
      try {
        launches_.emplace_back(p.name, device_->core(1).launch(std::move(r)));
      } catch (const Error& e) {
        launch_errors_[p.name] = e.what();
      }
    }
  }
  json observe() const {
    json o;
    o["device_error"] = error_;
    o["launch_errors"] = launch_errors_;
    for (const auto& [name, handle] : launches_)
      o["launches"][name] =
          handle->finished() ? observe_launch(handle->result()) : json("not finished");
    return o;
  }

 private:
  std::unique_ptr<Device> device_;
  std::string error_;
  std::map<std::string, std::string> launch_errors_;
  std::vector<std::pair<std::string, LaunchHandle>> launches_;
};

// The first of half, double (or the flipped flag) in the parameter's kind.
std::vector<json> candidates(const schema::Param& p, const json& value) {
  switch (p.kind) {
    case schema::Kind::flag:
      return {!value.get<bool>()};
    case schema::Kind::positive_int:
    case schema::Kind::counter_int: {
      const auto v = value.get<std::uint64_t>();
      if (v == 0) return {1};
      std::vector<json> c;
      if (v >= 2 || p.kind == schema::Kind::counter_int) c.push_back(v / 2);
      if (v <= p.max_int / 2) c.push_back(v * 2);
      return c;
    }
    default: {
      const double v = value.get<double>();
      if (v == 0) return {1.0};
      std::vector<json> c = {v / 2};
      if (p.kind != schema::Kind::fraction || v * 2 <= 1) c.push_back(v * 2);
      return c;
    }
  }
}

struct Perturbation {
  const schema::Param* param;
  json value;  // null when no candidate loads
  config::TargetConfig config;
  std::string rejected;  // why the candidates that did not load were refused
  bool changed = false;
  std::string seen_by;  // where the first difference is: a JSON pointer into the observations
};

}  // namespace

TEST_CASE("config: every target parameter changes a validation, cost, timing or statistic",
          "[config]") {
  require_elaboration("config perturbation");
  ScratchDir scratch;
  const std::string base_path = scratch.write({{"base", kBase}});
  const config::TargetConfig base = config::load_target(base_path);
  const json dump = config::dump_target(base_path);

  // Nothing but parameters, "base" and the descriptive fields is at the top of a target.
  std::set<std::string> sections;
  for (const auto& s : schema::section_names())
    sections.insert(s);
  for (const auto& [key, value] : dump.items()) {
    INFO("top-level field " << key);
    CHECK((key == "base" || kDescriptive.count(key) || sections.count(key)));
  }
  for (const auto& d : kDescriptive) {
    INFO("descriptive field " << d);
    CHECK(dump.contains(d));
    CHECK_FALSE(sections.count(d));
  }
  const PureProbes pure{validation_probes(base.limits), cost_kernel(), poison_kernel()};
  // The probes meant to be valid are, on the base target: each sits at its limit.
  for (const auto& p : pure.validation) {
    if (p.name == "capacities" || p.name == "free_size" || p.name == "psum_bank" ||
        p.name == "partition_start" || p.name == "mx" || p.name == "e4m3fn" ||
        p.name == "bf16_dst" || p.name == "psum_banks")
      continue;
    INFO("probe " << p.name);
    for (const auto& d : isa::check(p.kernel, base.limits))
      FAIL_CHECK(d.where + ": " + d.reason);
  }
  const json base_pure = observe_pure(base, pure);
  CHECK(base_pure["poisoned_sbuf"][0] == base.uninitialised_int_fill);  // an int32 element
  CHECK(base_pure["poisoned_sbuf"][64] == 0xFF);                        // an fp32 NaN

  std::deque<Perturbation> perturbations;
  for (const auto& p : schema::params()) {
    Perturbation& t = perturbations.emplace_back();
    t.param = &p;
    const json& given = dump.at(std::string(p.section)).at(std::string(p.key)).at("value");
    for (const json& v : candidates(p, given)) {
      try {
        t.config = config::load_target(
            scratch.write({{"base", kBase}, {std::string(p.section), {{std::string(p.key), v}}}}));
        t.value = v;
        break;
      } catch (const Error& e) {
        t.rejected += std::string(t.rejected.empty() ? "" : "; ") + e.what();
      }
    }
    if (t.value.is_null()) continue;
    const json seen = observe_pure(t.config, pure);
    if (seen != base_pure) {
      t.changed = true;
      t.seen_by = json::diff(base_pure, seen).at(0).at("path");
    }
  }

  // The rest, and the base, in one simulation.
  const std::vector<SimProbe> probes = sim_probes();
  SimRun base_run("base", base, probes);
  std::vector<std::pair<Perturbation*, std::unique_ptr<SimRun>>> runs;
  for (auto& t : perturbations)
    if (!t.value.is_null() && !t.changed)
      runs.emplace_back(
          &t, std::make_unique<SimRun>("run" + std::to_string(runs.size()), t.config, probes));
  sc_core::sc_start();
  const json base_sim = base_run.observe();
  // The probes ran on the base target and nothing failed.
  for (const auto& p : probes) {
    INFO("probe " << p.name);
    CHECK(base_sim["launches"][p.name]["error"] == "");
  }
  CHECK(base_sim["launch_errors"].empty());
  for (auto& [t, run] : runs) {
    const json seen = run->observe();
    if (seen != base_sim) {
      t->changed = true;
      t->seen_by = "simulation " + json::diff(base_sim, seen).at(0).at("path").get<std::string>();
    }
  }
  // NEURONSIM_PERTURBATION_REPORT=1 lists what each parameter moved first (a JSON pointer
  // into the observations), to see that a probe shows what it was meant to.
  if (std::getenv("NEURONSIM_PERTURBATION_REPORT"))
    for (const auto& t : perturbations)
      std::cout << path_of(*t.param) << " = " << t.value.dump() << ": "
                << (t.changed ? t.seen_by : "no change") << "\n";

  for (const auto& t : perturbations) {
    const std::string name = path_of(*t.param);
    INFO(name << " = " << t.value.dump() << " (base " << kBase << ")");
    if (t.value.is_null()) {
      FAIL_CHECK(name << ": no perturbation loads: " << t.rejected);
      continue;
    }
    if (!t.changed)
      FAIL_CHECK(name << " changes no validation, cost, timing, output or statistic: make a "
                         "model read it or delete it");
  }
}
