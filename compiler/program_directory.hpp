#pragma once
// A compiled program's directory (docs/compiler.md): one NEFF per launch and launch.json,
// written whole or not at all. Everything goes into a new temporary directory beside it,
// which then replaces it. launch.json is the manifest: each launch records its NEFF's
// SHA-256 (the header's payload hash, "neff_sha256"), which `run` checks, so a NEFF
// swapped or left over from another compile is refused.
#include <string>

#include "compiler/compiler.hpp"

namespace neuronsim::compiler {

// Writes the directory; an existing `out_dir` must be empty or a program directory (it
// holds a launch.json) and is replaced atomically. Returns launch.json's text.
std::string write_program_directory(const CompiledProgram& p, const std::string& out_dir);

}  // namespace neuronsim::compiler
