#pragma once
// Kernel -> the text assembly language. assemble(print(k)) == k for every valid kernel.
#include <string>

#include "isa/kernel.hpp"

namespace neuronsim::isa {

std::string print(const Kernel& k);

}  // namespace neuronsim::isa
