#include "isa/kernel.hpp"

#include "base/name_table.hpp"

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

bool Kernel::operator==(const Kernel& o) const {
  return name == o.name && target == o.target && tensors == o.tensors &&
         allocations == o.allocations && semaphores == o.semaphores && queues == o.queues &&
         streams == o.streams;
}

}  // namespace neuronsim::isa
