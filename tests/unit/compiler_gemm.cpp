// The GEMM generator (compiler/gemm.hpp, docs/compiler.md "Matmul"): its tiling follows the
// target's PSUM banks and SBUF capacity; its kernels validate for any shape, dtype and
// target; A is transposed on the Tensor engine, never by a strided DMA; every load it
// makes is counted in the plan; errors name the reason.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "compiler/compiler.hpp"
#include "compiler/gemm.hpp"
#include "config/target_config.hpp"
#include "cost/cost_model.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

GemmSpec spec(std::uint32_t m, std::uint32_t n, std::uint32_t k, isa::DType t = isa::DType::bf16,
              bool pipelined = true) {
  GemmSpec s;
  s.target = "trn2";
  s.m = m;
  s.n = n;
  s.k = k;
  s.in_dtype = t;
  s.out_dtype = t == isa::DType::fp32 ? isa::DType::fp32 : isa::DType::bf16;
  s.pipelined = pipelined;
  return s;
}

std::size_t count(const isa::Kernel& k, isa::Engine e, isa::Opcode op) {
  std::size_t n = 0;
  for (const auto& i : k.stream(e))
    n += i.opcode() == op;
  return n;
}

std::uint64_t pattern_bytes(const isa::AccessPattern& ap) {
  return ap.elems() * isa::dtype_size(ap.dtype);
}

}  // namespace

TEST_CASE("gemm: the register block fills the PSUM banks, B rows are full-rate DMA rows",
          "[gemm]") {
  const auto trn2 = config::load_target("trn2").limits;
  // bf16 4096^3: chunks of 512 (one 2 KiB bank of fp32); 2 chunks make a 2 KiB bf16 row of
  // B (reference section 4); 8 banks / 2 chunks = 4 row tiles per block.
  const GemmPlan p = plan_gemm(spec(4096, 4096, 4096), trn2);
  CHECK(p.m_tile == 128);
  CHECK(p.k_tile == 128);
  CHECK(p.n_chunk == 512);
  CHECK(p.psum_banks == 8);
  CHECK(p.group_chunks == 2);
  CHECK(p.block_m_tiles == 4);
  CHECK(p.m_blocks == 8);  // 32 row tiles / 4
  CHECK(p.n_groups == 4);  // 8 chunks / 2
  CHECK(p.b_slots == 8);
  CHECK(p.out_sets == 2);
  CHECK(p.transposes_per_bank == 8);  // 2048 / (128 x 2 bytes)
  // Per partition: A^T panel 32 K-tiles x 512 x 2 B = 32 KiB, rows of A 4 x 4096 x 2 B =
  // 32 KiB, B ring 8 x 1024 x 2 B = 16 KiB, output 2 x 4 x 1024 x 2 B = 16 KiB.
  CHECK(p.sbuf_bytes == 96 * 1024);
  // A once, B once per block (8 times), C once: 9 x 32 MiB read, 32 MiB written.
  CHECK(p.hbm_read_bytes == 9ull * 32 * 1024 * 1024);
  CHECK(p.hbm_write_bytes == 32ull * 1024 * 1024);

  CHECK_FALSE(p.b_resident);  // B's 32 MiB is 256 KiB per partition

  // bf16 2048^3: B's 8 MiB (64 KiB per partition: 2 groups x 16 K-tiles of 2 KiB) fits, so
  // it is loaded once and kept: panel 16 x 512 x 2 B = 16 KiB, rows of A 4 x 2048 x 2 B =
  // 16 KiB, B 64 KiB, output 16 KiB. HBM: A and B once, 8 MiB each.
  const GemmPlan r = plan_gemm(spec(2048, 2048, 2048), trn2);
  CHECK(r.b_resident);
  CHECK(r.b_slots == 32);
  CHECK(r.sbuf_bytes == 112 * 1024);
  CHECK(r.hbm_read_bytes == 16ull * 1024 * 1024);

  // fp8: 4 chunks for a 2 KiB row, so 2 row tiles; fp32: 1 chunk, 8 row tiles.
  const GemmPlan f8 = plan_gemm(spec(1024, 4096, 1024, isa::DType::fp8_e4m3), trn2);
  CHECK(f8.group_chunks == 4);
  CHECK(f8.block_m_tiles == 2);
  const GemmPlan f32 = plan_gemm(spec(1024, 1024, 1024, isa::DType::fp32), trn2);
  CHECK(f32.group_chunks == 1);
  CHECK(f32.block_m_tiles == 8);
  CHECK(f32.transposes_per_bank == 4);  // 2048 / (128 x 4 bytes)

  // A short M gives the banks to more chunks: 1 row tile x 8 chunks.
  const GemmPlan wide = plan_gemm(spec(128, 4096, 1024), trn2);
  CHECK(wide.block_m_tiles == 1);
  CHECK(wide.group_chunks == 8);
}

