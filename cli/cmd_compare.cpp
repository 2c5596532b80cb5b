// `neuronsim compare A B [C ...] [--json]`: profiles side by side, speedup against A
// (docs/profiling.md).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/profile_options.hpp"
#include "profile/host_trace.hpp"
#include "sequence/sequence_view.hpp"
#include "traces/compare.hpp"
#include "traces/format.hpp"

namespace neuronsim::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> profiles;
  bool json = false;
};

void run_compare(const CompareOptions& o) {
  std::vector<traces::LabelledSummary> runs;
  for (const auto& path : o.profiles) {
    if (profile::is_sequence_profile(path)) {  // total = end to end; launches summed
      runs.push_back({path, sequence::combined_summary(sequence::open_sequence_profile(path))});
      continue;
    }
    const profile::Profile p = profile::open_profile(path);
    runs.push_back({path, summarize_profile(p, 0)});
  }
  // Sequence profiles add their device time and launch count (a single kernel: its total
  // is its device time, one launch).
  nlohmann::ordered_json sequences = nlohmann::ordered_json::array();
  std::string sequence_text;
  for (const auto& path : o.profiles) {
    if (!profile::is_sequence_profile(path)) continue;
    const profile::HostTrace h = profile::read_host_trace(path);
    sequences.push_back({{"label", path},
                         {"total_ns", h.total_ns},
                         {"device_ns", h.device_ns},
                         {"host_ns", h.host_ns()},
                         {"launches", h.launches.size()}});
    sequence_text += "  " + path + ": " + std::to_string(h.launches.size()) + " launches, device " +
                     traces::fixed(h.device_ns, 3) + " ns of " + traces::fixed(h.total_ns, 3) +
                     " ns end to end\n";
  }
  if (o.json) {
    nlohmann::ordered_json j = traces::compare_json(runs);
    j["units"] = traces::kJsonUnits;
    if (!sequences.empty()) j["sequences"] = sequences;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << traces::compare_text(runs);
    if (!sequence_text.empty())
      std::cout << "\nsequences (total_time = end to end, host included):\n" << sequence_text;
  }
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
