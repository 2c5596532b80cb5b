// `neuronsim whatif K.neff|launch.json`: re-simulates the kernel timing only with one
// resource relieved at a time and prints the ranking (docs/whatif.md).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "whatif/analysis.hpp"
#include "whatif/output.hpp"

namespace neuronsim::cli {
namespace {

struct WhatifArgs {
  std::string path;
  whatif::Options options;
  bool json = false;
  bool allow_outside_files = false;
};

void run_whatif(const WhatifArgs& a) {
  const whatif::Subject subject = whatif::load_subject(a.path, a.allow_outside_files);
  const whatif::Result r = whatif::analyse(subject, a.options);
  if (a.json)
    std::cout << whatif::ranking_json(r).dump(2) << "\n";
  else
    std::cout << whatif::ranking_text(r);
}

}  // namespace

void add_whatif_command(CLI::App& app) {
  auto a = std::make_shared<WhatifArgs>();
  auto* cmd = app.add_subcommand(
      "whatif", "rank what limits a kernel: re-simulate it with one resource relieved at a time");
  cmd->add_option("kernel", a->path, "the kernel (.neff) or a launch sequence (launch.json)")
      ->required();
  cmd->add_option("-t,--target", a->options.target,
                  "target preset (trn1, trn2, trn3) or JSON file; default: the kernel's");
  cmd->add_option("--override", a->options.overrides,
                  "JSON file overriding target fields, as for `run --override` (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--waits", a->options.max_waits,
                  "semaphore waits of the critical path to take out one by one, longest first "
                  "(default 8)")
      ->check(CLI::Range(0u, 1000u));
  cmd->add_flag("--json", a->json,
                "print the ranking as JSON (the `ranking` list) instead of text");
  cmd->add_flag("--allow-outside-files", a->allow_outside_files,
                "a launch.json may name NEFFs outside its own directory (refused by default)");
  cmd->callback([a] { run_whatif(*a); });
}

}  // namespace neuronsim::cli
