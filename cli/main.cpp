// neuronsim: a cycle-approximate simulator of the AWS NeuronCore.
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "isa/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"neuronsim: a cycle-approximate simulator of the AWS NeuronCore"};
  app.require_subcommand(1);
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const neuronsim::Error& e) {
    std::cerr << "neuronsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "neuronsim: internal error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
