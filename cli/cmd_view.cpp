// `neuronsim view P [--json] [--top N] [--instructions FILE.json] [--source FILE:LINE]`: a
// profile's summary, stall attribution, most expensive instruction groups and, for a
// traced kernel, its most expensive source lines (docs/profiling.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/profile_options.hpp"
#include "sequence/sequence_view.hpp"
#include "traces/format.hpp"
#include "traces/instruction_json.hpp"
#include "traces/source_lines.hpp"
#include "whatif/analysis.hpp"
#include "whatif/output.hpp"

namespace neuronsim::cli {
namespace {

struct ViewOptions {
  std::string profile;
  bool json = false;
  std::size_t top = 10;
  std::string instructions;
  std::string source;  // list the instructions of this source line ("kernel.py:42", ":42")
  double peak_tflops = 0;
  bool insights = false;  // ranked insights, each measured by a what-if re-run
};

// The executed instructions whose location matches `pattern`, in time order.
std::string source_search_text(const profile::Profile& p, const traces::TraceData& t,
                               const std::string& pattern) {
  const isa::Kernel& k = p.neff.kernel;
  if (!k.has_locations())
    return "no source locations in " + p.neff_path +
           " (only kernels traced from Python carry them; search the assembly lines with the "
           "report's viewer)\n";
  std::vector<const traces::InstructionRecord*> hits;
  for (const traces::InstructionRecord& r : t.instructions)
    if (r.index < k.stream(r.engine).size() &&
        traces::location_matches(k, k.stream(r.engine).location(r.index), pattern))
      hits.push_back(&r);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto* a, const auto* b) { return a->start_ps < b->start_ps; });
  traces::TextTable table({"source", "engine", "pc", "opcode", "start", "duration"}, 4);
  for (const auto* r : hits)
    table.row({traces::location_text(k, k.stream(r->engine).location(r->index)),
               std::string(isa::engine_name(r->engine)), std::to_string(r->index),
               std::string(isa::opcode_name(r->opcode)), traces::human_time(r->start_ps),
               traces::human_time(r->end_ps - r->start_ps)});
  return std::to_string(hits.size()) + " instruction" + (hits.size() == 1 ? "" : "s") +
         " at source '" + pattern + "'\n" + (hits.empty() ? "" : table.str("  "));
}

void run_view(const ViewOptions& o) {
  if (profile::is_sequence_profile(
          o.profile)) {  // host.json + launch_NNN/ (sequence/sequence_view.hpp)
    const sequence::SequenceProfile p = sequence::open_sequence_profile(o.profile);
    const std::vector<whatif::Insight> insights =
        o.insights ? whatif::profile_insights(o.profile) : std::vector<whatif::Insight>{};
    if (o.json) {
      nlohmann::ordered_json j = sequence::sequence_view_json(p);
      if (o.insights) j["insights"] = whatif::insights_json(insights);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << sequence::sequence_view_text(p) << whatif::insights_text(insights);
    }
    return;
  }
  const profile::Profile p = profile::open_profile(o.profile);
  const traces::Summary s = summarize_profile(p, o.peak_tflops);
  if (!o.source.empty()) {
    std::cout << source_search_text(p, traces::read_ntff(p.ntff_path), o.source);
    return;
  }
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
  const std::vector<traces::SourceLineTime> lines =
      p.neff.kernel.has_locations()
          ? traces::source_line_times(traces::read_ntff(p.ntff_path), p.neff.kernel)
          : std::vector<traces::SourceLineTime>{};
  if (o.json) {
    nlohmann::ordered_json j = traces::summary_json(s);
    if (!lines.empty())
      j["source_lines"] =
          nlohmann::ordered_json::parse(traces::source_lines_json(lines, p.neff.kernel));
    j["units"] = traces::kJsonUnits;
    if (o.insights) j["insights"] = whatif::insights_json(whatif::profile_insights(o.profile));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "profile " << p.ntff_path << "\n"
              << traces::summary_text(s, o.top)
              << traces::source_lines_text(lines, p.neff.kernel, s.device_time_ps, o.top);
    if (o.insights) std::cout << whatif::insights_text(whatif::profile_insights(o.profile));
  }
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
  cmd->add_option("--source", o->source,
                  "List the instructions of a source line of a traced kernel (kernel.py:42, :42, "
                  "or a file for all its lines)");
  cmd->add_flag("--insights", o->insights,
                "Also rank insights (small DMA transfers, an engine idle on a semaphore, port "
                "conflicts, ...), each with its speedup measured by re-simulating the kernel on "
                "the trace's target (docs/whatif.md)");
  cmd->add_option("--peak-tflops", o->peak_tflops,
                  "Peak TFLOPS for the MFU estimate (default: the target's bf16 peak)");
  cmd->callback([o] { run_view(*o); });
}

}  // namespace neuronsim::cli
