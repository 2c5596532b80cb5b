#pragma once
// A block of bytes that is all zero without being written: anonymous pages the kernel
// gives out zeroed on first touch. Making it zero again (after a launch wrote to it)
// returns the pages instead of writing every byte, so resetting SBUF and PSUM (tens of
// MiB) costs the pages a launch touched, not the whole memory.
#include <cstddef>
#include <cstdint>

namespace neuronsim::memory {

class LazyBytes {
 public:
  LazyBytes() = default;
  explicit LazyBytes(std::size_t bytes);
  // Mapped at `at`, a page-aligned range of an AddressReservation; when destroyed the
  // range goes back to the reservation (PROT_NONE again) rather than out of it.
  LazyBytes(std::size_t bytes, std::uint8_t* at);
  ~LazyBytes();
  LazyBytes(LazyBytes&& o) noexcept;
  LazyBytes& operator=(LazyBytes&& o) noexcept;
  LazyBytes(const LazyBytes&) = delete;
  LazyBytes& operator=(const LazyBytes&) = delete;

  // Every byte `value`: zero returns the pages (they read zero when next touched), any
  // other value writes every byte.
  void fill(std::uint8_t value);

  std::uint8_t* data() { return data_; }
  std::size_t size() const { return size_; }

 private:
  void release();  // unmaps (or gives back to the reservation); data_ null after

  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool in_reservation_ = false;
  bool zero_ = true;  // nothing has been handed out for writing since the pages were fresh
};

}  // namespace neuronsim::memory
