// neuronsim: a cycle-approximate simulator of the AWS NeuronCore.
//
// Exit status (docs/cli.md, and the footer of --help): 0 ok; 1 a user error, bad usage
// (unknown command or option, missing argument) or bad input (neuronsim::Error); 2 an
// internal error. CLI11's own codes (106, 109, ...) are its internals, never ours.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/limits.hpp"
#include "cli/commands.hpp"
#include "cli/help_pages.hpp"
#include "cli/version.hpp"

namespace {

constexpr int kUserError = 1;
constexpr int kInternalError = 2;

}  // namespace

// The program's main, called by the launcher (cli/launcher/launcher.cpp), which loads this
// library when a command needs it.
extern "C" __attribute__((visibility("default"))) int neuronsim_cli_main(int argc, char** argv) {
  CLI::App app{"neuronsim: a cycle-approximate simulator of the AWS NeuronCore"};
  app.name("neuronsim");
  app.require_subcommand(1);
  app.set_version_flag("--version", NEURONSIM_VERSION_TEXT);
  app.footer(
      "Run 'neuronsim COMMAND --help' for a command's options. An output file given as - is "
      "standard output.\nExit status: 0 ok, 1 user error (bad usage or bad input), 2 internal "
      "error.");
  // Resource limits (docs/limits.md), accepted before or after the command: subcommands
  // pass options they do not know to the program (fallthrough, inherited by each).
  std::vector<std::string> limits;
  app.add_option("--limit", limits,
                 "NAME=VALUE: raise (or lower) a resource limit; repeatable (docs/limits.md)")
      ->type_name("NAME=N")
      // One value per --limit: a vector option otherwise takes every word after it, so
      // `asm --limit X=1 k.nasm` lost its input.
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.fallthrough();
  app.parse_complete_callback([&limits] {
    for (const auto& l : limits)
      neuronsim::set_limit_from_text(l);
  });
  neuronsim::cli::add_asm_command(app);
  neuronsim::cli::add_disasm_command(app);
  neuronsim::cli::add_neff_command(app);
  neuronsim::cli::add_config_command(app);
  neuronsim::cli::add_run_command(app);
  neuronsim::cli::add_view_command(app);
  neuronsim::cli::add_export_command(app);
  neuronsim::cli::add_compare_command(app);
  neuronsim::cli::add_report_command(app);
  neuronsim::cli::add_example_command(app);
  neuronsim::cli::add_compile_command(app);
  neuronsim::cli::add_whatif_command(app);
  neuronsim::cli::add_sweep_command(app);
  neuronsim::cli::add_calibrate_command(app);
  neuronsim::cli::add_help_page_options(app);
  try {
    // CLI11 reports a mistyped command as "A subcommand is required"; name it instead.
    if (const auto unknown = neuronsim::cli::unknown_command(app, argc, argv)) {
      std::cerr << "neuronsim: error: " << *unknown << "\n";
      return kUserError;
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; every other is a usage error.
    return app.exit(e) == 0 ? 0 : kUserError;
  } catch (const neuronsim::Error& e) {
    std::cerr << "neuronsim: error: " << e.what() << "\n";
    return kUserError;
  } catch (const std::exception& e) {
    std::cerr << "neuronsim: internal error: " << e.what() << "\n";
    return kInternalError;
  }
  return 0;
}
