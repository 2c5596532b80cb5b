#pragma once
// A progress line on stderr for long runs, so a big run is not silent until it ends:
// after 2 s of wall time, at most 4 times a second, "launch i/N, simulated T, K
// instructions, R instructions/s". It watches the run as an observer (watching changes
// nothing of the run), and is on only when stderr is a terminal and --quiet is not given,
// so scripts, pipes and tests see no difference. NEURONSIM_PROGRESS_AFTER_S sets the 2 s
// (tests/cli/cli_conventions.sh sets 0).
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "engines/observer.hpp"

namespace neuronsim::cli {

class Progress {
 public:
  explicit Progress(std::size_t launches);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The observer of one launch's events.
  engines::Observer* observer(std::size_t launch) { return observers_.at(launch).get(); }

  // stderr is a terminal and the user did not ask for quiet.
  static bool wanted(bool quiet);

 private:
  class LaunchObserver : public engines::Observer {
   public:
    LaunchObserver(Progress& p, std::size_t launch) : progress_(p), launch_(launch) {}
    void on_instruction_end(const traces::InstructionRecord& r) override {
      progress_.tick(launch_, r.end_ps);
    }

   private:
    Progress& progress_;
    std::size_t launch_;
  };

  void tick(std::size_t launch, std::uint64_t end_ps);

  using Clock = std::chrono::steady_clock;
  std::vector<std::unique_ptr<LaunchObserver>> observers_;
  Clock::time_point start_ = Clock::now(), next_ = start_;
  std::uint64_t instructions_ = 0, launch_end_ps_ = 0;
  std::size_t launch_ = 0;
  bool shown_ = false;
};

}  // namespace neuronsim::cli
