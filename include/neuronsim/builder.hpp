#pragma once
// The kernel builder (docs/assembly.md, "The builder API"): kernels made in C++ instead of
// assembly. Optional: the rest of the public API does not include it.
#include "builder/builder.hpp"
