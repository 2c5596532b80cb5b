// `neuronsim calibrate kernels|measure|fit`: the calibration of a target's cost parameters
// against hardware measurements (docs/calibration.md). Its engine is Python (the kernels
// are NKI Python traced by neuronsim.nki, and the fit simulates them in process many
// times through neuronsim.run): this command checks its options and hands over to
// `python3 -m neuronsim.calibrate` (cli/python_module.hpp), as `neuronsim sweep` does.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/python_module.hpp"

namespace neuronsim::cli {
namespace {

struct CalibrateOptions {
  std::string output, target = "trn2", suite, config, measurements, report, parameters;
  bool json = false;
};

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit a target's cost parameters to hardware measurements (docs/calibration.md): "
      "kernels (the suite to run on a Trainium), measure (the suite on neuronsim), fit");
  cmd->require_subcommand(1);
  cmd->footer(
      "A session: neuronsim calibrate kernels -o suite -t trn2; on the Trainium: python3 "
      "suite/driver.py -o m.csv; then neuronsim calibrate fit m.csv -t trn2 -o trn2-fit.json "
      "--report report.md; neuronsim run K.neff -t trn2-fit.json");
  auto o = std::make_shared<CalibrateOptions>();

  auto* kernels = cmd->add_subcommand(
      "kernels",
      "Write the microbenchmark suite: kernels.py (NKI), driver.py (nki.benchmark -> the "
      "measurements CSV), cases.csv and the NEFFs neuronsim runs for each case");
  kernels->add_option("-o,--output", o->output, "Suite directory to create (new or empty)")
      ->required();
  kernels->add_option("-t,--target", o->target, "Target preset the suite is for (trn1, trn2, trn3)")
      ->capture_default_str();
  kernels->callback([o] {
    exec_python_module("calibrate", "neuronsim.calibrate",
                       {"kernels", "--output", o->output, "--target", o->target});
  });

  auto* measure = cmd->add_subcommand(
      "measure", "Run the suite on neuronsim under a config and write the measurements CSV");
  measure->add_option("suite", o->suite, "Suite directory (calibrate kernels)")
      ->required()
      ->check(CLI::ExistingDirectory);
  measure
      ->add_option("-t,--target", o->config,
                   "The suite's preset, or a target file {\"base\": preset, ...}")
      ->required();
  measure->add_option("-o,--output", o->output, "Measurements CSV to write (-: stdout)")
      ->required();
  measure->callback([o] {
    exec_python_module("calibrate", "neuronsim.calibrate",
                       {"measure", o->suite, "--target", o->config, "--output", o->output});
  });

  auto* fit = cmd->add_subcommand(
      "fit",
      "Fit the cost parameters to a measurements CSV; write the config override and a report");
  fit->add_option("measurements", o->measurements,
                  "CSV: kernel, shape, dtype, target, measured_ns (one row per case)")
      ->required();
  fit->add_option("-t,--target", o->target, "Target preset measured (trn1, trn2, trn3)")
      ->required();
  fit->add_option("-o,--output", o->output,
                  "Override to write: a target file {\"base\": TARGET, ...} for run -t or "
                  "--override")
      ->required();
  fit->add_option("--report", o->report,
                  "Error report per case and parameters before/after: .md, .csv or .json");
  fit->add_flag("--json", o->json, "Print the report as JSON on stdout");
  fit->add_option("--parameters", o->parameters,
                  "Fit only these (comma-separated section.key; default: every calibrated "
                  "parameter the cases depend on)");
  fit->callback([o] {
    std::vector<std::string> args = {"fit",     o->measurements, "--target",
                                     o->target, "--output",      o->output};
    if (!o->report.empty()) args.insert(args.end(), {"--report", o->report});
    if (o->json) args.push_back("--json");
    if (!o->parameters.empty()) args.insert(args.end(), {"--parameters", o->parameters});
    exec_python_module("calibrate", "neuronsim.calibrate", args);
  });
}

}  // namespace neuronsim::cli
