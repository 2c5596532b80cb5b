// `neuronsim export P --perfetto trace.json`: a profile as a Chrome JSON trace that
// Perfetto (ui.perfetto.dev) opens (docs/profiling.md).
#include <iostream>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "profile/directory.hpp"
#include "profile/host_trace.hpp"
#include "sequence/sequence_perfetto.hpp"
#include "traces/perfetto.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::cli {
namespace {

struct ExportOptions {
  std::string profile;
  std::string perfetto;
};

// The trace is made in memory whole, then written all-or-nothing (or to stdout).
void run_export(const ExportOptions& o) {
  if (o.perfetto.empty()) throw Error("export: give an output, e.g. --perfetto trace.json");
  traces::BoundedStringSink sink(o.perfetto + ": the exported trace's size");
  if (profile::is_sequence_profile(o.profile)) {  // host lanes above the NeuronCore's
    sequence::write_sequence_perfetto(o.profile, sink);
  } else {
    const profile::Profile p = profile::open_profile(o.profile);
    const traces::TraceData trace = traces::read_ntff(p.ntff_path);
    traces::PerfettoOptions options;
    options.kernel = &p.neff.kernel;
    traces::write_perfetto(sink, trace, options);
  }
  write_output(o.perfetto, sink.str());
  if (!is_stdout(o.perfetto))
    std::cout << "wrote " << o.perfetto << " (" << sink.str().size()
              << " bytes; open it in ui.perfetto.dev)\n";
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "Convert a profile to another trace format");
  cmd->add_option("profile", o->profile, "Profile directory or .ntff trace")->required();
  cmd->add_option("--perfetto", o->perfetto,
                  "Write a Chrome JSON trace for Perfetto here (-: stdout)");
  cmd->callback([o] { run_export(*o); });
}

}  // namespace neuronsim::cli
