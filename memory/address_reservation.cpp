#include "memory/address_reservation.hpp"

#include <sys/mman.h>

namespace neuronsim::memory {

AddressReservation::AddressReservation(std::size_t bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
  base_ = static_cast<std::uint8_t*>(p);
  size_ = bytes;
}

AddressReservation::~AddressReservation() {
  if (base_) ::munmap(base_, size_);
}

}  // namespace neuronsim::memory
