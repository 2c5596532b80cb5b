// Eager kernels on [N, 1] tensors (docs/compiler.md, "Tiling"): an elementwise op on [N, 1]
// tensors alone runs flat, its N contiguous elements as [128, N/128] (one load, one
// instruction, one store); an [N, 1] input or output next to [N, D] rows is whole, one
// [128, tiles] buffer loaded or stored by a single DMA.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "compiler/compiler.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

const CompiledLaunch& launch_named(const CompiledProgram& p, const std::string& name) {
  for (const auto& l : p.launches)
    if (l.name == name) return l;
  FAIL("no launch " << name);
  throw;
}

std::vector<isa::DmaCopy> dmas(const isa::Kernel& k) {
  std::vector<isa::DmaCopy> out;
  for (const auto& i : k.stream(isa::Engine::sync))
    if (const auto* d = std::get_if<isa::DmaCopy>(&i.op)) out.push_back(*d);
  return out;
}

const isa::Allocation& allocation(const isa::Kernel& k, const std::string& name) {
  for (const auto& a : k.allocations)
    if (a.name == name) return a;
  FAIL("no allocation " << name);
  throw;
}

CompiledProgram eager_rmsnorm(const std::string& target) {
  const auto cfg = config::load_target(target);
  const Graph g = load_graph(std::string(NEURONSIM_SOURCE_DIR) + "/examples/rmsnorm/rmsnorm.json");
  CompiledProgram p = compile(g, Mode::eager, target, cfg.limits);
  for (const auto& l : p.launches)
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.neff));
  return p;
}

}  // namespace

TEST_CASE("compiler: eager ops on [N, 1] tensors run flat, one DMA each way", "[compiler]") {
  const CompiledProgram p = eager_rmsnorm("trn2");
  // [4096, 1]: 4096 / 128 = 32 contiguous elements per partition, one tile.
  for (const char* name : {"ms_eps", "rstd"}) {
    const isa::Kernel& k = launch_named(p, name).kernel;
    const auto copies = dmas(k);
    REQUIRE(copies.size() == 2);
    const isa::AccessPattern& in = copies[0].src;
    CHECK(in.space == isa::MemSpace::hbm);
    CHECK(in.partitions == 128);
    CHECK(in.partition_stride == 32);
    CHECK(in.ndims == 1);
    CHECK(in.dims[0] == isa::Dim{1, 32});
    CHECK(copies[1].dst.partition_stride == 32);
    CHECK(copies[1].dst.dims[0] == isa::Dim{1, 32});
    // One instruction over [128, 32]; a single tile needs a single buffer.
    const auto& compute =
        k.stream(std::string(name) == "rstd" ? isa::Engine::scalar : isa::Engine::vector);
    REQUIRE(compute.size() == 1);
    for (const auto& a : k.allocations)
      CHECK(a.free_shape == std::vector<std::uint32_t>{1, 32});
  }
}

TEST_CASE("compiler: eager mean keeps its [N, 1] result in SBUF and stores it once", "[compiler]") {
  const CompiledProgram p = eager_rmsnorm("trn1");
  const isa::Kernel& k = launch_named(p, "ms").kernel;
  // 32 tile loads of sq, then one store: HBM element t * 128 + p <- SBUF[p, t].
  const auto copies = dmas(k);
  REQUIRE(copies.size() == 33);
  const isa::AccessPattern& out = copies.back().dst;
  CHECK(out.space == isa::MemSpace::hbm);
  CHECK(out.partitions == 128);
  CHECK(out.partition_stride == 1);
  CHECK(out.ndims == 1);
  CHECK(out.dims[0] == isa::Dim{128, 32});
  CHECK(allocation(k, "ms_sb").free_shape == std::vector<std::uint32_t>{32, 1});
  // The store waits for the last tile's result: the writer's semaphore reaching 32.
  const auto& store = k.stream(isa::Engine::sync).back();
  REQUIRE(store.waits.size() == 1);
  CHECK(store.waits[0].value == 32);
}

TEST_CASE("compiler: eager x * rstd loads the [N, 1] operand once", "[compiler]") {
  const CompiledProgram p = eager_rmsnorm("trn2");
  const isa::Kernel& k = launch_named(p, "xn").kernel;
  // The rstd load first, then 32 loads of x and 32 stores of xn.
  const auto copies = dmas(k);
  REQUIRE(copies.size() == 65);
  const isa::AccessPattern& in = copies[0].src;
  CHECK(k.tensors[in.buffer].name == "rstd");
  CHECK(in.partition_stride == 1);
  CHECK(in.dims[0] == isa::Dim{128, 32});
  CHECK(allocation(k, "rstd_sb").free_shape == std::vector<std::uint32_t>{32, 1});
  // Tile t scales by column t.
  const auto& vec = k.stream(isa::Engine::vector);
  REQUIRE(vec.size() == 32);
  const auto ts = std::get<isa::TensorScalar>(vec[5].op);
  const auto& arg = std::get<isa::AccessPattern>(ts.arg0);
  CHECK(arg.byte_offset == 5 * 2);  // bf16 column 5
}

TEST_CASE("compiler: a long flat range splits into tiles, the last one short", "[compiler]") {
  const auto cfg = config::load_target("trn2");
  // 640000 = 128 x 5000: tiles of 4096 and 904 elements per partition.
  const Graph g = parse_graph(
      R"({"format": "neuronsim-graph", "version": 1, "name": "g",
      "inputs": [{"name": "s", "dtype": "fp32", "shape": [640000, 1]}],
      "nodes": [{"id": "y", "op": "rsqrt", "args": ["s"]}], "outputs": ["y"]})",
      "t.json");
  const CompiledProgram p = compile(g, Mode::eager, "trn2", cfg.limits);
  const isa::Kernel& k = p.launches.at(0).kernel;
  CHECK_NOTHROW(isa::validate(k, cfg.limits, "y"));
  const auto copies = dmas(k);
  REQUIRE(copies.size() == 4);
  CHECK(copies[0].src.partition_stride == 5000);
  CHECK(copies[0].src.dims[0] == isa::Dim{1, 4096});
  CHECK(copies[1].src.byte_offset == 4096 * 4);
  CHECK(copies[1].src.dims[0] == isa::Dim{1, 904});
  const auto& act = k.stream(isa::Engine::scalar);
  REQUIRE(act.size() == 2);
  CHECK(std::get<isa::Activation>(act[1].op).dst.free_elems() == 904);
}
