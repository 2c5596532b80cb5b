// sc_spawn needs the dynamic-process part of SystemC.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "bench/suite/ceiling.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace neuronsim::bench {

Ceiling::Ceiling(sc_core::sc_module_name name) : sc_module(name) {
  for (int i = 0; i < kThreads; ++i) {
    ready_[i] = std::make_unique<sc_core::sc_semaphore>(("ready" + std::to_string(i)).c_str(), 0);
    sc_core::sc_spawn_options opts;
    sc_core::sc_spawn([this, i] { thread(i); }, ("engine" + std::to_string(i)).c_str(), &opts);
  }
}

void Ceiling::thread(int index) {
  const sc_core::sc_time duration(1, sc_core::SC_NS);
  for (;;) {
    if (index == 0) {
      while (budget_ == 0)
        wait(go_);
      --budget_;
    } else {
      ready_[index]->wait();
    }
    wait(duration);
    ++executed_;
    if (index + 1 < kThreads) ready_[index + 1]->post();
  }
}

std::uint64_t Ceiling::run(std::uint64_t per_thread) {
  const std::uint64_t before = executed_;
  budget_ = per_thread;
  go_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  return executed_ - before;
}

double ceiling_rate(Ceiling& c, std::uint64_t per_thread, int reps) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t n = c.run(per_thread);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(n) / s);
  }
  return best;
}

}  // namespace neuronsim::bench
