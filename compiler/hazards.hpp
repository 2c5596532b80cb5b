#pragma once
// Semaphores derived from what instructions read and write, for generated kernels whose
// schedule is too irregular to count by hand (compiler/gemm.cpp).
//
// Every instruction another one may wait for signals a counter, so "X has finished" is
// "counter >= n" (reference section 5). A compute engine runs in order and applies an
// instruction's effect before the next starts (docs/simulation.md), so it has one counter
// and needs no wait for its own earlier instructions. DMA transfers complete out of
// order across partitions, but two transfers on one queue over the same partitions
// complete in issue order (each DMA engine serves its FIFO in order and serves the same
// partitions for both, docs/simulation.md "Split"), so transfers get one counter per
// (queue, partitions).
//
// A Slot is a piece of SBUF or PSUM whose accesses must be ordered: a reader waits for
// the writers since the last read (read after write); a writer waits for those and for
// the readers since (write after read, write after write). Emitting instructions in an
// order where every wait names an earlier instruction cannot deadlock.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "builder/builder.hpp"

namespace neuronsim::compiler {

// "Instruction X has finished" as "semaphore `sem` >= value".
struct Done {
  std::uint16_t sem = 0;
  std::uint32_t value = 0;
  int engine = -1;  // the compute engine that ran X; -1 for a DMA transfer
};

class Slot {
 public:
  const std::vector<Done>& writers() const { return writers_; }
  std::vector<Done> before_write() const;
  void wrote(const Done& d);
  void read(const Done& d);

 private:
  std::vector<Done> writers_, readers_;
};

struct Access {
  Slot* slot;
  bool write;
};
inline Access reads(Slot& s) {
  return {&s, false};
}
inline Access writes(Slot& s) {
  return {&s, true};
}

class Hazards {
 public:
  // `name` turns a semaphore's base name into one that is free in the kernel.
  Hazards(isa::Builder& b, std::function<std::string(const std::string&)> name);

  // Adds to `ins` (a compute instruction on engine `e`, just appended) the waits its
  // accesses need and the signal of its counter; records its accesses.
  Done compute(isa::Instruction& ins, isa::Engine e, const std::vector<Access>& accesses);
  // A DMA queue (isa::Builder::queue) whose name the semaphores of its transfers carry.
  isa::Queue queue(const std::string& name, std::uint8_t first_engine, std::uint8_t engines);
  // The same as compute() for a dma_copy on `queue` whose on-chip side covers `partitions`
  // partitions from `start`.
  Done dma(isa::Instruction& ins, isa::Queue queue, std::uint32_t start, std::uint32_t partitions,
           const std::vector<Access>& accesses);

 private:
  void add_waits(isa::Instruction& ins, int engine, const std::vector<Access>& accesses);
  Done signal(isa::Instruction& ins, isa::Sem sem, std::uint32_t& count, int engine,
              const std::vector<Access>& accesses);

  isa::Builder& b_;
  std::function<std::string(const std::string&)> name_;
  std::map<int, std::pair<isa::Sem, std::uint32_t>> engines_;
  std::map<std::uint16_t, std::string> queue_names_;
  std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t>,
           std::pair<isa::Sem, std::uint32_t>>
      transfers_;
};

}  // namespace neuronsim::compiler
