// `neuronsim view P [--json] [--top N] [--instructions FILE.json]`: a profile's summary,
// stall attribution and most expensive instruction groups (docs/profiling.md).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/profile_options.hpp"
#include "profile/sequence_view.hpp"
#include "traces/instruction_json.hpp"

namespace neuronsim::cli {
namespace {

struct ViewOptions {
  std::string profile;
  bool json = false;
  std::size_t top = 10;
  std::string instructions;
  double peak_tflops = 0;
};

void run_view(const ViewOptions& o) {
  if (profile::is_sequence_profile(
          o.profile)) {  // host.json + launch_NNN/ (profile/sequence_view.hpp)
    const profile::SequenceProfile p = profile::open_sequence_profile(o.profile);
    std::cout << (o.json ? profile::sequence_view_json(p).dump(2) + "\n"
                         : profile::sequence_view_text(p));
    return;
  }
  const profile::Profile p = profile::open_profile(o.profile);
  const traces::Summary s = summarize_profile(p, o.peak_tflops);
  if (is_stdout(o.instructions)) {  // the JSON alone on stdout
    traces::StringSink sink;
    traces::write_instruction_json(sink, traces::read_ntff(p.ntff_path), s, &p.neff.kernel);
    write_output("-", sink.str());
    return;
  }
  if (!o.instructions.empty()) {
    traces::write_instruction_json(o.instructions, p.ntff_path, s, &p.neff.kernel);
    (o.json ? std::cerr : std::cout) << "wrote " << o.instructions << "\n";  // stdout: the JSON
  }
  if (o.json) {
    nlohmann::ordered_json j = traces::summary_json(s);
    j["units"] = traces::kJsonUnits;
    std::cout << j.dump(2) << "\n";
  } else
    std::cout << "profile " << p.ntff_path << "\n" << traces::summary_text(s, o.top);
}

}  // namespace

void add_view_command(CLI::App& app) {
  auto o = std::make_shared<ViewOptions>();
  auto* cmd =
      app.add_subcommand("view", "Summary, stall attribution and top instructions of a profile");
  cmd->add_option("profile", o->profile, "Profile directory or .ntff trace")->required();
  cmd->add_flag("--json", o->json, "Print the summary (with stall attribution) as JSON");
  cmd->add_option("--top", o->top, "Rows of the instruction table (default 10)");
  cmd->add_option("--instructions", o->instructions,
                  "Also write the legacy {\"summary\",\"instruction\"} JSON to this file (-: to "
                  "stdout, alone)");
  cmd->add_option("--peak-tflops", o->peak_tflops,
                  "Peak TFLOPS for the MFU estimate (default: the target's bf16 peak)");
  cmd->callback([o] { run_view(*o); });
}

}  // namespace neuronsim::cli
