#include "report/style.hpp"

#include <utility>

#include "isa/instruction.hpp"

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
  std::string css = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px;color:#222;background:#fff;max-width:1360px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:20px;margin:32px 0 8px;padding-top:12px;border-top:2px solid #ddd}
h3{font-size:15px;margin:18px 0 6px;color:#444}
p.sub{color:#666;margin:0 0 16px}
table{border-collapse:collapse;font-size:13px;margin:4px 0 8px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f4f6f8;font-weight:600;white-space:normal;vertical-align:bottom}
.scroll{overflow-x:auto}
td:first-child,th:first-child{text-align:left}
td.l{text-align:left}
.comparison th:nth-child(2),.comparison th:nth-child(3),.comparison th:last-child{text-align:left}
.comparison{width:100%}.comparison td{white-space:normal}.comparison td.l{overflow-wrap:anywhere}
.launches td,.host-model td{white-space:normal}.launches td.l,.host-model td.l{overflow-wrap:anywhere}
@media (max-width:1400px){table{font-size:12px}th,td{padding:3px 5px}}
@media (max-width:1000px){body{margin:12px}table{font-size:11px}th,td{padding:2px 3px}th{overflow-wrap:anywhere}}
.grid2{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
ul.explain{margin:4px 0 12px;padding-left:22px;font-size:14px;line-height:1.5}
.bound{font-weight:600;white-space:normal;min-width:120px}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:12px;margin:6px 0 10px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.legend svg{flex:none}
.note{font-size:12px;color:#666}
.source-path{font:600 13px ui-monospace,Menlo,Consolas,monospace;margin:8px 0 2px}
.source-lines td{padding:0 6px;border-bottom:none;font-size:12px}.source-lines th:last-child{text-align:left}
.source-lines td.code{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre}
.source-lines tr.hot{background:#fff7e6}.source-lines tr.gap td{color:#aaa}
.source-lines .heat{display:inline-block;height:9px;background:#e8871e;vertical-align:middle}
svg{display:block;max-width:100%;height:auto;font-size:11px}
svg text{fill:#333}
.tick{text-anchor:middle;fill:#555}
.lane-label{text-anchor:end;font-size:12px}
.in-slice{text-anchor:middle;fill:#fff;font-size:11px;pointer-events:none}
.axis-line{stroke:#888}
.grid{stroke:#000;stroke-opacity:.08}
.lane-bg{fill:#f3f4f6}
rect.slice{stroke:none}
rect.slice:hover,.stall-bar rect:hover{stroke:#000;stroke-width:1}
[data-stall=busy]{fill:#4e79a7}[data-stall=semaphore]{fill:#b07aa1}
[data-stall=semaphore][data-shade="1"]{fill:#8e5c84}[data-stall=semaphore][data-shade="2"]{fill:#cda2c4}
[data-stall=port]{fill:#f28e2b}[data-stall=dma]{fill:#e15759}[data-stall=idle]{fill:#e3e5e8}
[data-stall=host]{fill:#c8cdd3}
.stall-bar text{fill:#fff}.stall-bar text.dark{fill:#333}
)";
  for (const isa::OpcodeInfo& op : isa::kOpcodeTable)
    css += "[data-op=" + std::string(op.name) + "]{fill:" + std::string(op.colour) + "}";
  for (const auto& [name, colour] : kColours)
    css += std::string("[data-op=") + name + "]{fill:" + colour + "}";
  return css + "\n";
}

}  // namespace neuronsim::report
