#include "base/host_simd.hpp"

#include <atomic>

namespace neuronsim {

namespace {

VectorIsa detect_vector_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return VectorIsa::avx512;
  if (__builtin_cpu_supports("avx2")) return VectorIsa::avx2;
#endif
  return VectorIsa::baseline;
}

std::atomic<VectorIsa>& vector_isa_in_effect() {
  static std::atomic<VectorIsa> isa{detect_vector_isa()};
  return isa;
}

}  // namespace

VectorIsa vector_isa() {
  return vector_isa_in_effect().load(std::memory_order_relaxed);
}

VectorIsa limit_vector_isa(VectorIsa isa) {
  const VectorIsa host = detect_vector_isa();
  const VectorIsa chosen = static_cast<int>(isa) < static_cast<int>(host) ? isa : host;
  vector_isa_in_effect().store(chosen, std::memory_order_relaxed);
  return chosen;
}

}  // namespace neuronsim