TEST_CASE("gemm: the schedule knobs set the register block and the ring", "[gemm]") {
  const auto trn2 = config::load_target("trn2").limits;
  GemmSpec s = spec(4096, 4096, 4096);
  s.block_rows = 2;
  s.block_cols = 4;
  s.b_slots = 5;
  const GemmPlan p = plan_gemm(s, trn2);
  CHECK(p.block_m_tiles == 2);
  CHECK(p.group_chunks == 4);
  CHECK(p.b_slots == 5);
  CHECK_FALSE(p.b_resident);
  CHECK(p.m_blocks == 16);  // 32 row tiles / 2
  CHECK(p.n_groups == 2);   // 8 chunks / 4
  // B once per block: 16 times, with A once (32 MiB each).
  CHECK(p.hbm_read_bytes == 17ull * 32 * 1024 * 1024);
  REQUIRE_NOTHROW(isa::validate(emit_gemm(s, trn2), trn2, "gemm"));
  // Only rows given: the columns fill the remaining banks (8 / 1 = 8 chunks).
  GemmSpec rows_only = spec(4096, 4096, 4096);
  rows_only.block_rows = 1;
  CHECK(plan_gemm(rows_only, trn2).group_chunks == 8);
  // What the target cannot hold is an error, not a smaller block.
  GemmSpec big = spec(4096, 4096, 4096);
  big.block_rows = 4;
  big.block_cols = 4;
  CHECK_THROWS_WITH(plan_gemm(big, trn2), Catch::Contains("needs more than the 8 PSUM banks"));
  GemmSpec ring = spec(4096, 4096, 4096);
  ring.b_slots = 4000;
  CHECK_THROWS_WITH(plan_gemm(ring, trn2), Catch::Contains("does not fit SBUF"));
}

TEST_CASE("gemm: SBUF capacity bounds the block and the ring", "[gemm]") {
  const auto trn1 = config::load_target("trn1").limits;  // 192 KiB per partition
  // bf16 K = 16384: per row tile the A^T panel and A's rows take 128 x 128 x 2 B = 32 KiB
  // each; 4 tiles (256 KiB) do not fit 192 KiB, 2 tiles (128 KiB) do with 8 slots of
  // 2 KiB and 2 x 2 output tiles of 2 KiB: 128 + 16 + 8 = 152 KiB (3 tiles: 192 + 16 > 192).
  const GemmPlan p = plan_gemm(spec(1024, 1024, 16384), trn1);
  CHECK(p.block_m_tiles == 2);
  CHECK(p.b_slots == 8);
  CHECK(p.sbuf_bytes == 152 * 1024);
  CHECK(p.sbuf_bytes <= trn1.sbuf_bytes_per_partition);
  // One row tile's panel and rows over K = 60000 (469 K-tiles) take 469 x 128 x 2 +
  // 60000 x 2 = 240064 bytes, more than 192 KiB: K is split. A block is 2 row tiles
  // (M = 256; N = 256 is one chunk, so 8 banks / 1), 2 segments of 235 K-tiles need
  // 2 x (235 x 256 x 2) = 240640 bytes, 3 segments of up to 157: 2 x (157 x 256 x 2) =
  // 160768, plus 8 ring slots of 256 x 2 = 512 B and one output set of 2 tiles x 512 B:
  // 165888.
  const GemmPlan seg = plan_gemm(spec(256, 256, 60000), trn1);
  CHECK(seg.k_segments == 3);
  CHECK(seg.segment_k_tiles == 157);
  CHECK(seg.block_m_tiles == 2);
  CHECK(seg.sbuf_bytes == 165888);
  // C written by each segment, read back by the two after the first.
  CHECK(seg.hbm_write_bytes == 3ull * 256 * 256 * 2);
  CHECK(seg.hbm_read_bytes == 2ull * 256 * 60000 * 2 + 2ull * 256 * 256 * 2);
  const isa::Kernel k = emit_gemm(spec(256, 256, 60000), trn1);
  REQUIRE_NOTHROW(isa::validate(k, trn1, "gemm"));
  std::size_t adds = 0;
  for (const auto& i : k.stream(isa::Engine::gpsimd))
    adds += std::get<isa::DmaCopy>(i.op).accumulate;
  CHECK(adds == 4);  // 2 row tiles x the 2 later segments
  CHECK_THROWS_WITH(plan_gemm(spec(0, 8, 8), trn1), Catch::Contains("M, N and K must be positive"));
  // Serial: one slot, one output set.
  const GemmPlan s = plan_gemm(spec(1024, 1024, 1024, isa::DType::bf16, false), trn1);
  CHECK(s.b_slots == 1);
  CHECK(s.out_sets == 1);
}

