#include "python/core/profile_export.hpp"

#include "config/target_config.hpp"
#include "host/host_model.hpp"
#include "profile/sequence_perfetto.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::python {

std::string sequence_perfetto(const std::string& profile_dir) {
  traces::BoundedStringSink sink(profile_dir + ": the exported trace's size");
  profile::write_sequence_perfetto(profile_dir, sink);
  return sink.str();
}

std::string host_model_json(const std::string& target, const std::vector<std::string>& overrides) {
  return host::host_params_json(config::load_target(target, overrides).host).dump();
}

}  // namespace neuronsim::python
