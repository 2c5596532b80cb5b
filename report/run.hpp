#pragma once
// What the visual report shows of one profile (docs/report.md): a single kernel run, or a
// launch sequence (host.json plus one kernel profile per launch) laid out on the program's
// time axis. Loading profile directories is report/load.hpp's job; everything here
// is plain data, so the rendering is testable without files.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/viewer_data.hpp"
#include "traces/summary.hpp"

namespace neuronsim::report {

struct Interval {
  std::uint64_t start_ps = 0, end_ps = 0;
  std::uint64_t duration_ps() const { return end_ps > start_ps ? end_ps - start_ps : 0; }
};

// What a lane shows; it decides what a slice's `kind` means.
enum class LaneGroup : std::uint8_t {
  host,    // kind: HostKind
  engine,  // kind: isa::Opcode
  dma,     // kind: dma_route(src, dst)
};

enum class HostKind : std::uint16_t { framework_dispatch, runtime_call, device };

// One thing on a lane: an instruction, a stretch of DMA activity (overlapping pieces of a
// queue merged), or a host phase of a launch.
struct Slice {
  std::uint64_t start_ps = 0, end_ps = 0;
  std::uint16_t kind = 0;
  std::uint32_t count = 1;  // instructions or DMA pieces it stands for
  std::uint64_t bytes = 0;  // DMA bytes
  // Engine lanes: the instruction's index in Run::viewer; host lanes: the launch's index
  // in Run::launches. None: ~0.
  std::uint32_t detail = 0xFFFFFFFF;
};

struct Lane {
  std::string id;  // data-lane in the HTML: "vector", "dma:q_in", "runtime_call"
  std::string label;
  LaneGroup group = LaneGroup::engine;
  std::vector<Slice> slices;  // by start time, not overlapping
};

// Device time of one line of a source file (report/source_view.hpp).
struct SourceLineStats {
  std::uint32_t line = 0;
  std::uint64_t instructions = 0;
  std::uint64_t busy_ps = 0;  // engine time of its instructions, all engines together
  std::uint64_t dma_ps = 0;   // DMA engine time of the transfers its dma_copies issued
};

// A file of the program that generated the run's kernels (a traced NKI kernel's Python),
// with its text when the NEFF carries it and the device time of each line that has any.
struct SourceView {
  std::string path;
  std::string text;
  std::vector<SourceLineStats> lines;  // by line
};

// One kernel launch of a run as the report shows it: its host phases and the summary of
// its device trace (the whole run for a single kernel profile).
struct RunLaunch {
  std::string name, op;
  Interval framework_dispatch, runtime_call, device;  // on the program's time axis
  traces::Summary summary;                            // of its device trace
};

// A ranked insight of the what-if analysis (docs/whatif.md), as text: filled by `neuronsim
// report --insights`, which measures each speedup by re-simulating the run's kernels.
struct InsightLine {
  std::string speedup;  // "1.234x", or "failed"
  std::string title, where, advice, measured;
};

struct Run {
  std::string label;    // the profile path as given
  std::string program;  // the graph (sequence) or kernel name
  std::string mode;     // "eager", "fused", "manual"; empty for a single kernel profile
  std::string target;
  bool sequence = false;
  std::uint64_t total_ps = 0;  // end to end, host included
  std::uint64_t io_bytes = 0;  // the program's inputs plus outputs (round trip size)
  double peak_flops_per_s = 0;
  std::vector<std::pair<std::string, std::string>> host_model;  // name -> "value unit"
  std::vector<RunLaunch> launches;
  traces::Summary device;           // all launches' summaries added (total_ps: sum of device times)
  std::vector<Lane> lanes;          // host lanes (sequences), engines, DMA queues
  ViewerData viewer;                // instruction details, critical path, occupancy
  std::vector<SourceView> sources;  // traced kernels' files, by first appearance
  std::vector<InsightLine> insights;  // by measured speedup; empty unless asked for
};

// DMA route of a piece as a slice kind: src * 3 + dst (isa::MemSpace values).
std::uint16_t dma_route(isa::MemSpace src, isa::MemSpace dst);
// "matmul", "hbm-sbuf", "runtime_call": the slice kind's name (CSS data-op in the HTML).
std::string kind_name(LaneGroup group, std::uint16_t kind);
// Same for people: "hbm -> sbuf", "runtime call".
std::string kind_label(LaneGroup group, std::uint16_t kind);

}  // namespace neuronsim::report
