// The `neuronsim` executable: a launcher that loads the command line (libneuronsim_cli.so,
// cli/main.cpp: every command, and the simulator with SystemC, libarchive and libcrypto)
// only when a command needs it. Loading those libraries is most of a process's start-up
// (docs/performance.md, "Start-up": SystemC's static pools alone about 2.3 ms), so the
// launcher answers `neuronsim --version` without them; everything else, --help included,
// goes to the command line, which behaves exactly as when it was the executable.
//
// The library is found next to the launcher (the build tree) or in ../lib (installed,
// cmake/install.cmake), through the launcher's RUNPATH ($ORIGIN and $ORIGIN/../lib).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "cli/version.hpp"

namespace {

constexpr int kInternalError = 2;  // cli/main.cpp's exit status for an internal error

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::puts(NEURONSIM_VERSION_TEXT);
    return 0;
  }
  void* cli = dlopen("libneuronsim_cli.so", RTLD_LAZY | RTLD_LOCAL);
  if (cli == nullptr) {
    std::fprintf(stderr, "neuronsim: internal error: cannot load the command line: %s\n",
                 dlerror());
    return kInternalError;
  }
  using Main = int (*)(int, char**);
  const auto run = reinterpret_cast<Main>(dlsym(cli, "neuronsim_cli_main"));
  if (run == nullptr) {
    std::fprintf(stderr, "neuronsim: internal error: libneuronsim_cli.so has no entry: %s\n",
                 dlerror());
    return kInternalError;
  }
  return run(argc, argv);
}
