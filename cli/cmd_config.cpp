// `neuronsim config`: list the target presets, check a target (a preset plus override
// files), or dump its full resolved config as JSON (every parameter with value, unit, doc).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "config/target_config.hpp"
#include "config/target_dump.hpp"

namespace neuronsim::cli {
namespace {

struct ConfigOptions {
  bool list = false;
  bool dump = false;
  std::string target = "trn1";
  std::vector<std::string> overrides;
  std::string output;  // dump to this file instead of stdout
};

void list_presets() {
  for (const auto& name : config::target_names()) {
    const config::TargetConfig t = config::load_target(name);
    std::cout << t.name << "  " << t.generation << "  " << t.description << "\n";
  }
}

void run_config(const ConfigOptions& o) {
  if (o.list) {
    if (o.dump || !o.overrides.empty() || !o.output.empty())
      throw Error("config: --list takes no --dump, --override or --output");
    list_presets();
    return;
  }
  if (!o.output.empty() && !o.dump) throw Error("config: --output needs --dump");
  if (o.dump) {
    const std::string text = config::dump_target(o.target, o.overrides).dump(2) + "\n";
    write_output(o.output.empty() ? "-" : o.output, text);
    say_wrote(std::cout, o.output.empty() ? "-" : o.output, text.size());
    return;
  }
  // Neither: check the target and say what it is.
  const config::TargetConfig t = config::load_target(o.target, o.overrides);
  std::cout << o.target << ": valid target " << t.name << " (" << t.generation << "), "
            << o.overrides.size() << " override file(s)\n";
}

}  // namespace

void add_config_command(CLI::App& app) {
  auto options = std::make_shared<ConfigOptions>();
  auto* cmd = app.add_subcommand(
      "config", "List target presets, check a target, or dump its full config as JSON");
  cmd->add_flag("--list", options->list, "List the target presets with one-line descriptions");
  cmd->add_option("-t,--target", options->target,
                  "A preset (trn1, trn2, trn3) or a JSON file {\"base\": preset, ...}")
      ->capture_default_str();
  cmd->add_option("--override", options->overrides,
                  "A JSON file {\"<section>\": {\"<key>\": value}} applied on top (repeatable)")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_flag("--dump", options->dump,
                "Print the full resolved config: every parameter's value, unit and doc");
  cmd->add_option("-o,--output", options->output,
                  "Write the --dump JSON to this file (default or -: stdout)");
  cmd->callback([options] { run_config(*options); });
}

}  // namespace neuronsim::cli
