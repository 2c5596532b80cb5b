#include "base/parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"

namespace neuronsim {

namespace {

// Workers take parts from a shared counter; the caller takes parts too, then waits until
// every taken part has finished. One loop at a time (the simulator's numerics run on one
// thread: SystemC's).
class Pool {
 public:
  explicit Pool(std::size_t workers) {
    for (std::size_t i = 0; i < workers; ++i)
      threads_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

  void run(std::size_t parts, const std::function<void(std::size_t)>& body) {
    std::unique_lock<std::mutex> lock(caller_);  // one loop at a time
    {
      std::lock_guard<std::mutex> l(mutex_);
      body_ = &body;
      parts_ = parts;
      next_ = 0;
      done_ = 0;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take_parts();
    std::unique_lock<std::mutex> l(mutex_);
    finished_.wait(l, [&] { return done_ == parts_; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void take_parts() {
    for (;;) {
      std::size_t part;
      const std::function<void(std::size_t)>* body;
      {
        std::lock_guard<std::mutex> l(mutex_);
        if (!body_ || next_ >= parts_) return;
        part = next_++;
        body = body_;
      }
      std::exception_ptr error;
      try {
        (*body)(part);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> l(mutex_);
      if (error && !error_) error_ = error;
      if (++done_ == parts_) finished_.notify_all();
    }
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mutex_);
        wake_.wait(l, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      take_parts();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex caller_, mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t parts_ = 0, next_ = 0, done_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

std::size_t threads_from_environment() {
  if (const char* env = std::getenv("NEURONSIM_THREADS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1) return std::min<unsigned long>(n, 64);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(hw, 1, 8);
}

}  // namespace

namespace {
std::size_t chosen_threads = 0;  // set_numerics_threads's, 0: not chosen
bool threads_fixed = false;      // numerics_threads() has answered: the count is in use
}  // namespace

std::size_t numerics_threads() {
  static const std::size_t n = chosen_threads > 0 ? chosen_threads : threads_from_environment();
  threads_fixed = true;
  return n;
}

void set_numerics_threads(std::size_t threads) {
  if (threads < 1 || threads > 64)
    throw Error("numerics threads: " + std::to_string(threads) + " is not in 1..64");
  if (threads_fixed && threads != numerics_threads())
    throw Error("numerics threads: already " + std::to_string(numerics_threads()) +
                " (the count is fixed once the first numerics loop has run)");
  chosen_threads = threads;
}

void parallel_for(std::size_t parts, const std::function<void(std::size_t)>& body) {
  if (parts == 0) return;
  if (parts == 1 || numerics_threads() == 1) {
    for (std::size_t p = 0; p < parts; ++p)
      body(p);
    return;
  }
  static Pool pool(numerics_threads() - 1);
  pool.run(parts, body);
}

}  // namespace neuronsim
