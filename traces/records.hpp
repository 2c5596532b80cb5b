#pragma once
// The trace events (reference section 7), one schema from the engines to the files: the
// engines emit these records to their observers (engines/observer.hpp) as a kernel runs,
// profile's recorder streams them unchanged into the NTFF writer, and the NTFF reader, the
// summaries, the Perfetto export and the report's viewer read them back. One record per
// executed instruction, per DMA engine's part of a transfer, and per semaphore update.
// Times are integer picoseconds of simulated time from the launch's start (SystemC's
// resolution), so records are exact and traces byte-identical across runs; ps_to_ns()
// converts for display. traces/ knows nothing of SystemC or of the engines.
//
// A few fields describe the live run only and are not stored in an NTFF (docs/ntff.md says
// which): an instruction's `instruction` pointer, `source_line` (the NEFF has it),
// `busy_cycles` and `stationary_reused`, a DMA part's `transfer`, `hw_queue`, `first_row`
// and `rows`. A record read back from a trace has them 0.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::traces {

inline constexpr int kMemSpaceCount = 3;  // indexed by isa::MemSpace
using BytesBySpace = std::array<std::uint64_t, kMemSpaceCount>;
inline double ps_to_ns(std::uint64_t ps) {
  return static_cast<double>(ps) / 1000.0;
}

// Who changed a semaphore: nobody yet (its initial value), an engine's instruction, or the
// completion of a DMA transfer (the dma_copy `instruction` of `engine`, on queue `queue`).
// Recorded by the signaller when it signals, so a reader never has to guess it.
struct SignalSource {
  enum class Kind : std::uint8_t { initial, engine, dma_queue };
  Kind kind = Kind::initial;
  isa::Engine engine = isa::Engine::sync;
  std::uint32_t instruction = 0;  // index in that engine's stream
  std::uint16_t queue = 0;        // Kernel::queues index (dma_queue only)
  bool operator==(const SignalSource& o) const {
    return kind == o.kind && engine == o.engine && instruction == o.instruction && queue == o.queue;
  }
};

// Bytes moved, per memory space (indexed by isa::MemSpace).
struct ByteCounts {
  BytesBySpace read{};
  BytesBySpace written{};
  bool operator==(const ByteCounts& o) const { return read == o.read && written == o.written; }
};

// One semaphore an instruction waited for.
struct SemaphoreWaitRecord {
  std::uint16_t semaphore = 0;
  std::uint32_t wanted = 0;          // waited until value >= wanted
  std::uint32_t value_at_ready = 0;  // value when the instruction became ready
  std::uint64_t waited_ps = 0;       // time this semaphore held the instruction back
  SignalSource last_signaller;       // who made it reach `wanted` (or last changed it)
  bool operator==(const SemaphoreWaitRecord& o) const;
};

struct InstructionRecord {
  isa::Engine engine = isa::Engine::sync;
  std::uint32_t index = 0;  // position in the engine's stream (the "pc")
  isa::Opcode opcode = isa::Opcode::nop;
  std::uint32_t source_line = 0;                  // live only
  const isa::Instruction* instruction = nullptr;  // live only, valid during the callback
  std::uint64_t ready_ps = 0;                     // previous instruction of this engine finished
  std::uint64_t start_ps = 0;  // busy from here (after semaphore, DMA queue and port waits)
  std::uint64_t end_ps = 0;    // finished, signals applied (set in the end event)
  std::uint64_t start_cycle = 0, end_cycle = 0;  // in this engine's clock
  std::uint64_t busy_cycles = 0;  // live only: what the cost model (and Tensor load) charged
  // The three waits lie back to back between ready and start: semaphores, then the DMA
  // queue (dma_copy) or the ports (everything else).
  std::uint64_t semaphore_wait_ps = 0;  // NTFF evt_wait_time_ns; the sum of the waits' waited_ps
  std::uint64_t dma_wait_ps = 0;        // waiting for room in a full DMA queue (dma_copy)
  std::uint64_t port_wait_ps = 0;       // waiting for a memory port held by another engine
  // Part of start -> end that the Tensor engine's throttle added (cost/tensor_throttle.hpp):
  // the busy time beyond what the instruction takes at full rate.
  std::uint64_t throttle_ps = 0;
  std::vector<SemaphoreWaitRecord> semaphore_waits;  // in the instruction's wait order
  // Bytes of the instruction's operands per memory. For dma_copy the data moves later, in
  // the DMA records; these are the transfer's totals.
  ByteCounts bytes;
  std::uint64_t flops = 0;         // isa::flops
  bool stationary_reused = false;  // live only: Tensor matmul, stationary already loaded
  bool operator==(const InstructionRecord& o) const;  // the fields an NTFF stores
};

// The semaphore wait that held `r` back longest (the first of equals), or nullptr if none
// held it at all: what summaries blame a stall on.
const SemaphoreWaitRecord* longest_wait(const InstructionRecord& r);

// One DMA engine's part of a dma_copy (a transfer is split across DMA engines).
struct DmaRecord {
  std::uint32_t transfer = 0;   // live only: sequence number of the dma_copy, in issue order
  std::uint16_t queue = 0;      // Kernel::queues index
  std::uint8_t dma_engine = 0;  // 0..15
  std::uint8_t hw_queue = 0;    // live only: the FIFO on that DMA engine
  std::uint32_t first_row = 0, rows = 0;  // live only: partition rows of this part
  std::uint64_t bytes = 0;
  isa::MemSpace src = isa::MemSpace::hbm, dst = isa::MemSpace::sbuf;
  isa::Engine issuer = isa::Engine::sync;  // the dma_copy that issued it
  std::uint32_t issuer_index = 0;          // its index in the issuer's stream
  std::uint64_t issue_ps = 0;              // handed to the DMA subsystem
  std::uint64_t start_ps = 0;  // its first byte moved (descriptors made, latency elapsed)
  std::uint64_t end_ps = 0;    // last byte landed (end event only)
  bool operator==(const DmaRecord& o) const;  // the fields an NTFF stores
};

struct SemaphoreRecord {
  std::uint64_t time_ps = 0;
  std::uint16_t semaphore = 0;
  std::uint32_t value = 0;  // the value after the update
  SignalSource source;
  bool operator==(const SemaphoreRecord& o) const;
};

// What a trace says about the run as a whole (the NTFF header and trailer).
struct TraceInfo {
  std::array<std::uint8_t, 32> neff_hash{};
  std::string kernel_name;
  std::string target;
  std::array<double, isa::kEngineCount> engine_ghz{};
  // The clock of the profiler's neuroncore_cycle_count (clocks.cycle_counter_ghz); 0 = unknown.
  double cycle_counter_ghz = 0;
  std::uint64_t total_ps = 0;  // end of the run
};

}  // namespace neuronsim::traces
