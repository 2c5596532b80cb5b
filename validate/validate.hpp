#pragma once
// Checks a kernel against the rules of reference section 2 and a target's limits. Every
// problem found is reported with the engine, the instruction index, its source line and
// the reason; validation throws neuronsim::Error listing them (up to a cap).
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::isa {

struct Diagnostic {
  std::string where;   // e.g. "vector[12] (line 40)" or "allocation xt"
  std::string reason;  // what is wrong
};

// All problems found; empty when the kernel is valid.
std::vector<Diagnostic> check(const Kernel& k, const params::TargetLimits& limits);
// Throws neuronsim::Error naming `source` (a file name) and each problem.
void validate(const Kernel& k, const params::TargetLimits& limits, const std::string& source);

}  // namespace neuronsim::isa
