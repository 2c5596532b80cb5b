#pragma once
// The platform's own config/target_config.hpp (see isa/kernel.hpp beside).
#ifndef PLATFORM_SOURCE
#error "a neuronsim header included the platform's config/target_config.hpp"
#endif
namespace platform {
inline constexpr int kTargetConfig = 2;
}  // namespace platform
