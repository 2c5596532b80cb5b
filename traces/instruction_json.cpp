#include "traces/instruction_json.hpp"

#include "traces/source_lines.hpp"

#include "traces/format.hpp"
#include "traces/operand_text.hpp"

namespace neuronsim::traces {

namespace {

void field(std::string& s, const char* name, const std::string& raw_value) {
  s += ",\"";
  s += name;
  s += "\":";
  s += raw_value;
}

}  // namespace

InstructionJsonWriter::InstructionJsonWriter(TextSink& out, const Summary& summary,
                                             const isa::Kernel* kernel)
    : out_(out), kernel_(kernel) {
  out_ << "{\"summary\":[" << summary_fields_json(summary).dump() << "],\n\"instruction\":[";
}

void InstructionJsonWriter::add(const InstructionRecord& r) {
  std::optional<isa::Instruction> instr =
      kernel_ ? find_instruction(*kernel_, r.engine, r.index) : std::nullopt;
  if (instr && instr->opcode() != r.opcode) instr.reset();  // not the kernel's instruction
  std::string s = first_ ? "\n{" : ",\n{";
  first_ = false;
  s += "\"start_ts\":" + ps_as_ns(r.start_ps);
  field(s, "end_ts", ps_as_ns(r.end_ps));
  field(s, "duration_ns", ps_as_ns(r.end_ps >= r.start_ps ? r.end_ps - r.start_ps : 0));
  field(s, "engine", json_string(isa::engine_name(r.engine)));
  field(s, "opcode", json_string(isa::opcode_name(r.opcode)));
  field(s, "operands", json_string(instr ? operand_text(*kernel_, *instr) : ""));
  field(s, "pc", std::to_string(r.index));
  field(s, "source_line", std::to_string(instr ? instr->source_line : 0));
  if (instr && r.index < kernel_->stream(r.engine).size())  // a traced kernel's Python line
    if (const isa::SourceLocation loc = kernel_->stream(r.engine).location(r.index); loc.known())
      field(s, "source", json_string(location_text(*kernel_, loc)));
  field(s, "ready_ts", ps_as_ns(r.ready_ps));
  field(s, "evt_wait_time_ns", ps_as_ns(r.semaphore_wait_ps));
  field(s, "port_wait_time_ns", ps_as_ns(r.port_wait_ps));
  field(s, "dma_wait_time_ns", ps_as_ns(r.dma_wait_ps));
  const SemaphoreWaitRecord* longest = longest_wait(r);
  if (!longest) {
    field(s, "waited_semaphore", "null");
  } else if (kernel_ && longest->semaphore < kernel_->semaphores.size()) {
    field(s, "waited_semaphore", json_string(kernel_->semaphores[longest->semaphore].name));
  } else {
    field(s, "waited_semaphore", std::to_string(longest->semaphore));
  }
  field(s, "waited_for",
        json_string(source_name(kernel_, longest ? longest->last_signaller : SignalSource{})));
  static const char* names[3][2] = {{"hbm_read_bytes", "hbm_write_bytes"},
                                    {"sbuf_read_bytes", "sbuf_write_bytes"},
                                    {"psum_read_bytes", "psum_write_bytes"}};
  for (int m = 0; m < 3; ++m) {
    field(s, names[m][0], std::to_string(r.bytes.read[m]));
    field(s, names[m][1], std::to_string(r.bytes.written[m]));
  }
  field(s, "flops", std::to_string(r.flops));
  s += "}";
  out_ << s;
}

void InstructionJsonWriter::finish() {
  out_ << "\n]}\n";
}

void write_instruction_json(const std::string& out_path, const std::string& ntff_path,
                            const Summary& summary, const isa::Kernel* kernel) {
  OutputFile file(out_path);
  FileSink sink(file);
  InstructionJsonWriter w(sink, summary, kernel);
  NtffReader reader(ntff_path);
  Record r;
  while (reader.next(r))
    if (const auto* i = std::get_if<InstructionRecord>(&r)) w.add(*i);
  w.finish();
  file.commit();
}

void write_instruction_json(TextSink& out, const TraceData& trace, const Summary& summary,
                            const isa::Kernel* kernel) {
  InstructionJsonWriter w(out, summary, kernel);
  for (const auto& r : trace.instructions)
    w.add(r);
  w.finish();
}

}  // namespace neuronsim::traces
