#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace neuronsim::cli {

namespace {

double delay_s() {
  const char* text = std::getenv("NEURONSIM_PROGRESS_AFTER_S");
  return text && *text ? std::max(0.0, std::atof(text)) : 2.0;
}

}  // namespace

Progress::Progress(std::size_t launches) {
  for (std::size_t i = 0; i < launches; ++i)
    observers_.push_back(std::make_unique<LaunchObserver>(*this, i));
  next_ = start_ +
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(delay_s()));
}

Progress::~Progress() {
  if (shown_) std::fputs("\r\033[K", stderr);  // the summary follows on a clean line
}

bool Progress::wanted(bool quiet) {
  return !quiet && isatty(STDERR_FILENO);
}

void Progress::tick(std::size_t launch, std::uint64_t end_ps) {
  if (launch != launch_) launch_ = launch, launch_end_ps_ = 0;
  launch_end_ps_ = std::max(launch_end_ps_, end_ps);
  // Reading the clock is cheap next to an instruction's simulation, but not free.
  if (++instructions_ % 256 != 0) return;
  const Clock::time_point now = Clock::now();
  if (now < next_) return;
  next_ = now + std::chrono::milliseconds(250);
  const double wall = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr,
               "\r\033[Kneuronsim: launch %zu/%zu, simulated %.3f us, %llu instructions, "
               "%.0f instructions/s",
               launch + 1, observers_.size(), static_cast<double>(launch_end_ps_) / 1e6,
               static_cast<unsigned long long>(instructions_),
               wall > 0 ? static_cast<double>(instructions_) / wall : 0.0);
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace neuronsim::cli
