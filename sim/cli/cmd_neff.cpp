// Placeholder: replaced by the real command.
#include "isa/error.hpp"
#include "sim/cli/commands.hpp"

namespace neuronsim::cli {

void add_neff_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("neff", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] { throw Error("'neff' is not built yet"); });
}

}  // namespace neuronsim::cli
