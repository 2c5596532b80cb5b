#pragma once
// The text of `neuronsim --version`: the project version (NEURONSIM_VERSION, from
// CMakeLists.txt) and the `git describe` taken at every build (cmake/git_version.cmake).
// Both the launcher (cli/launcher/launcher.cpp), which answers a bare --version itself,
// and the command line (cli/main.cpp) print it.
#include "cli/git_version.hpp"  // generated: cmake/git_version.cmake

#define NEURONSIM_VERSION_TEXT "neuronsim " NEURONSIM_VERSION " (" NEURONSIM_GIT_DESCRIBE ")"