TEST_CASE("gemm: partial tiles of a 200 x 300 x 130 product", "[gemm]") {
  const auto trn2 = config::load_target("trn2").limits;
  const isa::Kernel k = emit_gemm(spec(200, 300, 130), trn2);
  REQUIRE_NOTHROW(isa::validate(k, trn2, "gemm"));
  // Row tiles 128 + 72, K-tiles 128 + 2, one chunk of 300: 2 x 2 transposes, 2 x 1 x 2
  // matmuls; one transpose bank per K-tile and one output copy per row tile.
  CHECK(count(k, isa::Engine::tensor, isa::Opcode::transpose) == 4);
  CHECK(count(k, isa::Engine::tensor, isa::Opcode::matmul) == 4);
  CHECK(count(k, isa::Engine::vector, isa::Opcode::tensor_copy) +
            count(k, isa::Engine::scalar, isa::Opcode::activation) ==
        4);
  CHECK(count(k, isa::Engine::sync, isa::Opcode::dma_copy) == 4);    // 2 row tiles + 2 B tiles
  CHECK(count(k, isa::Engine::gpsimd, isa::Opcode::dma_copy) == 2);  // one store per row tile
  // The last matmul: the 72-row tile against the 2-row K remainder.
  const auto last = std::get<isa::Matmul>(k.stream(isa::Engine::tensor).back().op);
  CHECK(last.stationary.partitions == 2);
  CHECK(last.stationary.free_elems() == 72);
  CHECK(last.moving.free_elems() == 300);
  CHECK(last.acc == isa::AccumulateFlag::last);
}

TEST_CASE("gemm: every shape, dtype and target validates and moves what the plan says", "[gemm]") {
  const std::vector<std::vector<std::uint32_t>>
      shapes = {{1, 1, 1},       {128, 512, 128},    {129, 513, 257},
                {200, 300, 130}, {64, 4096, 64},     {1000, 70, 3000},
                {3, 5000, 7},    {1024, 1024, 1024}, {130, 40, 70000}};  // K split into segments
  const isa::DType dtypes[] = {isa::DType::bf16, isa::DType::fp16, isa::DType::fp8_e4m3,
                               isa::DType::fp32};
  for (const char* target : {"trn1", "trn2", "trn3"}) {
    const auto limits = config::load_target(target).limits;
    for (const auto& sh : shapes)
      for (isa::DType t : dtypes)
        for (bool pipelined : {true, false}) {
          const GemmSpec s = spec(sh[0], sh[1], sh[2], t, pipelined);
          CAPTURE(target, sh[0], sh[1], sh[2], isa::dtype_name(t), pipelined);
          const GemmPlan p = plan_gemm(s, limits);
          const isa::Kernel k = emit_gemm(s, limits);
          REQUIRE_NOTHROW(isa::validate(k, limits, "gemm"));
          CHECK(count(k, isa::Engine::tensor, isa::Opcode::matmul) ==
                std::size_t{p.m_tiles} * p.n_chunks * p.k_tiles);
          CHECK(count(k, isa::Engine::tensor, isa::Opcode::transpose) ==
                std::size_t{p.m_tiles} * p.k_tiles);
          std::uint64_t flops = 0, read = 0, written = 0;
          for (const auto& i : k.stream(isa::Engine::tensor))
            flops += isa::flops(i);
          for (isa::Engine e : {isa::Engine::sync, isa::Engine::gpsimd})
            for (const auto& i : k.stream(e)) {
              const auto& d = std::get<isa::DmaCopy>(i.op);
              // Natural layouts only: HBM rows are read and written contiguously.
              const isa::AccessPattern& hbm = d.src.space == isa::MemSpace::hbm ? d.src : d.dst;
              CHECK(hbm.dims[hbm.ndims - 1].stride == 1);
              (d.src.space == isa::MemSpace::hbm ? read : written) += pattern_bytes(hbm);
              if (d.accumulate) read += pattern_bytes(hbm);  // read-add-write
            }
          CHECK(flops == 2ull * sh[0] * sh[1] * sh[2]);
          CHECK(read == p.hbm_read_bytes);
          CHECK(written == p.hbm_write_bytes);
        }
  }
}

