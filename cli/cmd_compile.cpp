// `neuronsim compile graph.json --mode eager|fused -o outdir/`: a graph (docs/graph.md)
// compiled into a launch sequence (docs/compiler.md): one NEFF per launch plus
// outdir/launch.json. Every kernel is validated for the target before anything is written.
// The directory is written whole or not at all, with a manifest (compiler/program_directory.hpp).
#include <fcntl.h>  // AT_FDCWD

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "cli/commands.hpp"
#include "compiler/compiler.hpp"
#include "compiler/program_directory.hpp"
#include "config/target_config.hpp"
#include "neff/neff.hpp"

#include <nlohmann/json.hpp>

namespace neuronsim::cli {
namespace {

struct CompileOptions {
  std::string graph;
  std::string mode = "fused";
  std::string target = "trn2";
  std::string out_dir;
};

void run_compile(const CompileOptions& o) {
  const auto mode = compiler::parse_mode(o.mode);
  if (!mode) throw Error("compile: --mode must be eager or fused, not '" + o.mode + "'");
  const config::TargetConfig config = config::load_target(o.target);
  const compiler::Graph g = compiler::load_graph(o.graph);
  const compiler::CompiledProgram p = compiler::compile(g, *mode, config.name, config.limits);
  compiler::write_program_directory(p, o.out_dir);
  std::cout << g.name << " (" << compiler::mode_name(*mode) << ", " << config.name
            << "): " << p.launches.size() << " launch(es) in " << o.out_dir << "\n";
  for (const auto& l : p.launches)
    std::cout << "  " << l.neff << "  " << l.op << "  " << l.kernel.instruction_count()
              << " instructions\n";
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto o = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand(
      "compile", "Compile a graph (JSON) into NEFFs and a launch sequence (eager or fused)");
  cmd->add_option("graph", o->graph, "Graph file (docs/graph.md)")->required();
  cmd->add_option("--mode", o->mode, "eager: one kernel per op; fused: torch.compile-like")
      ->capture_default_str();
  cmd->add_option("-t,--target", o->target, "Target preset or config file")->capture_default_str();
  cmd->add_option("-o,--output", o->out_dir, "Output directory")->required();
  cmd->callback([o] { run_compile(*o); });
}

}  // namespace neuronsim::cli
