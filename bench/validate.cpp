// Measures check() on a large kernel: 100,000 vector instructions of three operands each,
// every one with a semaphore wait. Prints the best of several runs.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "validate/validate.hpp"

using namespace neuronsim::isa;
namespace params = neuronsim::params;

namespace {

AccessPattern tile(MemSpace space, std::uint32_t buffer) {
  AccessPattern ap;
  ap.space = space;
  ap.buffer = buffer;
  ap.partitions = 128;
  ap.dims[0] = {1, 512};
  return ap;
}

Allocation alloc(const char* name, MemSpace space, std::uint32_t byte_offset) {
  Allocation a;
  a.name = name;
  a.space = space;
  a.free_shape = {512};
  a.byte_offset = byte_offset;
  return a;
}

}  // namespace

int main() {
  params::TargetLimits limits;  // trn1, reference sections 1-2
  limits.partitions = 128;
  limits.sbuf_bytes_per_partition = 192 * 1024;
  limits.psum_bytes_per_partition = 16 * 1024;
  limits.psum_bank_bytes = 2048;
  limits.max_sbuf_free_elems = 64 * 1024;
  limits.max_psum_free_elems = 4 * 1024;
  limits.matmul_max_k = limits.matmul_max_m = 128;
  limits.matmul_max_n = 512;
  limits.tensor_transpose_max = 128;
  limits.vector_transpose_max = 32;
  limits.bn_stats_max_free = 512;
  limits.semaphores = 32;
  limits.dma_engines = limits.dma_queues_per_engine = 16;
  limits.partition_start_granule = 32;
  limits.ap_max_free_dims = 4;
  limits.dma_max_free_dims = 4;
  limits.ap_max_dim_size = 65535;
  limits.ap_max_stride = 32767;

  Kernel k;
  k.allocations = {alloc("x", MemSpace::sbuf, 0), alloc("y", MemSpace::sbuf, 2048),
                   alloc("p", MemSpace::psum, 0)};
  k.semaphores = {{"s", 0}};
  constexpr int kInstructions = 100000;
  for (int i = 0; i < kInstructions; ++i) {
    Instruction in;
    in.op = TensorTensor{tile(MemSpace::sbuf, 1), tile(MemSpace::sbuf, 0), tile(MemSpace::psum, 2),
                         AluOp::add};
    in.waits.push_back({0, 1});
    in.source_line = i + 1;
    k.stream(Engine::vector).push_back(in);
  }
  double best_ms = 1e30;
  std::size_t problems = 0;
  for (int run = 0; run < 5; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    problems = check(k, limits).size();
    const auto t1 = std::chrono::steady_clock::now();
    best_ms = std::min(best_ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::printf("check(): %d instructions, %zu problems, best of 5: %.2f ms\n", kInstructions,
              problems, best_ms);
  return problems == 0 ? 0 : 1;
}