TEST_CASE("gemm: consecutive matmuls share the stationary across a group's chunks", "[gemm]") {
  const auto trn2 = config::load_target("trn2").limits;
  // bf16 256 x 1024 x 256: one block of 2 row tiles x one group of 2 chunks, 2 K-tiles:
  // per K-step the order is (tile 0, chunk 0), (0, 1), (1, 0), (1, 1), so every second
  // matmul reuses the stationary loaded for the one before: 4 of 8.
  const isa::Kernel k = emit_gemm(spec(256, 1024, 256), trn2);
  std::optional<isa::Matmul> previous;  // a copy: the stream decodes into one value
  std::size_t reused = 0, matmuls = 0;
  for (const auto& i : k.stream(isa::Engine::tensor)) {
    const auto* mm = std::get_if<isa::Matmul>(&i.op);
    if (mm) {
      ++matmuls;
      if (previous && previous->stationary == mm->stationary) ++reused;
      previous = *mm;
    } else {
      previous.reset();
    }
  }
  CHECK(matmuls == 8);
  CHECK(reused == 4);
}

TEST_CASE("gemm: the compiler lowers matmul nodes of any shape and fp8", "[gemm][compiler]") {
  const auto cfg = config::load_target("trn2");
  const std::string head = R"({"format": "neuronsim-graph", "version": 1, "name": "g", )";
  const Graph g = parse_graph(head + R"("inputs": [
      {"name": "a", "dtype": "fp8_e4m3", "shape": [256, 130]},
      {"name": "b", "dtype": "fp8_e4m3", "shape": [130, 300]}],
      "nodes": [{"id": "y", "op": "matmul", "args": ["a", "b"]},
                {"id": "z", "op": "exp", "args": ["y"]}], "outputs": ["z"]})",
                              "t.json");
  // fp8 products come out in bf16 and feed the row ops like any bf16 tensor.
  CHECK(g.type_of("y").dtype == isa::DType::bf16);
  // Fused: exp runs on the copy out of PSUM, so the matmul's launch is the only one.
  const CompiledProgram p = compile(g, Mode::fused, "trn2", cfg.limits);
  REQUIRE(p.launches.size() == 1);
  const isa::Kernel& mm = p.launches[0].kernel;
  CHECK_NOTHROW(isa::validate(mm, cfg.limits, "y"));
  CHECK(mm.tensors[0].dtype == isa::DType::fp8_e4m3);
  CHECK(count(mm, isa::Engine::tensor, isa::Opcode::matmul) == 4);
  CHECK(p.launches[0].nodes == std::vector<std::string>{"y", "z"});
  // Eager: the matmul and exp are two launches.
  CHECK(compile(g, Mode::eager, "trn2", cfg.limits).launches.size() == 2);
  // fp8 feeds matmuls only.
  CHECK_THROWS_WITH(parse_graph(head + R"("inputs": [
      {"name": "a", "dtype": "fp8_e5m2", "shape": [128, 128]}],
      "nodes": [{"id": "y", "op": "exp", "args": ["a"]}], "outputs": ["y"]})",
                                "t.json"),
                    Catch::Contains("fp8 tensor 'a' can only be a matmul operand"));
}
