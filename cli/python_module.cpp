#include "cli/python_module.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "base/error.hpp"

namespace neuronsim::cli {
namespace {

#ifdef NEURONSIM_SWEEP_PYTHON
std::filesystem::path module_dir(const std::filesystem::path& program) {
  const std::filesystem::path dir = program.parent_path();
  std::error_code ec;
  if (std::filesystem::equivalent(dir, NEURONSIM_SWEEP_BUILD_DIR, ec))
    return NEURONSIM_SWEEP_BUILD_PYTHON_DIR;
  return (dir / NEURONSIM_SWEEP_INSTALLED_PYTHON_DIR).lexically_normal();
}
#endif

}  // namespace

[[noreturn]] void exec_python_module(const std::string& command, const std::string& module,
                                     const std::vector<std::string>& module_args) {
#ifndef NEURONSIM_SWEEP_PYTHON
  (void)module;
  (void)module_args;
  throw Error(command +
              ": this neuronsim was built without its Python module (pybind11, python3-dev and "
              "python3-numpy were not found, or NEURONSIM_PYTHON=OFF), which runs it: install "
              "them (scripts/setup.sh) and rebuild");
#else
  std::error_code ec;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(command + ": cannot find this program's path: " + ec.message());
  const std::filesystem::path python = NEURONSIM_SWEEP_PYTHON;
  if (access(python.c_str(), X_OK) != 0)
    throw Error(command + ": it runs on " + python.string() +
                ", the Python the module was built for, which is missing (apt-get install "
                "python3)");
  const std::filesystem::path modules = module_dir(program);
  std::string module_path = module;
  for (auto& c : module_path)
    if (c == '.') c = '/';
  if (!std::filesystem::exists(modules / module_path / "__main__.py"))
    throw Error(command + ": the neuronsim Python package is not at " + modules.string() +
                " (build the neuronsim_python target, or install it with cmake --install)");

  std::vector<std::string> args = {python.string(), "-m", module};
  args.insert(args.end(), module_args.begin(), module_args.end());
  const char* old_path = std::getenv("PYTHONPATH");
  const std::string path =
      modules.string() + (old_path && *old_path ? ":" + std::string(old_path) : "");
  if (setenv("PYTHONPATH", path.c_str(), 1) != 0 ||
      setenv("NEURONSIM_PROGRAM", program.c_str(), 1) != 0)
    throw Error(command + ": cannot set the Python environment");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv(python.c_str(), argv.data());
  throw Error(command + ": cannot run " + python.string() + ": " + std::strerror(errno));
#endif
}

}  // namespace neuronsim::cli
