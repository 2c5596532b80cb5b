#pragma once
// What the interactive viewer of the report shows beyond the lanes (docs/report.md): every
// executed instruction's details (operands, source line, times, cycles, bytes, semaphore
// waits and who signalled them), the critical path through semaphore dependencies, and
// SBUF/PSUM occupancy over time. Built per launch from its trace and kernel; plain data,
// serialised into the page by report/viewer_json.hpp.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "isa/kernel.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::report {

inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFF;

// Who set the semaphore an instruction waited on longest.
struct Signaller {
  enum class Kind : std::uint8_t { none, instruction, dma };
  Kind kind = Kind::none;
  std::uint32_t index = kNoIndex;  // into InstructionDetail (instruction) or DmaPiece (dma)
  std::uint64_t time_ps = 0;       // the update, on the program's time axis
};

struct InstructionDetail {
  std::uint32_t launch = 0;
  isa::Engine engine = isa::Engine::tensor;
  isa::Opcode opcode = isa::Opcode::nop;
  std::uint32_t pc = 0;           // position in the engine's stream
  std::uint32_t source_line = 0;  // 0: unknown
  std::uint32_t location = 0;     // into strings: "kernel.py:42", a traced kernel's line ("": none)
  std::uint32_t operands = 0;     // into ViewerData::strings
  std::uint32_t waits = 0;        // into strings: "a_loaded>=1, b_loaded>=1" (may be "")
  std::uint32_t waited = 0;       // into strings: the semaphore waited on longest ("" if none)
  std::uint64_t ready_ps = 0, start_ps = 0, end_ps = 0;  // program time axis
  std::uint64_t start_cycle = 0, end_cycle = 0;          // the engine's clock
  std::uint64_t semaphore_wait_ps = 0, port_wait_ps = 0, dma_wait_ps = 0;
  std::uint64_t throttle_ps = 0;  // part of start -> end: the Tensor throttle's
  traces::ByteCounts bytes;
  std::uint64_t flops = 0;
  Signaller signaller;
  bool critical = false;
};

// One DMA piece (a DMA engine's part of a dma_copy), kept for signallers and the
// critical path; the lanes show merged stretches of them.
struct DmaPiece {
  std::uint32_t launch = 0;
  std::uint16_t queue = 0;  // index into ViewerData::queue_names
  std::uint64_t start_ps = 0, end_ps = 0, bytes = 0;
  std::uint32_t issuer = kNoIndex;  // into InstructionDetail
  bool critical = false;
};

// A step function: `bytes` from `time_ps` until the next step.
struct OccupancyStep {
  std::uint64_t time_ps = 0;
  std::uint64_t bytes = 0;
};

struct Occupancy {
  std::uint64_t capacity_bytes = 0;     // partitions x bytes per partition (0: unknown)
  std::vector<OccupancyStep> reserved;  // every allocation of the running kernel
  std::vector<OccupancyStep> live;      // allocations between their first and last use
  // Until finish_viewer(): (time, signed change of bytes).
  std::vector<std::pair<std::uint64_t, std::int64_t>> reserved_changes, live_changes;
};

struct ViewerData {
  bool complete = true;  // false: more instructions than the viewer embeds (details dropped)
  std::vector<std::string> strings{""};
  std::vector<std::string> queue_names;  // by DmaPiece::queue: "q_in"
  std::vector<InstructionDetail> instructions;
  std::vector<DmaPiece> dmas;
  std::vector<std::uint32_t> critical_path;  // instruction indices, in time order
  Occupancy sbuf, psum;
  std::uint32_t intern(const std::string& s);  // index of s in strings, added if new

 private:
  std::unordered_map<std::string, std::uint32_t> string_index_{{"", 0}};
};

// Most instructions (all launches) a run's viewer keeps details of; beyond, the viewer
// shows the pixel-fitted lanes without details (docs/report.md, "limits").
inline constexpr std::size_t kMaxViewerInstructions = 400'000;

// Adds one launch: its trace shifted by offset_ps, its kernel (operands, waits, source
// lines, allocations, queue names), the launch's device span ending at device_end_ps.
// Returns the index of the trace's first instruction in v.instructions (the lanes'
// Slice::detail counts from it), or kNoIndex when the run has outgrown the viewer.
std::uint32_t add_viewer_launch(ViewerData& v, const traces::TraceData& trace,
                                const isa::Kernel& kernel, std::uint32_t launch,
                                std::uint64_t offset_ps, std::uint64_t device_end_ps);

// After the last launch: the occupancy steps, sorted and merged. (Each launch's critical
// path, docs/report.md defines it, is found when the launch is added.)
void finish_viewer(ViewerData& v);

}  // namespace neuronsim::report
