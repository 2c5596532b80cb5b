// `neuronsim disasm kernel.neff [-o out.nasm]`: a NEFF back to assembly text, which
// assembles to the same instructions.
#include <iostream>
#include <memory>
#include <string>

#include "asm/printer.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "neff/neff.hpp"

namespace neuronsim::cli {
namespace {

struct DisasmOptions {
  std::string input;
  std::string output;  // empty: stdout
};

void run_disasm(const DisasmOptions& o) {
  const std::string text = isa::print(neff::read_file(o.input).kernel);
  const std::string output = o.output.empty() ? "-" : o.output;
  if (output == o.input) throw Error(o.input + ": output would overwrite the input");
  write_output(output, text);
  say_wrote(std::cout, output, text.size());
}

}  // namespace

void add_disasm_command(CLI::App& app) {
  auto options = std::make_shared<DisasmOptions>();
  auto* cmd = app.add_subcommand("disasm", "Print a NEFF as assembly text");
  cmd->add_option("input", options->input, "NEFF file")->required();
  cmd->add_option("-o,--output", options->output, "Write the assembly here (default or -: stdout)");
  cmd->callback([options] { run_disasm(*options); });
}

}  // namespace neuronsim::cli
