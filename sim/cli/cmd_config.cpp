// Placeholder: replaced by the real command.
#include "isa/error.hpp"
#include "sim/cli/commands.hpp"

namespace neuronsim::cli {

void add_config_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("config", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] { throw Error("'config' is not built yet"); });
}

}  // namespace neuronsim::cli
