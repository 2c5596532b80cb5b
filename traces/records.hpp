#pragma once
// What a profile records (reference section 7): one record per executed instruction, per
// DMA transfer piece, and per semaphore update. Times are integer picoseconds of simulated
// time (SystemC's resolution), so traces are exact and byte-identical across runs. The
// simulator converts its events to these records (sim/ adapts engines' observer events);
// traces/ knows nothing of SystemC.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::traces {

// Who updated a semaphore or was waited on: an engine or a DMA queue.
struct Agent {
  enum class Kind : std::uint8_t { none, engine, dma_queue };
  Kind kind = Kind::none;
  std::uint16_t id = 0;  // isa::Engine value, or index into Kernel::queues
  bool operator==(const Agent& o) const { return kind == o.kind && id == o.id; }
};

// Bytes moved, per memory space (indexed by isa::MemSpace).
struct ByteCounts {
  std::array<std::uint64_t, 3> read{};
  std::array<std::uint64_t, 3> written{};
  bool operator==(const ByteCounts& o) const { return read == o.read && written == o.written; }
};

struct InstructionRecord {
  isa::Engine engine = isa::Engine::tensor;
  isa::Opcode opcode = isa::Opcode::nop;
  std::uint32_t index = 0;        // position in the engine's stream (the "pc")
  std::uint64_t ready_ps = 0;     // previous instruction of the engine finished
  std::uint64_t start_ps = 0;     // began executing (waits over)
  std::uint64_t end_ps = 0;       // finished (signals applied)
  std::uint64_t start_cycle = 0;  // in the engine's own clock
  std::uint64_t end_cycle = 0;
  std::uint64_t semaphore_wait_ps = 0;  // ready -> semaphores satisfied
  std::uint64_t port_wait_ps = 0;       // waiting for a shared SBUF/PSUM port
  std::uint64_t dma_wait_ps = 0;        // waiting for room in a DMA queue
  // The semaphore waited on longest (0xFFFF: none) and who last updated it.
  std::uint16_t waited_semaphore = 0xFFFF;
  Agent waited_for;
  ByteCounts bytes;
  std::uint64_t flops = 0;
  bool operator==(const InstructionRecord& o) const;
};

// One DMA engine's part of one dma_copy (a transfer is split across DMA engines).
struct DmaRecord {
  std::uint16_t queue = 0;      // index into Kernel::queues
  std::uint8_t dma_engine = 0;  // 0..15
  isa::Engine issuer = isa::Engine::sync;
  std::uint32_t issuer_index = 0;  // the dma_copy's index in the issuer's stream
  std::uint64_t issue_ps = 0;      // handed to the DMA subsystem
  std::uint64_t start_ps = 0;      // first byte moves
  std::uint64_t end_ps = 0;        // last byte landed
  isa::MemSpace src = isa::MemSpace::hbm;
  isa::MemSpace dst = isa::MemSpace::sbuf;
  std::uint64_t bytes = 0;
  bool operator==(const DmaRecord& o) const;
};

struct SemaphoreRecord {
  std::uint64_t time_ps = 0;
  std::uint16_t semaphore = 0;
  std::uint32_t value = 0;  // value after the update
  Agent source;
  bool operator==(const SemaphoreRecord& o) const;
};

// What a trace says about the run as a whole (the NTFF header and trailer).
struct TraceInfo {
  std::array<std::uint8_t, 32> neff_hash{};
  std::string kernel_name;
  std::string target;
  std::array<double, isa::kEngineCount> engine_ghz{};
  std::uint64_t total_ps = 0;  // end of the run
};

}  // namespace neuronsim::traces
