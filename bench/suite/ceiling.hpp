#pragma once
// The bare SystemC ceiling: the fastest an engine loop of this shape can run on this
// machine with this SystemC. Five threads stand for five engines; each "instruction" of
// threads 1..4 waits on a semaphore posted by the thread before it, then every one does a
// timed wait (its duration), as neuronsim's engines do. Nothing else: no decoding, no
// cost model, no observers. Every simulation figure of the suite is a ratio to it.
#include <cstdint>
#include <memory>

#include <systemc>

namespace neuronsim::bench {

class Ceiling : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Ceiling);
  explicit Ceiling(sc_core::sc_module_name name);

  // Runs 5 * per_thread instructions to completion (calls sc_start) and returns them.
  std::uint64_t run(std::uint64_t per_thread);

 private:
  static constexpr int kThreads = 5;
  void thread(int index);

  std::uint64_t budget_ = 0;  // instructions thread 0 may still start
  std::uint64_t executed_ = 0;
  sc_core::sc_event go_;
  std::unique_ptr<sc_core::sc_semaphore> ready_[kThreads];  // [i]: posted by thread i-1
};

// Instructions per wall second of the ceiling: best of `reps` runs of 5 * per_thread.
double ceiling_rate(Ceiling& c, std::uint64_t per_thread, int reps);

}  // namespace neuronsim::bench
