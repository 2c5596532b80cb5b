#pragma once
// The one error type of neuronsim. Every bad input (malformed file, bad access pattern,
// capacity overflow, deadlock, wrong dtype) is reported by throwing Error with a message
// that names the file, the instruction and the reason; programs print it and exit non-zero.
#include <stdexcept>
#include <string>

namespace neuronsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace neuronsim
