#pragma once
// A sequence profile as one Perfetto (Chrome JSON) timeline: a "Host" process on top with
// lanes for framework dispatch, runtime calls and device execution (a slice per launch,
// an arrow from each runtime call to its device execution), then the NeuronCore process
// with every launch's engine and DMA lanes, each launch's events shifted to its device
// start (traces/perfetto.hpp makes each launch's events; lanes are shared by name).
#include <string>

#include "traces/text_sink.hpp"

namespace neuronsim::sequence {

void write_sequence_perfetto(const std::string& profile_dir, traces::TextSink& out);
void write_sequence_perfetto(const std::string& profile_dir, const std::string& out_path);

}  // namespace neuronsim::sequence
