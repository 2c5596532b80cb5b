#pragma once
// The text assembly language of docs/assembly.md -> Kernel. Every error is a
// neuronsim::Error whose message starts with "file:line: " and gives the reason.
#include <string>
#include <string_view>

#include "isa/kernel.hpp"

namespace neuronsim::isa {

Kernel assemble(std::string_view source, const std::string& file_name);
Kernel assemble_file(const std::string& path);

}  // namespace neuronsim::isa
