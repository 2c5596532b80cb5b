#include "isa/kernel.hpp"

#include <set>

#include "base/name_table.hpp"
#include "isa/identifier.hpp"

namespace neuronsim::isa {

namespace {
const detail::NameTable<TensorRole, 4> kRoles{{"input", "output", "constant", "scratch"}};
}

std::string_view tensor_role_name(TensorRole r) {
  return kRoles.name(r);
}

std::uint64_t HbmTensor::elems() const {
  std::uint64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

std::uint64_t HbmTensor::bytes() const {
  return elems() * dtype_size(dtype);
}

bool HbmTensor::operator==(const HbmTensor& o) const {
  return name == o.name && dtype == o.dtype && shape == o.shape && role == o.role && data == o.data;
}

std::uint64_t Allocation::bytes_per_partition() const {
  std::uint64_t n = dtype_size(dtype);
  for (auto d : free_shape)
    n *= d;
  return n;
}

bool Allocation::operator==(const Allocation& o) const {
  return name == o.name && space == o.space && dtype == o.dtype &&
         start_partition == o.start_partition && partitions == o.partitions &&
         free_shape == o.free_shape && byte_offset == o.byte_offset;
}

std::size_t Kernel::instruction_count() const {
  std::size_t n = 0;
  for (const auto& s : streams)
    n += s.size();
  return n;
}

bool Kernel::has_locations() const {
  for (const auto& s : streams)
    if (s.has_locations()) return true;
  return false;
}

bool Kernel::operator==(const Kernel& o) const {
  return name == o.name && target == o.target && sources == o.sources && tensors == o.tensors &&
         allocations == o.allocations && semaphores == o.semaphores && queues == o.queues &&
         streams == o.streams;
}

std::string source_table_problem(const Kernel& k) {
  if (k.sources.size() > kMaxSourceFiles)
    return std::to_string(k.sources.size()) + " source files, more than " +
           std::to_string(kMaxSourceFiles);
  std::set<std::string> names;
  std::size_t total = 0;
  for (std::size_t i = 0; i < k.sources.size(); ++i) {
    const SourceFile& f = k.sources[i];
    const std::string at = "sources[" + std::to_string(i) + "]";
    if (!is_identifier(f.name) || f.name.size() > 255)
      return at + ": name '" + f.name + "' is not an identifier of at most 255 bytes";
    if (!names.insert(f.name).second) return at + ": duplicate source name '" + f.name + "'";
    if (f.path.empty() || f.path.size() > kMaxSourcePathBytes)
      return at + ": path must have 1 to " + std::to_string(kMaxSourcePathBytes) + " bytes";
    if (f.path.find('\n') != std::string::npos || f.path.find('\0') != std::string::npos)
      return at + ": path holds a newline or NUL";
    if (f.text.size() > kMaxSourceTextBytes)
      return at + ": text of " + std::to_string(f.text.size()) + " bytes, more than " +
             std::to_string(kMaxSourceTextBytes);
    total += f.text.size();
  }
  if (total > kMaxSourceTotalBytes)
    return "source texts of " + std::to_string(total) + " bytes together, more than " +
           std::to_string(kMaxSourceTotalBytes);
  for (int e = 0; e < kEngineCount; ++e) {
    const InstructionStream& s = k.streams[e];
    if (!s.has_locations()) continue;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const SourceLocation loc = s.location(i);
      if (loc.known() ? loc.file >= k.sources.size() : loc.file != 0)
        return std::string(engine_name(static_cast<Engine>(e))) + " instruction " +
               std::to_string(i) + ": location names source file " + std::to_string(loc.file) +
               (loc.known() ? " of " + std::to_string(k.sources.size())
                            : " with line 0 (an unknown location has file 0)");
    }
  }
  return "";
}

}  // namespace neuronsim::isa
