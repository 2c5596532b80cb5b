#pragma once
// The preset files config/targets/*.json, compiled into the program so that it finds them
// installed or run from any directory. The definitions are generated at build time by
// cmake/embed_targets.cmake from the JSON files, which stay the source of truth.
#include <cstddef>
#include <string_view>

namespace neuronsim::config::embedded {

struct TargetFile {
  std::string_view name;  // file stem: "trn1"
  std::string_view text;  // the file's bytes
};

extern const TargetFile kTargetFiles[];  // sorted by name
extern const std::size_t kTargetFileCount;

}  // namespace neuronsim::config::embedded
