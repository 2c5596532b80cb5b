#pragma once
// The graph compiler (docs/compiler.md): a graph (compiler/graph.hpp) becomes a launch
// sequence of kernels, the way PyTorch runs it eagerly (one kernel per op, every result
// through HBM) or the way torch.compile runs it (the row-wise ops fused into one kernel,
// intermediates kept in SBUF). The caller writes the kernels as NEFFs and the sequence as
// launch.json (docs/compiler.md, "Launch sequence").
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "compiler/graph.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

enum class Mode : std::uint8_t { eager, fused };
std::string mode_name(Mode m);
std::optional<Mode> parse_mode(const std::string& name);

// One kernel the compiler made, with the launch.json entry it becomes.
struct CompiledLaunch {
  std::string name;  // unique in the sequence
  std::string neff;  // file name, relative to the output directory
  std::string op;    // the graph op, "fused" (row ops) or "attention"
  std::vector<std::string> nodes;
  isa::Kernel kernel;
};

enum class TensorPlace : std::uint8_t { input, output, intermediate };

struct ProgramTensor {
  std::string name;
  TensorType type;
  TensorPlace role = TensorPlace::input;
};

struct CompiledProgram {
  std::string program;  // the graph's name
  Mode mode = Mode::fused;
  std::vector<ProgramTensor> tensors;    // every tensor that lives in HBM
  std::vector<CompiledLaunch> launches;  // in launch order
  // "<source>: input 'u': ..." for inputs no launch reads (left out of `tensors`, so a run
  // needs no value for them) and nodes fused mode removed because no output needs them.
  std::vector<std::string> warnings;
};

// Every kernel is checked with isa::validate against `limits`. Throws neuronsim::Error
// naming the graph file, the node or launch, and the reason. Each warning is also written
// to `diagnostics` ("warning: ..." and a newline) unless it is null.
CompiledProgram compile(const Graph& g, Mode mode, const std::string& target,
                        const params::TargetLimits& limits, std::ostream* diagnostics);
// The same, warnings written to std::cerr (the `neuronsim compile` command's stderr).
CompiledProgram compile(const Graph& g, Mode mode, const std::string& target,
                        const params::TargetLimits& limits);

// launch.json: {"format": "neuronsim-launch-sequence", "version": 1, ...}.
std::string launch_json(const CompiledProgram& p);

}  // namespace neuronsim::compiler
