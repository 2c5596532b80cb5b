// `neuronsim sweep SPEC.json [-o results.csv] [--scheduler tcp://HOST:PORT] [--json]`: a
// design-space sweep on Dask (docs/sweeps.md). The sweep engine is Python, since Dask is:
// this command checks its options and replaces itself with the interpreter the Python
// module was built for (Debian's /usr/bin/python3) running `-m neuronsim.sweep` from the
// module built beside this program or installed with it, with NEURONSIM_PROGRAM naming
// this program, so the points run exactly it.
//
// The handover is cli/python_module.hpp's; missing Dask or matplotlib is the Python
// side's error (python/neuronsim/sweep/cluster.py, plot.py).
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/python_module.hpp"

namespace neuronsim::cli {
namespace {

struct SweepOptions {
  std::string spec, output, scheduler, cache, plot, html, times;
  int workers = 0;
  bool json = false, no_cache = false, progress = false, quiet = false;
};

[[noreturn]] void run_sweep(const SweepOptions& o) {
  std::vector<std::string> args = {o.spec};
  auto add = [&args](const char* flag, const std::string& value) {
    if (!value.empty()) args.insert(args.end(), {flag, value});
  };
  add("--output", o.output);
  add("--scheduler", o.scheduler);
  add("--cache", o.cache);
  add("--plot", o.plot);
  add("--html", o.html);
  add("--times", o.times);
  if (o.workers > 0) add("--workers", std::to_string(o.workers));
  if (o.json) args.push_back("--json");
  if (o.no_cache) args.push_back("--no-cache");
  if (o.progress) args.push_back("--progress");
  if (o.quiet) args.push_back("--quiet");
  exec_python_module("sweep", "neuronsim.sweep", args);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand(
      "sweep", "Sweep kernels, parameters, targets and configs on a Dask cluster (docs/sweeps.md)");
  cmd->add_option("spec", o->spec, "Sweep spec (JSON; every list is a grid axis)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", o->output,
                  "Results table: .csv or .json, one row per point (-: CSV on stdout)");
  cmd->add_option("--scheduler", o->scheduler,
                  "Run on this Dask cluster (tcp://HOST:PORT); default: a local cluster");
  cmd->add_option("--workers", o->workers, "Local cluster's worker processes (default: the cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "Print the results table as JSON on stdout");
  cmd->add_option("--cache", o->cache,
                  "Cache directory (default: OUTPUT's stem + .cache/ beside it; none without -o)");
  cmd->add_flag("--no-cache", o->no_cache, "Run every point, cache nothing");
  cmd->add_option("--plot", o->plot, "Plot (PNG) to write");
  cmd->add_option("--html", o->html, "HTML page (the plot and the table) to write");
  cmd->add_option("--times", o->times, "Wall-time log (CSV; default: OUTPUT's stem + .times.csv)");
  cmd->add_flag("--progress", o->progress,
                "Show the progress line on stderr even when it is not a terminal");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors (and --json's table)");
  cmd->callback([o] { run_sweep(*o); });
}

}  // namespace neuronsim::cli
