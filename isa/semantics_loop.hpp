#pragma once
// Element loops that GCC vectorises at -O2: its default -O2 cost model only vectorises loops
// without a scalar epilogue, so bodies run in fixed blocks of 8 (unrolled, then combined
// into SIMD instructions) plus a tail. Elements are independent: the order does not change
// any result.
#include <cstddef>

namespace neuronsim::isa {

template <class Fn>
inline void for_each_index(std::size_t n, Fn&& fn) {
  constexpr std::size_t kBlock = 8;
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (std::size_t j = 0; j < kBlock; ++j)
      fn(i + j);
  for (; i < n; ++i)
    fn(i);
}

}  // namespace neuronsim::isa
