// `neuronsim report P [P ...] -o report.html`: one self-contained HTML page comparing
// profiles (single kernels or launch sequences) with timelines, stall attribution and an
// explain section (docs/report.md).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "report/load.hpp"
#include "report/render.hpp"
#include "traces/format.hpp"
#include "whatif/analysis.hpp"

namespace neuronsim::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> profiles;
  std::string output;
  bool insights = false;  // ranked insights, each measured by a what-if re-run
};

void run_report(const ReportOptions& o) {
  std::vector<report::Run> runs;
  for (const auto& path : o.profiles) {
    runs.push_back(report::load_run(path));
    if (!o.insights) continue;
    for (const whatif::Insight& in : whatif::profile_insights(path))
      runs.back().insights.push_back(
          {in.error.empty() ? traces::fixed(in.speedup, 3) + "x" : "failed", in.title, in.where,
           in.advice,
           in.measured_by +
               (in.error.empty() ? ": " + traces::fixed(in.time_ns, 3) + " ns" : ": " + in.error)});
  }
  const std::string html = report::render_report(runs);
  write_output(o.output, html);
  if (is_stdout(o.output)) return;
  std::cout << "wrote " << o.output << " (" << html.size() << " bytes, " << runs.size()
            << (runs.size() == 1 ? " profile)\n" : " profiles)\n");
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write a visual HTML report of profiles");
  cmd->add_option("profiles", o->profiles,
                  "Profile directories: single kernels or launch sequences (the first is the "
                  "baseline)")
      ->required()
      ->expected(1, -1);
  cmd->add_option("-o,--output", o->output, "The HTML file to write (-: stdout)")->required();
  cmd->add_flag("--insights", o->insights,
                "Add each run's ranked insights, each with its speedup measured by re-simulating "
                "its kernels on the trace's target (docs/whatif.md)");
  cmd->callback([o] { run_report(*o); });
}

}  // namespace neuronsim::cli
