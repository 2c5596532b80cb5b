#include "sim/kernel_target.hpp"

#include <map>
#include <mutex>

namespace neuronsim::sim {
namespace {

// The generation of a preset target, or empty for a name that is not a preset. Loading a
// preset parses its JSON: done once per name and process.
std::string preset_generation(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(name);
  if (it != known.end()) return it->second;
  std::string generation;
  for (const std::string& preset : config::target_names())
    if (preset == name) generation = config::load_target(name).generation;
  return known.emplace(name, generation).first->second;
}

}  // namespace

std::string other_target_reason(const std::string& kernel_target,
                                const config::TargetConfig& config) {
  if (kernel_target.empty() || kernel_target == config.name) return {};
  const std::string generation = preset_generation(kernel_target);
  if (generation == config.generation) return {};
  const std::string core = "this core is " + config.name + " (" + config.generation + ")";
  if (generation.empty())
    return "built for target '" + kernel_target + "', which is not a preset and not " +
           config.name + "; " + core;
  return "built for " + kernel_target + " (" + generation + "); " + core;
}

}  // namespace neuronsim::sim
