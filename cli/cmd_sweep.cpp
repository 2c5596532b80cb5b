// `neuronsim sweep SPEC.json [-o results.csv] [--scheduler tcp://HOST:PORT] [--json]`: a
// design-space sweep on Dask (docs/sweeps.md). The sweep engine is Python, since Dask is:
// this command checks its options and replaces itself with the interpreter the Python
// module was built for (Debian's /usr/bin/python3) running `-m neuronsim.sweep` from the
// module built beside this program or installed with it, with NEURONSIM_PROGRAM naming
// this program, so the points run exactly it.
//
// Which module: a program in its build tree (its directory is the one CMake built it in)
// uses <build>/python; an installed one <its dir>/<the bin -> Python install dir path>.
// A program built without the Python module, a missing interpreter or a missing module is
// one error naming what to install or build; missing Dask or matplotlib is the Python
// side's error (python/neuronsim/sweep/cluster.py, plot.py).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "cli/commands.hpp"

namespace neuronsim::cli {
namespace {

struct SweepOptions {
  std::string spec, output, scheduler, cache, plot, html, times;
  int workers = 0;
  bool json = false, no_cache = false, progress = false, quiet = false;
};

#ifdef NEURONSIM_SWEEP_PYTHON
std::filesystem::path module_dir(const std::filesystem::path& program) {
  const std::filesystem::path dir = program.parent_path();
  std::error_code ec;
  if (std::filesystem::equivalent(dir, NEURONSIM_SWEEP_BUILD_DIR, ec))
    return NEURONSIM_SWEEP_BUILD_PYTHON_DIR;
  return (dir / NEURONSIM_SWEEP_INSTALLED_PYTHON_DIR).lexically_normal();
}
#endif

[[noreturn]] void run_sweep(const SweepOptions& o) {
#ifndef NEURONSIM_SWEEP_PYTHON
  (void)o;
  throw Error(
      "sweep: this neuronsim was built without its Python module (pybind11, python3-dev and "
      "python3-numpy were not found, or NEURONSIM_PYTHON=OFF), which runs sweeps: install "
      "them (scripts/setup.sh) and rebuild");
#else
  std::error_code ec;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("sweep: cannot find this program's path: " + ec.message());
  const std::filesystem::path python = NEURONSIM_SWEEP_PYTHON;
  if (access(python.c_str(), X_OK) != 0)
    throw Error("sweep: it runs on " + python.string() +
                ", the Python the module was built for, which is missing (apt-get install "
                "python3)");
  const std::filesystem::path modules = module_dir(program);
  if (!std::filesystem::exists(modules / "neuronsim" / "sweep" / "__main__.py"))
    throw Error("sweep: the neuronsim Python package is not at " + modules.string() +
                " (build the neuronsim_python target, or install it with cmake --install)");

  std::vector<std::string> args = {python.string(), "-m", "neuronsim.sweep", o.spec};
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

  const char* old_path = std::getenv("PYTHONPATH");
  const std::string path =
      modules.string() + (old_path && *old_path ? ":" + std::string(old_path) : "");
  if (setenv("PYTHONPATH", path.c_str(), 1) != 0 ||
      setenv("NEURONSIM_PROGRAM", program.c_str(), 1) != 0)
    throw Error("sweep: cannot set the Python environment");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv(python.c_str(), argv.data());
  throw Error("sweep: cannot run " + python.string() + ": " + std::strerror(errno));
#endif
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
