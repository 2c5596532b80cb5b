#pragma once
// An error raised inside a SystemC process must not escape into the SystemC kernel (which
// would report it as its own fatal error). Processes catch it and hand it here: the first
// one is kept and the simulation stops; the runner rethrows it after sc_start returns.
#include <exception>

#include <systemc>

namespace neuronsim::engines {

class FailureSink {
 public:
  void fail(std::exception_ptr error) {
    if (error_) return;
    error_ = error;
    sc_core::sc_stop();
  }
  bool failed() const { return static_cast<bool>(error_); }
  void rethrow_if_failed() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
};

}  // namespace neuronsim::engines
