#pragma once
// Resource limits: the one policy on how much a file may make neuronsim allocate, read or
// write (docs/limits.md lists each with its default and how to raise it). Every limit is
// checked before the memory, file or loop it bounds is committed, and a breach is a
// neuronsim::Error naming the limit and the flag that raises it. The values are
// process-wide: the program sets them once from `--limit NAME=VALUE` before any work.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuronsim {

enum class Limit {
  tensor_bytes,         // one tensor (NEFF, launch.json, .npy, graph, generated input)
  kernel_tensor_bytes,  // all the HBM tensors one kernel or program declares together
  instructions,         // instructions in one kernel (NEFF or assembly)
  graph_nodes,          // nodes of one graph
  launches,             // launches of one sequence
  trace_records,        // instruction records of one NTFF trace
  export_bytes,         // one `export` output file
  neff_file_bytes,      // file sizes, per kind
  json_file_bytes,
  text_file_bytes,
  npy_file_bytes,
  ntff_file_bytes,
};
inline constexpr int kLimitCount = 12;

struct LimitInfo {
  Limit limit;
  const char* name;  // as given to --limit
  std::uint64_t default_value;
  const char* doc;
};
const std::vector<LimitInfo>& limit_table();

std::uint64_t limit(Limit l);
void set_limit(Limit l, std::uint64_t value);
void reset_limits();  // back to the defaults (tests)
const char* limit_name(Limit l);
// "NAME=VALUE" (VALUE an integer, optionally with a K/M/G/T suffix meaning KiB..TiB);
// throws neuronsim::Error for an unknown name or a bad value.
void set_limit_from_text(const std::string& assignment);

// Throws Error("<what>: <amount> is more than the limit <name> = <value> (raise it with
// --limit <name>=N)") when amount > limit(l).
void check_limit(Limit l, std::uint64_t amount, const std::string& what);

// Overflow-checked arithmetic on sizes and counts: nullopt on wrap.
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);
std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b);
// Saturating versions, for totals that are reported, never allocated.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b);
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b);

// Bytes of a tensor of `shape` with `element_bytes` each, refused (Error naming `what`) when
// the product wraps or passes the tensor_bytes limit.
std::uint64_t checked_tensor_bytes(const std::vector<std::uint64_t>& shape,
                                   std::uint64_t element_bytes, const std::string& what);

}  // namespace neuronsim
