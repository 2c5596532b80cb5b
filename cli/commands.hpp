#pragma once
// Each subcommand of the neuronsim program lives in its own file and registers itself on
// the top-level CLI11 app. A command reports bad input by throwing neuronsim::Error;
// main() prints it as one line and exits non-zero.
#include <CLI/CLI.hpp>

namespace neuronsim::cli {

void add_asm_command(CLI::App& app);        // cmd_asm.cpp:    assembly -> NEFF
void add_disasm_command(CLI::App& app);     // cmd_disasm.cpp: NEFF -> assembly
void add_neff_command(CLI::App& app);       // cmd_neff.cpp:   neff info
void add_config_command(CLI::App& app);     // cmd_config.cpp: target configs
void add_run_command(CLI::App& app);        // cmd_run.cpp:    run a kernel
void add_view_command(CLI::App& app);       // cmd_view.cpp:    profile summary
void add_export_command(CLI::App& app);     // cmd_export.cpp:  profile -> Perfetto
void add_compare_command(CLI::App& app);    // cmd_compare.cpp: profiles side by side
void add_report_command(CLI::App& app);     // cmd_report.cpp:  profiles -> HTML report
void add_example_command(CLI::App& app);    // cmd_example.cpp: emit an example kernel
void add_compile_command(CLI::App& app);    // cmd_compile.cpp: graph -> launch sequence
void add_whatif_command(CLI::App& app);     // cmd_whatif.cpp:  what limits a kernel
void add_sweep_command(CLI::App& app);      // cmd_sweep.cpp:   design-space sweeps (Dask)
void add_calibrate_command(CLI::App& app);  // cmd_calibrate.cpp: fit costs to measurements

}  // namespace neuronsim::cli
