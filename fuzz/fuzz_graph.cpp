// A graph (docs/graph.md), parsed and compiled both ways.
#include "compiler/compiler.hpp"
#include "compiler/graph.hpp"
#include "config/target_config.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const neuronsim::config::TargetConfig config = neuronsim::config::load_target("trn2");
  const std::string text(reinterpret_cast<const char*>(data), size);
  neuronsim::fuzz::expect_clean([&] {
    const auto g = neuronsim::compiler::parse_graph(text, "fuzz.json");
    for (auto mode : {neuronsim::compiler::Mode::fused, neuronsim::compiler::Mode::eager})
      neuronsim::compiler::compile(g, mode, config.name, config.limits, nullptr);
  });
  return 0;
}
