#pragma once
// What the profile commands (view, export, compare) share: opening a profile and the
// summary options derived from its NEFF (kernel, peak flops of its target).
#include <string>

#include "profile/directory.hpp"
#include "profile/profile_summary.hpp"
#include "traces/summary.hpp"

namespace neuronsim::cli {

using profile::summarize_profile;

}  // namespace neuronsim::cli
