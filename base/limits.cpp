#include "base/limits.hpp"

#include <array>
#include <cctype>

#include "base/error.hpp"

namespace neuronsim {

namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// Defaults: generous for real kernels (the largest example tensors are a few MiB), small
// enough that a hostile file is refused before it costs more than a few GiB of memory or a
// minute of time (docs/limits.md says why each).
const std::vector<LimitInfo> kTable = {
    {Limit::tensor_bytes, "tensor_bytes", 1 * kGiB, "bytes of one tensor"},
    {Limit::kernel_tensor_bytes, "kernel_tensor_bytes", 4 * kGiB,
     "bytes of all the HBM tensors one kernel or launch sequence declares"},
    {Limit::instructions, "instructions", 1u << 24, "instructions in one kernel"},
    {Limit::graph_nodes, "graph_nodes", 10000, "nodes of one graph"},
    {Limit::launches, "launches", 4096, "launches of one launch sequence"},
    {Limit::trace_records, "trace_records", 1u << 24, "records of one NTFF trace"},
    {Limit::export_bytes, "export_bytes", 512 * kMiB, "bytes of one exported trace file"},
    {Limit::neff_file_bytes, "neff_file_bytes", 256 * kMiB, "bytes of a NEFF file"},
    {Limit::json_file_bytes, "json_file_bytes", 64 * kMiB,
     "bytes of a JSON file (config, graph, launch.json, host.json)"},
    {Limit::text_file_bytes, "text_file_bytes", 64 * kMiB, "bytes of an assembly file"},
    {Limit::npy_file_bytes, "npy_file_bytes", 1 * kGiB + 1 * kMiB, "bytes of a .npy file"},
    {Limit::ntff_file_bytes, "ntff_file_bytes", 4 * kGiB, "bytes of an NTFF trace file"},
};

std::array<std::uint64_t, kLimitCount> g_values = [] {
  std::array<std::uint64_t, kLimitCount> v{};
  for (const auto& info : kTable)
    v[static_cast<int>(info.limit)] = info.default_value;
  return v;
}();

std::optional<std::uint64_t> parse_amount(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  std::uint64_t v = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const auto times10 = checked_mul(v, 10);
    if (!times10) return std::nullopt;
    const auto sum = checked_add(*times10, static_cast<std::uint64_t>(text[i] - '0'));
    if (!sum) return std::nullopt;
    v = *sum;
  }
  std::string suffix = text.substr(i);
  if (suffix.size() == 3 && suffix.substr(1) == "iB") suffix = suffix.substr(0, 1);
  std::uint64_t scale = 1;
  if (suffix.empty())
    scale = 1;
  else if (suffix == "K")
    scale = kKiB;
  else if (suffix == "M")
    scale = kMiB;
  else if (suffix == "G")
    scale = kGiB;
  else if (suffix == "T")
    scale = kGiB * kKiB;
  else
    return std::nullopt;
  return checked_mul(v, scale);
}

}  // namespace

const std::vector<LimitInfo>& limit_table() {
  return kTable;
}

std::uint64_t limit(Limit l) {
  return g_values[static_cast<int>(l)];
}

void set_limit(Limit l, std::uint64_t value) {
  g_values[static_cast<int>(l)] = value;
}

void reset_limits() {
  for (const auto& info : kTable)
    set_limit(info.limit, info.default_value);
}

const char* limit_name(Limit l) {
  for (const auto& info : kTable)
    if (info.limit == l) return info.name;
  return "?";
}

void set_limit_from_text(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw Error("--limit " + assignment + ": expected NAME=VALUE (docs/limits.md)");
  const std::string name = assignment.substr(0, eq);
  for (const auto& info : kTable) {
    if (name != info.name) continue;
    const auto value = parse_amount(assignment.substr(eq + 1));
    if (!value || *value == 0)
      throw Error("--limit " + name + ": '" + assignment.substr(eq + 1) +
                  "' is not a positive integer (with an optional K, M, G or T suffix)");
    set_limit(info.limit, *value);
    return;
  }
  std::string known;
  for (const auto& info : kTable)
    known += std::string(known.empty() ? "" : ", ") + info.name;
  throw Error("--limit: unknown limit '" + name + "' (known: " + known + ")");
}

void check_limit(Limit l, std::uint64_t amount, const std::string& what) {
  if (amount <= limit(l)) return;
  throw Error(what + ": " + std::to_string(amount) + " is more than the limit " + limit_name(l) +
              " = " + std::to_string(limit(l)) + " (raise it with --limit " + limit_name(l) +
              "=N)");
}

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return checked_add(a, b).value_or(UINT64_MAX);
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return checked_mul(a, b).value_or(UINT64_MAX);
}

std::uint64_t checked_tensor_bytes(const std::vector<std::uint64_t>& shape,
                                   std::uint64_t element_bytes, const std::string& what) {
  std::uint64_t bytes = element_bytes;
  for (std::uint64_t d : shape)
    bytes = saturating_mul(bytes, d);
  check_limit(Limit::tensor_bytes, bytes, what);
  return bytes;
}

}  // namespace neuronsim
