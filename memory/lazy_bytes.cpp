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

LazyBytes::~LazyBytes() {
  if (data_) ::munmap(data_, size_);
}

LazyBytes::LazyBytes(LazyBytes&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      zero_(std::exchange(o.zero_, true)) {}

LazyBytes& LazyBytes::operator=(LazyBytes&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
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
