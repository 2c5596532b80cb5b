#include "whatif/capture.hpp"

namespace neuronsim::whatif {

void TraceCapture::on_instruction_end(const traces::InstructionRecord& r) {
  trace_.instructions.push_back(r);
  trace_.instructions.back().instruction = nullptr;  // the engine's slot, reused next
}

void TraceCapture::on_dma_end(const traces::DmaRecord& r) {
  trace_.dmas.push_back(r);
}

}  // namespace neuronsim::whatif
