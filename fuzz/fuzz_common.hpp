#pragma once
// Shared by the libFuzzer targets (fuzz/README.md): every input either parses or is refused
// with neuronsim::Error; any other exception, crash, sanitizer report, leak, hang or
// allocation past -rss_limit_mb is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace neuronsim::fuzz {

// Runs `f`, accepting only neuronsim::Error as a refusal.
template <typename F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const neuronsim::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not a neuronsim::Error: %s\n", e.what());
    std::abort();
  }
}

// A private scratch directory for targets whose reader takes a path.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string t = "/tmp/neuronsim-fuzz-" + std::to_string(::getpid()) + "-XXXXXX";
    if (!::mkdtemp(t.data())) std::abort();
    return t;
  }();
  return dir;
}

inline std::string write_scratch(const std::string& name, const std::uint8_t* data,
                                 std::size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  write_file_atomic(path, data, size);
  return path;
}

}  // namespace neuronsim::fuzz
