#pragma once
// Commands whose engine is the Python package (`neuronsim sweep`, `neuronsim calibrate`):
// the program replaces itself with the interpreter the module was built for (Debian's
// /usr/bin/python3) running `-m MODULE ARGS...` from the package built beside this program
// or installed with it, PYTHONPATH set to it and NEURONSIM_PROGRAM naming this program.
//
// Which package: a program in its build tree (its directory is the one CMake built it in)
// uses <build>/python; an installed one <its dir>/<the bin -> Python install dir path>.
// A program built without the Python module, a missing interpreter or a missing module is
// one error naming what to install or build.
#include <string>
#include <vector>

namespace neuronsim::cli {

// `command` names the subcommand in errors; `module` is dotted (neuronsim.sweep), its
// __main__.py must exist in the package. Never returns: execs, or throws neuronsim::Error.
[[noreturn]] void exec_python_module(const std::string& command, const std::string& module,
                                     const std::vector<std::string>& args);

}  // namespace neuronsim::cli
