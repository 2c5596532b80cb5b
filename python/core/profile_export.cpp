#include "python/core/profile_export.hpp"

#include "sequence/sequence_perfetto.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::python {

std::string sequence_perfetto(const std::string& profile_dir) {
  traces::BoundedStringSink sink(profile_dir + ": the exported trace's size");
  sequence::write_sequence_perfetto(profile_dir, sink);
  return sink.str();
}

}  // namespace neuronsim::python
