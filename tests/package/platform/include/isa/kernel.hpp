#pragma once
// The platform's own isa/kernel.hpp. Only the platform includes it (PLATFORM_SOURCE): if a
// neuronsim header reached it instead of its own, the build stops here.
#ifndef PLATFORM_SOURCE
#error "a neuronsim header included the platform's isa/kernel.hpp"
#endif
namespace platform {
inline constexpr int kIsaKernel = 1;
}  // namespace platform
