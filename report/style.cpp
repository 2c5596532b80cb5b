#include "report/style.hpp"

#include <utility>

#include "isa/instruction.hpp"
#include "report/embedded_files.hpp"

namespace neuronsim::report {

namespace {

// DMA routes and host phases; the opcodes' colours are their rows of the opcode table
// (isa/instruction.hpp), so every opcode has one.
const std::pair<const char*, const char*> kColours[] = {
    {"hbm-sbuf", "#17a2b8"},           {"sbuf-hbm", "#e8a33d"},     {"hbm-hbm", "#8c564b"},
    {"sbuf-sbuf", "#7f7f7f"},          {"psum-sbuf", "#9467bd"},    {"sbuf-psum", "#c5b0d5"},
    {"psum-hbm", "#bcbd22"},           {"hbm-psum", "#dbdb8d"},     {"psum-psum", "#c7c7c7"},
    {"framework_dispatch", "#9ecae1"}, {"runtime_call", "#6baed6"}, {"device", "#3f6fa8"},
};

}  // namespace

std::string kind_colour(const std::string& kind) {
  if (const auto op = isa::parse_opcode(kind)) return std::string(isa::opcode_info(*op).colour);
  for (const auto& [name, colour] : kColours)
    if (kind == name) return colour;
  return "#999999";
}

std::string report_css() {
  // The static rules (report/report.css, on a line of their own after <style>), then the
  // colours of every opcode, DMA route and host phase.
  std::string css = "\n" + std::string(embedded::report_css());
  for (const isa::OpcodeInfo& op : isa::kOpcodeTable)
    css += "[data-op=" + std::string(op.name) + "]{fill:" + std::string(op.colour) + "}";
  for (const auto& [name, colour] : kColours)
    css += std::string("[data-op=") + name + "]{fill:" + colour + "}";
  return css + "\n";
}

}  // namespace neuronsim::report
