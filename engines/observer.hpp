#pragma once
// What the engines report while a kernel runs, for traces (NTFF, reference section 7) and
// live summaries. Observers are passive: they see events in simulated-time order and must
// not change the simulation. With no observer attached the engines build no records.
// Times are integer picoseconds of simulated time (SystemC's resolution), so records are
// exact and identical from run to run; ps_to_ns() converts for display.
#include <array>
#include <cstdint>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::engines {

// Who changed a semaphore last: its initial value, an engine's instruction, or the
// completion of a DMA transfer (issued by `engine`'s instruction on queue `queue`).
struct SignalSource {
  enum class Kind : std::uint8_t { initial, engine, dma_queue };
  Kind kind = Kind::initial;
  isa::Engine engine = isa::Engine::sync;
  std::uint32_t instruction = 0;  // index in that engine's stream
  std::uint16_t queue = 0;        // Kernel::queues index (dma_queue only)
};

inline constexpr int kMemSpaceCount = 3;  // indexed by isa::MemSpace
using BytesBySpace = std::array<std::uint64_t, kMemSpaceCount>;
inline double ps_to_ns(std::uint64_t ps) {
  return static_cast<double>(ps) / 1000.0;
}

// One semaphore an instruction waited for.
struct SemaphoreWaitRecord {
  std::uint16_t sem = 0;
  std::uint32_t wanted = 0;          // waited until value >= wanted
  std::uint32_t value_at_ready = 0;  // value when the instruction became ready
  std::uint64_t waited_ps = 0;       // time this semaphore held the instruction back
  SignalSource last_signaller;       // who made it reach `wanted` (or last changed it)
};

struct InstructionRecord {
  isa::Engine engine = isa::Engine::sync;
  std::uint32_t index = 0;  // position in the engine's stream (the "pc")
  isa::Opcode opcode = isa::Opcode::nop;
  std::uint32_t source_line = 0;
  const isa::Instruction* instruction = nullptr;  // valid during the callback only
  std::uint64_t ready_ps = 0;                     // previous instruction of this engine finished
  std::uint64_t start_ps = 0;  // busy from here (after semaphore, DMA queue and port waits)
  std::uint64_t end_ps = 0;    // set in the end event
  std::uint64_t start_cycle = 0, end_cycle = 0;  // in this engine's clock
  std::uint64_t busy_cycles = 0;                 // what the cost model (and Tensor load) charged
  std::uint64_t semaphore_wait_ps = 0;           // NTFF evt_wait_time_ns
  std::uint64_t dma_queue_wait_ps = 0;           // waiting for room in a full DMA queue (dma_copy)
  std::uint64_t port_wait_ps = 0;                // waiting for a memory port held by another engine
  std::vector<SemaphoreWaitRecord> semaphore_waits;
  // Bytes of the instruction's operands per memory (isa::MemSpace index). For dma_copy
  // the data moves later, in the DMA records; these are the transfer's totals.
  BytesBySpace read_bytes{}, write_bytes{};
  std::uint64_t flops = 0;         // isa::flops
  bool stationary_reused = false;  // Tensor matmul: stationary already loaded, no load paid
};

// One DMA engine's part of a dma_copy (a transfer is split across DMA engines).
struct DmaRecord {
  std::uint32_t transfer = 0;  // sequence number of the dma_copy, from 0, in issue order
  std::uint16_t queue = 0;     // Kernel::queues index
  std::uint8_t dma_engine = 0;
  std::uint8_t hw_queue = 0;              // the FIFO on that DMA engine
  std::uint32_t first_row = 0, rows = 0;  // partition rows of the transfer in this part
  std::uint64_t bytes = 0;
  isa::MemSpace src_space = isa::MemSpace::hbm, dst_space = isa::MemSpace::sbuf;
  isa::Engine issuer = isa::Engine::sync;  // the instruction that issued it
  std::uint32_t issuer_index = 0;
  std::uint64_t queued_ps = 0;  // issued by the engine
  std::uint64_t start_ps = 0;   // its first byte moved (descriptors made, latency elapsed)
  std::uint64_t end_ps = 0;     // last byte written (end event only)
};

struct SemaphoreRecord {
  std::uint64_t time_ps = 0;
  std::uint16_t sem = 0;
  std::uint32_t value = 0;  // the new value
  SignalSource source;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_instruction_start(const InstructionRecord&) {}
  virtual void on_instruction_end(const InstructionRecord&) {}
  virtual void on_dma_start(const DmaRecord&) {}
  virtual void on_dma_end(const DmaRecord&) {}
  virtual void on_semaphore_update(const SemaphoreRecord&) {}
};

using Observers = std::vector<Observer*>;

}  // namespace neuronsim::engines
