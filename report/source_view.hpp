#pragma once
// The report's source view (docs/report.md, "Source view"): for a kernel traced from
// Python, each source file with the device time of every line that produced instructions,
// so a profile reads in the terms the kernel was written in. Built from each launch's
// trace and kernel locations (isa::SourceLocation); rendered as one table per file.
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "report/run.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::report {

// Adds the times of one launch's trace to `sources` (files matched by path, lines added).
void add_source_times(std::vector<SourceView>& sources, const isa::Kernel& k,
                      const traces::TraceData& trace);

// The "Source" section of a run, "" when it has no sources. `run_index` ties each line's
// link to the run's viewer (a click searches the viewer for that line).
std::string source_view_html(const Run& run, std::size_t run_index);

}  // namespace neuronsim::report
