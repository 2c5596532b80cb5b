#pragma once
// Device time by line of the program that generated a kernel (a traced NKI kernel's Python
// lines, isa::SourceLocation): what `neuronsim view` lists and the report's source view
// shows next to the source text. Read from the trace and the kernel's locations only.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::traces {

struct SourceLineTime {
  isa::SourceLocation location;
  std::uint64_t instructions = 0;  // executed instructions at this line
  std::uint64_t busy_ps = 0;       // their engine time (start to end), all engines together
  std::array<std::uint64_t, isa::kEngineCount> engine_ps{};  // busy_ps by engine
  std::uint64_t dma_ps = 0;          // DMA engine time of the transfers its dma_copies issued
  std::uint64_t first_start_ps = 0;  // the earliest start among them
};

// One row per location with at least one executed instruction, ordered by (file, line).
// Empty when the kernel has no locations.
std::vector<SourceLineTime> source_line_times(const TraceData& t, const isa::Kernel& k);

// "path:line" of a location of k, or "" when it is unknown or names no source of k.
std::string location_text(const isa::Kernel& k, isa::SourceLocation loc);

// Whether `pattern` names `loc`: "path:line" or its end ("kernel.py:42", ":42", "py:42"),
// or a path (or its end) alone for every line of that file.
bool location_matches(const isa::Kernel& k, isa::SourceLocation loc, const std::string& pattern);

// The `top` lines with the most engine time, as an aligned table under a heading ("" when
// the kernel has no locations): location, instructions, engine time and its share of
// `device_ps` (all instructions' engine time), DMA time, and the line's text when the kernel
// carries it.
std::string source_lines_text(const std::vector<SourceLineTime>& rows, const isa::Kernel& k,
                              std::uint64_t device_ps, std::size_t top);
// Every row as JSON objects {source, file, line, instructions, busy_ns, dma_ns, engines_ns}.
std::string source_lines_json(const std::vector<SourceLineTime>& rows, const isa::Kernel& k);

// Line `line` (1-based) of `text` without its newline, "" past the end.
std::string text_line(const std::string& text, std::uint32_t line);

}  // namespace neuronsim::traces
