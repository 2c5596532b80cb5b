#pragma once
// A range of address space taken without memory: PROT_NONE pages that cost neither RAM nor
// commit charge until a part of them is mapped (LazyBytes placed inside). The HBM reserves
// its whole capacity this way so that its chunks lie next to one another in the host's
// memory, as they do in the device's address space: a tensor across chunks is then one
// host range, which one DMI pointer serves. Where the reservation is refused (an
// address-space limit such as `ulimit -v`, or a capacity beyond the host's address space),
// `base()` is null and the caller maps its chunks wherever the kernel puts them.
#include <cstddef>
#include <cstdint>

namespace neuronsim::memory {

class AddressReservation {
 public:
  AddressReservation() = default;
  explicit AddressReservation(std::size_t bytes);  // base() null if refused
  ~AddressReservation();
  AddressReservation(const AddressReservation&) = delete;
  AddressReservation& operator=(const AddressReservation&) = delete;

  std::uint8_t* base() const { return base_; }
  std::size_t size() const { return size_; }

 private:
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace neuronsim::memory
