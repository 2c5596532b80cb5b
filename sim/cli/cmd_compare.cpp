// `neuronsim compare A B [C ...] [--json]`: profiles side by side, speedup against A
// (docs/profiling.md).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/cli/profile_options.hpp"
#include "traces/compare.hpp"

namespace neuronsim::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> profiles;
  bool json = false;
};

void run_compare(const CompareOptions& o) {
  std::vector<traces::LabelledSummary> runs;
  for (const auto& path : o.profiles) {
    const sim::Profile p = sim::open_profile(path);
    runs.push_back({path, summarize_profile(p, 0)});
  }
  if (o.json)
    std::cout << traces::compare_json(runs).dump(2) << "\n";
  else
    std::cout << traces::compare_text(runs);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "Compare profiles side by side");
  cmd->add_option("profiles", o->profiles, "Profile directories (the first is the baseline)")
      ->required()
      ->expected(2, -1);
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  cmd->callback([o] { run_compare(*o); });
}

}  // namespace neuronsim::cli
