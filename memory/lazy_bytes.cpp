#include "memory/lazy_bytes.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "base/error.hpp"

namespace neuronsim::memory {

LazyBytes::LazyBytes(std::size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error("memory: cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  data_ = static_cast<std::uint8_t*>(p);
}

LazyBytes::LazyBytes(std::size_t bytes, std::uint8_t* at) : size_(bytes), in_reservation_(true) {
  if (bytes == 0) return;
  void* p =
      ::mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED)
    throw Error("memory: cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  data_ = static_cast<std::uint8_t*>(p);
}

void LazyBytes::release() {
  if (!data_) return;
  // Inside a reservation the pages go back to it (a hole could be taken by another
  // mapping); should that fail, unmapping still returns the memory.
  if (!in_reservation_ ||
      ::mmap(data_, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0) == MAP_FAILED)
    ::munmap(data_, size_);
  data_ = nullptr;
}

LazyBytes::~LazyBytes() {
  release();
}

LazyBytes::LazyBytes(LazyBytes&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      in_reservation_(std::exchange(o.in_reservation_, false)),
      zero_(std::exchange(o.zero_, true)) {}

LazyBytes& LazyBytes::operator=(LazyBytes&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    in_reservation_ = std::exchange(o.in_reservation_, false);
    zero_ = std::exchange(o.zero_, true);
  }
  return *this;
}

void LazyBytes::fill(std::uint8_t value) {
  if (size_ == 0) return;
  if (value != 0) {
    std::memset(data_, value, size_);
    zero_ = false;
    return;
  }
  if (zero_) {
    zero_ = false;  // the caller writes from here on
    return;
  }
  // Private anonymous pages read zero after MADV_DONTNEED (Linux): only pages that were
  // touched cost anything. Should it fail, write the zeros.
  if (::madvise(data_, size_, MADV_DONTNEED) != 0) std::memset(data_, 0, size_);
}

}  // namespace neuronsim::memory
