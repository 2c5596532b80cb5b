#include "report/run.hpp"

#include "isa/access_pattern.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::report {

namespace {

const char* const kSpaceNames[] = {"hbm", "sbuf", "psum"};

const char* space_name(int space) {
  return space >= 0 && space < 3 ? kSpaceNames[space] : "mem";
}

}  // namespace

std::uint16_t dma_route(isa::MemSpace src, isa::MemSpace dst) {
  return static_cast<std::uint16_t>(static_cast<int>(src) * 3 + static_cast<int>(dst));
}

std::string kind_name(LaneGroup group, std::uint16_t kind) {
  switch (group) {
    case LaneGroup::host:
      switch (static_cast<HostKind>(kind)) {
        case HostKind::framework_dispatch:
          return "framework_dispatch";
        case HostKind::runtime_call:
          return "runtime_call";
        case HostKind::device:
          return "device";
      }
      return "host";
    case LaneGroup::engine:
      if (kind < isa::kOpcodeCount)
        return std::string(isa::opcode_name(static_cast<isa::Opcode>(kind)));
      return "op";
    case LaneGroup::dma:
      return std::string(space_name(kind / 3)) + "-" + space_name(kind % 3);
  }
  return "slice";
}

std::string kind_label(LaneGroup group, std::uint16_t kind) {
  switch (group) {
    case LaneGroup::host:
      switch (static_cast<HostKind>(kind)) {
        case HostKind::framework_dispatch:
          return "framework dispatch";
        case HostKind::runtime_call:
          return "runtime call";
        case HostKind::device:
          return "device execution";
      }
      return "host";
    case LaneGroup::dma:
      return std::string(space_name(kind / 3)) + " -> " + space_name(kind % 3);
    case LaneGroup::engine:
      break;
  }
  return kind_name(group, kind);
}

}  // namespace neuronsim::report
