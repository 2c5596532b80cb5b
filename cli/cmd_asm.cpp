// `neuronsim asm kernel.nasm -o kernel.neff [--target NAME]`: assemble, validate against
// the target's limits, write the NEFF (all or nothing: on any error no output appears).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "asm/assembler.hpp"
#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "config/target_config.hpp"
#include "neff/neff.hpp"
#include "validate/validate.hpp"

namespace neuronsim::cli {
namespace {

struct AsmOptions {
  std::string input;
  std::string output;  // default: the input with extension .neff
  std::string target;  // default: the kernel's own target
};

void run_asm(const AsmOptions& o) {
  isa::Kernel k = isa::assemble_file(o.input);
  const std::string target = o.target.empty() ? k.target : o.target;
  if (target.empty())
    throw Error(o.input + ": kernel '" + k.name + "' names no target; give --target");
  const config::TargetConfig config = config::load_target(target);
  // The NEFF records the target it was validated for.
  if (!o.target.empty()) k.target = config.name;
  isa::validate(k, config.limits, o.input);
  const std::string output =
      o.output.empty() ? std::filesystem::path(o.input).replace_extension(".neff").string()
                       : o.output;
  if (output == o.input) throw Error(o.input + ": output would overwrite the input");
  const std::vector<std::uint8_t> bytes = neff::write(k);
  write_output(output, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  say_wrote(std::cout, output, bytes.size());
}

}  // namespace

void add_asm_command(CLI::App& app) {
  auto options = std::make_shared<AsmOptions>();
  auto* cmd = app.add_subcommand("asm", "Assemble a .nasm kernel into a NEFF");
  cmd->add_option("input", options->input, "Assembly source (.nasm)")->required();
  cmd->add_option("-o,--output", options->output,
                  "NEFF to write (default: the input with extension .neff; -: stdout)");
  cmd->add_option("-t,--target", options->target,
                  "Validate for this target: a preset (trn1, trn2, trn3) or a JSON file; "
                  "default: the kernel's own target");
  cmd->callback([options] { run_asm(*options); });
}

}  // namespace neuronsim::cli
