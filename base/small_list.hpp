#pragma once
// A list of trivially copyable values that keeps up to N of them inside itself and moves
// to the heap only beyond that: an instruction's semaphore waits and signals (rarely more
// than two), stored with the instruction rather than in two allocations of their own.
// The interface is the part of std::vector the code uses.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <vector>

namespace neuronsim {

template <class T, std::size_t N>
class SmallList {
  static_assert(std::is_trivially_copyable_v<T>, "SmallList copies its values as bytes");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallList() = default;
  SmallList(std::initializer_list<T> values) { assign(values.begin(), values.size()); }
  SmallList(const std::vector<T>& values) {  // NOLINT: the builders' and tests' vectors
    assign(values.data(), values.size());
  }
  SmallList(const SmallList& o) { assign(o.data(), o.size()); }
  SmallList(SmallList&& o) noexcept { take(o); }
  SmallList& operator=(const SmallList& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  SmallList& operator=(SmallList&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallList() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity_) grow(capacity_ * 2);
    data()[size_++] = v;
  }
  // New values are value-initialised, as std::vector::resize does.
  void resize(std::size_t n) {
    if (n > capacity_) grow(n);
    for (std::size_t i = size_; i < n; ++i)
      data()[i] = T{};
    size_ = static_cast<std::uint32_t>(n);
  }
  void clear() { size_ = 0; }

  bool operator==(const SmallList& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const SmallList& o) const { return !(*this == o); }

 private:
  void assign(const T* values, std::size_t n) {
    size_ = 0;
    if (n > capacity_) grow(n);
    std::copy(values, values + n, data());
    size_ = static_cast<std::uint32_t>(n);
  }
  void grow(std::size_t capacity) {
    T* bigger = static_cast<T*>(::operator new(capacity * sizeof(T)));
    std::memcpy(static_cast<void*>(bigger), data(), size_ * sizeof(T));
    release();
    heap_ = bigger;
    capacity_ = static_cast<std::uint32_t>(capacity);
  }
  void release() {
    if (heap_) ::operator delete(heap_);
    heap_ = nullptr;
    capacity_ = N;
  }
  void take(SmallList& o) {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      capacity_ = o.capacity_;
      o.heap_ = nullptr;
      o.capacity_ = N;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
  }

  T inline_[N]{};
  T* heap_ = nullptr;
  std::uint32_t size_ = 0, capacity_ = N;
};

}  // namespace neuronsim
