#pragma once
// Column slices read in place (docs/compiler.md, "Slices read in place"): in fused mode a
// `slice` node that no launch must hold as a tensor of its own is a view, columns col0 ..
// of the rows of `source` (a stored tensor, never itself a view), and the kernels that
// read it (row and layout kernels) read those columns of `source` with its row stride.
#include <cstdint>
#include <map>
#include <string>

namespace neuronsim::compiler {

struct ColumnView {
  std::string source;
  std::uint64_t col0 = 0;
};

// By the slice node's id.
using ColumnViews = std::map<std::string, ColumnView>;

}  // namespace neuronsim::compiler
