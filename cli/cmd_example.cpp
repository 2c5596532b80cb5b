// `neuronsim example NAME -o kernel.neff`: the example kernels of examples/ as NEFF or
// assembly, at any size, serial or double-buffered, validated for the target.
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "asm/printer.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "config/target_config.hpp"
#include "examples/kernels.hpp"
#include "neff/neff.hpp"
#include "validate/validate.hpp"

namespace neuronsim::cli {
namespace {

struct ExampleOptions {
  std::string name;
  examples::ExampleParams params;
  std::string output;
  std::string asm_output;
  bool list = false;
};

void run_example(const ExampleOptions& o) {
  if (o.list || o.name.empty()) {
    for (const auto& e : examples::all_examples())
      std::cout << e.name << "\t" << e.description << "\n";
    return;
  }
  if (o.output.empty() && o.asm_output.empty())
    throw Error("example " + o.name + ": give -o FILE.neff and/or --asm FILE.nasm");
  const config::TargetConfig config = config::load_target(o.params.target);
  examples::ExampleParams params = o.params;
  params.target = config.name;
  params.limits = config.limits;
  isa::Kernel k = examples::find_example(o.name).make(params);
  isa::validate(k, config.limits, "example " + o.name);
  if (is_stdout(o.asm_output) && is_stdout(o.output))
    throw Error("example " + o.name + ": -o and --asm cannot both be standard output");
  // With a file on stdout, the messages go to stderr.
  std::ostream& messages = is_stdout(o.asm_output) || is_stdout(o.output) ? std::cerr : std::cout;
  if (!o.asm_output.empty()) {
    const std::string text = isa::print(k);
    write_output(o.asm_output, text);
    say_wrote(messages, o.asm_output, text.size());
  }
  if (!o.output.empty()) {
    const std::vector<std::uint8_t> bytes = neff::write(k);
    write_output(o.output,
                 std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    say_wrote(messages, o.output, bytes.size());
  }
}

}  // namespace

void add_example_command(CLI::App& app) {
  auto o = std::make_shared<ExampleOptions>();
  auto* cmd = app.add_subcommand("example", "Emit an example kernel (matmul, softmax, rmsnorm)");
  cmd->add_option("name", o->name, "Example name (see --list)");
  cmd->add_flag("--list", o->list, "List the examples");
  cmd->add_option("-o,--output", o->output, "NEFF to write (-: stdout)");
  cmd->add_option("--asm", o->asm_output, "Assembly (.nasm) to write (-: stdout)");
  cmd->add_option("-t,--target", o->params.target, "Target preset or config file")
      ->capture_default_str();
  cmd->add_option("--rows", o->params.rows, "Rows (matmul: M) (default: the example's)");
  cmd->add_option("--cols", o->params.cols, "Columns (matmul: N)");
  cmd->add_option("--inner", o->params.inner, "Contraction size K (matmul only)");
  cmd->add_option("--dtype", o->params.dtype,
                  "Input dtype (matmul: bf16, fp16, fp8_e4m3, fp8_e5m2, fp32; rmsnorm: bf16, fp32; "
                  "default bf16)");
  cmd->add_flag("--double-buffer", o->params.double_buffered,
                "Overlap DMA with compute (two buffers per stage; matmul: its pipelined "
                "schedule, docs/compiler.md)");
  cmd->add_option("--buffers", o->params.buffers,
                  "rmsnorm, softmax: buffers per stage, 1 to 8 (--double-buffer: 2)")
      ->check(CLI::Range(1, 8));
  cmd->callback([o] { run_example(*o); });
}

}  // namespace neuronsim::cli
