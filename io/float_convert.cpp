#include "io/float_convert.hpp"

namespace neuronsim::io {

void store_fp32_elements(const float* values, std::uint64_t n, isa::DType to, std::uint8_t* dst) {
  const auto* src = reinterpret_cast<const std::uint8_t*>(values);
  auto load = [](const std::uint8_t* p) {
    float v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  if (detail::convert_floats(src, sizeof(float), n, load, to, dst)) return;
  const std::size_t size = isa::dtype_size(to);  // integers: saturating, as store_fp32
  for (std::uint64_t i = 0; i < n; ++i)
    isa::store_fp32(to, values[i], dst + i * size);
}

}  // namespace neuronsim::io
