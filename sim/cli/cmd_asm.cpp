// Placeholder: replaced by the real command.
#include "isa/error.hpp"
#include "sim/cli/commands.hpp"

namespace neuronsim::cli {

void add_asm_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("asm", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] { throw Error("'asm' is not built yet"); });
}

}  // namespace neuronsim::cli
