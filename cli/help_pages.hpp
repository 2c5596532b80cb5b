#pragma once
// What the program says about itself beyond --help: a clear error for a mistyped
// command, and the bash completion script and man page, both generated from the CLI11
// app so they list exactly the commands and options the program has (CMakeLists.txt
// builds them with the program; cmake --install installs them).
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace neuronsim::cli {

// If argv names a command that does not exist: the error text, naming it, the closest
// command and the valid ones.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv);

// Hidden options: --bash-completion FILE and --man-page FILE write that file and exit.
void add_help_page_options(CLI::App& app);

std::string bash_completion(const CLI::App& app);
std::string man_page(const CLI::App& app);

}  // namespace neuronsim::cli
