#pragma once
// Running a program of the build as a child process, for the whole-process benchmarks.
#include <sys/resource.h>

#include <string>
#include <vector>

namespace neuronsim::bench {

// Runs args[0] (a path) with args, its standard output to /dev/null, to its exit; returns
// false if it could not start or did not exit with 0. `usage`, if given, gets the child's
// resource use (wait4: its CPU time; not its peak memory, see process_bench.cpp).
bool run_process(const std::vector<std::string>& args, struct rusage* usage = nullptr);

}  // namespace neuronsim::bench
