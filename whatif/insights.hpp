#pragma once
// Ranked insights (docs/whatif.md, "Insights"): what the baseline trace shows that a
// kernel engineer can act on (small DMA transfers, an engine idle on one semaphore, port
// conflicts, a DMA queue serialised on one DMA engine, the Tensor engine waiting for its
// stationary loads, the host's dispatch gaps in a launch sequence), each with where it is
// (instruction, source line), what to try, and the speedup measured by re-running the
// kernel with that one thing relieved: a ranking row's config relief, or a kernel edit
// (whatif/kernel_edits.hpp) run beside the critical-path waits.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "config/target_config.hpp"
#include "profile/host_trace.hpp"
#include "whatif/bench.hpp"
#include "whatif/capture.hpp"
#include "whatif/reliefs.hpp"
#include "whatif/subject.hpp"

namespace neuronsim::whatif {

struct Insight {
  std::string kind;         // "small_dma", "semaphore_idle", "port_conflicts", ...
  std::string title;        // what the trace shows, with its figures
  std::string where;        // instruction and source line (a launch's name first)
  std::string advice;       // what to try
  std::string measured_by;  // the relief whose re-run gives the speedup
  double time_ns = 0, speedup = 0;
  std::string error;  // the re-run failed
};

// An insight and how to measure it: by the ranking row (resource, relief), or the fastest
// row of `row_kind` with that relief when row_resource is empty, or by re-running launch
// `launch` as `edited`.
struct InsightCandidate {
  Insight insight;
  std::string row_resource, row_relief;
  ResourceKind row_kind = ResourceKind::port;
  std::size_t launch = 0;
  std::shared_ptr<const isa::Kernel> edited;
};

struct Baseline {
  const Subject& subject;
  const std::vector<TraceCapture>& captures;  // per launch
  const std::vector<JobResult>& results;      // per launch
  const config::TargetConfig& config;
  const profile::HostTimeline& timeline;  // a sequence's (else empty)
};

std::vector<InsightCandidate> find_insights(const Baseline& b);

}  // namespace neuronsim::whatif
