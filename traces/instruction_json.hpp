#pragma once
// The legacy profile JSON view (reference section 7):
//   {"summary":[{...section 7 fields...}], "instruction":[{...one per record...}]}
// Each instruction: start_ts, end_ts, duration_ns (ns since the run began, exact to the
// ps), engine, opcode, operands (from the kernel when given), pc, source_line, ready_ts,
// evt_wait_time_ns, port_wait_time_ns, dma_wait_time_ns, waited_semaphore, waited_for,
// {hbm,sbuf,psum}_{read,write}_bytes, flops. Streamed: one record at a time.
#include <string>

#include "isa/kernel.hpp"
#include "traces/ntff.hpp"
#include "traces/summary.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::traces {

class InstructionJsonWriter {
 public:
  InstructionJsonWriter(TextSink& out, const Summary& summary, const isa::Kernel* kernel);
  void add(const InstructionRecord& r);
  void finish();

 private:
  TextSink& out_;
  const isa::Kernel* kernel_;
  bool first_ = true;
};

// Reads the trace a second time (the summary came from the first pass).
void write_instruction_json(const std::string& out_path, const std::string& ntff_path,
                            const Summary& summary, const isa::Kernel* kernel);
void write_instruction_json(TextSink& out, const TraceData& trace, const Summary& summary,
                            const isa::Kernel* kernel);

}  // namespace neuronsim::traces
