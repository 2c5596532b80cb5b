// neuronsim run: simulate one kernel (a NEFF) on one NeuronCore; print where the time went
// and what the host model adds around it, write the outputs as .npy and, if asked, the
// statistics as JSON and a profile directory. A launch sequence (launch.json) runs its
// launches one after another on one core (sequence/sequence_runner.hpp); --cores N runs the
// kernel on N cores of one device at once, to show what sharing HBM costs. This file holds
// the options and picks the mode; each mode is a file of its own (cli/run.hpp).
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/limits.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/run.hpp"
#include "isa/kernel_limits.hpp"
#include "sequence/launch_sequence.hpp"

namespace neuronsim::cli {

namespace {

void run_command(const RunArgs& args) {
  if (sequence::looks_like_launch_sequence(args.neff_path)) {
    if (args.cores > 0)
      throw Error(args.neff_path + ": --cores runs one NEFF, not a launch sequence");
    return run_sequence_mode(args);
  }
  KernelRun run;
  run.neff_bytes = read_file(args.neff_path, Limit::neff_file_bytes);
  run.file = std::make_shared<const neff::Neff>(neff::read(run.neff_bytes, args.neff_path));
  const isa::Kernel& k = run.kernel();
  const std::string target =
      !args.target.empty() ? args.target : (!k.target.empty() ? k.target : "trn1");
  run.cfg = config::load_target(target, args.configs);
  // Before any tensor is made.
  check_kernel_resources(k, args.neff_path, run.cfg.hbm.capacity_bytes);
  run.inputs = kernel_inputs(k, args);
  save_inputs(args, k.tensors, run.inputs);
  RunOptions& options = run.options;
  // -t chose the target: a kernel of another one runs on it, with a note.
  options.other_target = true;
  options.timing_only = args.timing_only;
  options.fill_uninitialised = args.fill_uninit;
  if (args.timing_only)  // data is never read: any missing input is fine
    options.generate_missing = [](const isa::HbmTensor& t) {
      return std::vector<std::uint8_t>(t.bytes());
    };
  if (args.cores > 0) {
    if (!args.profile_dir.empty())
      throw Error("--cores and --profile-dir do not go together: profile one core without --cores");
    return run_cores_mode(args, run);
  }
  run_kernel_mode(args, run);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "simulate a kernel on one NeuronCore");
  cmd->add_option("kernel", args->neff_path,
                  "the kernel (.neff) or a launch sequence (launch.json)")
      ->required();
  cmd->add_option("-t,--target", args->target,
                  "target preset (trn1, trn2, trn3) or JSON file; default: the kernel's");
  // --config: the option's first name, kept for scripts that use it.
  cmd->add_option("--override,--config", args->configs,
                  "JSON file overriding target fields, as for `config --override` (repeatable; "
                  "--config is an alias)")
      ->allow_extra_args(false);
  cmd->add_option("--input", args->inputs,
                  "NAME=SPEC: a .npy file, zeros, ones, fill:V, uniform:LO,HI, normal:M,S; "
                  "or FILE.npz: an archive of NAME.npy members")
      ->allow_extra_args(false);  // one NAME=SPEC per --input
  cmd->add_option("--seed", args->seed, "seed of generated inputs");
  cmd->add_option("--out-dir", args->out_dir, "write every output tensor here as NAME.npy");
  cmd->add_flag("--allow-outside-files", args->allow_outside_files,
                "a launch.json may name NEFFs outside its own directory (refused by default)");
  cmd->add_flag("--raw-bits", args->raw_bits,
                "bf16/tf32/fp8 .npy files hold bit patterns (unsigned ints), not floats");
  cmd->add_flag("--timing-only", args->timing_only,
                "compute nothing, only time the kernel (same timing, no outputs)");
  cmd->add_flag("--fill-uninit", args->fill_uninit,
                "never-written memory reads as NaN (floats) or the target's "
                "sbuf.uninitialised_int_fill (integers) instead of 0");
  cmd->add_option("--stats-json", args->stats_json,
                  "write every statistic to this JSON file (-: to stdout, the text to stderr)");
  cmd->add_option("--save-inputs", args->save_inputs,
                  "write the inputs (given or generated) here as NAME.npy, or into one archive if "
                  "it ends in .npz, to reuse with --input");
  cmd->add_option("--profile-dir", args->profile_dir,
                  "record a profile here: neff_<N>.neff and <N>_instid_0_vnc_0.ntff");
  cmd->add_flag("-q,--quiet", args->quiet,
                "no progress line (shown on a terminal's stderr for runs over 2 s)");
  cmd->add_option("--cores", args->cores,
                  "run the kernel on this many cores of one device at once (sharing its HBM), "
                  "beside one core alone")
      ->check(CLI::Range(1u, 64u));
  cmd->callback([args] {
    if (!is_stdout(args->stats_json)) return run_command(*args);
    const MessagesToStderr text_to_stderr;  // stdout carries the JSON alone
    run_command(*args);
  });
}

}  // namespace neuronsim::cli
